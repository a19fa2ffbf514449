/**
 * Scale series: parsing one 55-attribute machine ad (old long form, the
 * expression cache warm) while 0 / 1,000 / 10,000 parsed ads are held, and
 * the memory each held ad costs; plus a cold parse (expression cache empty)
 * before and after warm parses in the same process, which once differed 3×;
 * and, when libclassad runs here (bench/native/libclassad.ts), the cold parse
 * of the first of those ads against libclassad's parse of it (its cache off),
 * three rounds alternating ours and libclassad's, medians.
 */
import { clearExprCache, readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { JOB_AD, slotAd } from "../fixtures.js";
import { libclassad, libclassadOps, noLibclassadNote, writeAdFiles } from "../native/libclassad.js";
import { collect, heapUsed, measureSeries, median, report, timeCalls } from "./series.js";

const HELD = [0, 1_000, 10_000];

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

// the ads parsed in the timed loop: a few distinct texts, as a stream of machine reports would vary
const texts = Array.from({ length: 64 }, (_, i) => slotAd(100_000 + i));
let next = 0;
const parseOne = () => ad(texts[next++ & 63]);

// cold parses first, before any warm one (the order that once hid the slowdown)
const coldFirst = median([0, 1, 2].map(() => timeCalls(() => (clearExprCache(), parseOne()), 100)));

let held: ClassAd[] = [];
const base = heapUsed();
const result = measureSeries(
  "ClassAd: parse one 55-attribute ad while N parsed ads are held",
  HELD,
  (n) => ({
    run: () => {
      // hold exactly n ads: built on the first call of each size, dropped for the next size
      if (held.length !== n) {
        held = [];
        collect();
        for (let i = 0; i < n; i++) held.push(ad(slotAd(i)));
      }
      return parseOne();
    },
  }),
  { rounds: 3 },
);
const perAd = (() => {
  held = [];
  const before = heapUsed();
  // the texts are dropped once parsed: what stays is what the ads themselves keep
  for (let i = 0; i < 10_000; i++) held.push(ad(slotAd(i)));
  return (heapUsed() - before) / 10_000;
})();
const coldAfter = median([0, 1, 2].map(() => timeCalls(() => (clearExprCache(), parseOne()), 100)));
result.notes.push(
  `with 10,000 held: ${(result.values[2] / result.values[0]).toFixed(2)}× the empty-heap figure (goal ≤ 1.2×)`,
);
result.notes.push(
  `memory per parsed 55-attribute ad: ${Math.round(perAd).toLocaleString("en")} bytes, its text included (goal ≤ 4 KB); heap before: ${(base / 1048576).toFixed(1)} MB`,
);
result.notes.push(
  `cold parse (expression cache empty): ${coldFirst.toFixed(1)} µs before any warm parse, ${coldAfter.toFixed(1)} µs after warm ones`,
);
const lib = libclassad();
if (lib.ok) {
  const files = writeAdFiles(JOB_AD, texts[0]);
  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    for (let r = 0; r < 3; r++) {
      ours.push(timeCalls(() => (clearExprCache(), ad(texts[0])), 100));
      const v = libclassadOps(lib.path, files).get("parse-slot");
      if (v === undefined) throw new Error("libclassad harness printed no parse-slot figure");
      theirs.push(v);
    }
  } finally {
    files.dispose();
  }
  const [o, t] = [median(ours), median(theirs)];
  result.notes.push(
    `libclassad ${lib.version}, same run, 3 alternating rounds: one 55-attribute ad cold ${o.toFixed(1)} µs ours, ${t.toFixed(1)} µs libclassad (its cache off): speed-up ${(t / o).toFixed(2)}×`,
  );
} else result.notes.push(noLibclassadNote(lib));
report(result);
