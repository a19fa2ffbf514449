/**
 * Scale series: the HTCondor negotiator's inner loop — one job ad matched
 * against N machine ads (Requirements both ways, the job's Rank, the best
 * pick, the verdict and its log), N = 100 / 1,000 / 10,000 / 100,000, with
 * the ads already parsed (`decideParsedMatch`, no pool policy).
 *
 * A ratio against libclassad is printed only when libclassad runs in the same
 * run (bench/native/libclassad.ts: `LIBCLASSAD_HARNESS`, or built from
 * HTCondor's source by bench/native/build.sh). Its harness matches the job
 * against the first N machine ads as the negotiator does (the symmetric match
 * in a MatchClassAd, then the job's Rank for each match, the best kept) and
 * reports CPU µs per pass; it runs once after each of our rounds (interleaved)
 * and the medians are compared. Without it the series prints our figures
 * alone and says why.
 */
import { readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { decideParsedMatch } from "../../src/engines/classad/match.js";
import { JOB_AD, slotAd } from "../fixtures.js";
import { libclassad, libclassadMatch, noLibclassadNote, writeAdFiles, type AdFiles } from "../native/libclassad.js";
import { heapUsed, measureSeries, median, report } from "./series.js";

const SIZES = [100, 1_000, 10_000, 100_000];
const ROUNDS = 5;
const HARNESS = libclassad();

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const ctx = { now: 1_700_000_000_000, random: Math.random };
const job = ad(JOB_AD);

const before = heapUsed();
const pool = Array.from({ length: SIZES[SIZES.length - 1] }, (_, i) => ad(slotAd(i)));
const poolBytes = heapUsed() - before;

const NAME = "ClassAd: one job matched against N machine ads (decideParsedMatch)";
const slices = new Map(SIZES.map((n) => [n, pool.slice(0, n)]));
const ours: number[][] = SIZES.map(() => []);
const theirs: number[][] = SIZES.map(() => []);
let files: AdFiles | null = null;
if (HARNESS.ok)
  files = writeAdFiles(
    JOB_AD,
    slotAd(1),
    Array.from({ length: SIZES[SIZES.length - 1] }, (_, i) => slotAd(i)),
  );
try {
  for (let r = 0; r < ROUNDS; r++) {
    const one = measureSeries(
      NAME,
      SIZES,
      (n) => {
        const machines = slices.get(n) as ClassAd[];
        const check = decideParsedMatch(null, { job, schedd: null, machines }, ctx);
        if (check.outcome !== "matched") throw new Error("fixture does not match");
        return { run: () => decideParsedMatch(null, { job, schedd: null, machines }, ctx) };
      },
      { rounds: 1 },
    );
    one.values.forEach((v, i) => ours[i].push(v));
    if (HARNESS.ok && files) libclassadMatch(HARNESS.path, files, SIZES).forEach((v, i) => theirs[i].push(v));
  }
} finally {
  files?.dispose();
}
const result = { name: NAME, unit: "µs" as const, sizes: SIZES, values: ours.map(median), notes: [] as string[] };
if (HARNESS.ok) {
  const base = theirs.map(median);
  const last = base.length - 1;
  const exponent = Math.log(base[last] / base[last - 1]) / Math.log(SIZES[last] / SIZES[last - 1]);
  result.notes.push(
    `libclassad ${HARNESS.version}, same run, interleaved (medians of ${ROUNDS}): ${base.map((v) => Math.round(v).toLocaleString("en")).join(" / ")} µs, growth exponent ${exponent.toFixed(2)}`,
  );
  result.notes.push(
    `speed-up over libclassad, same run: ${result.values.map((v, i) => `${(base[i] / v).toFixed(2)}×`).join(" / ")} (goal ≥ 5× at every N)`,
  );
} else {
  result.notes.push(noLibclassadNote(HARNESS));
}
const verdictBytes = (() => {
  const b = heapUsed();
  const d = decideParsedMatch(null, { job, schedd: null, machines: pool }, ctx);
  const used = heapUsed() - b;
  return d.verdict.machines.length > 0 ? used : 0;
})();
result.notes.push(
  `heap: the ${pool.length.toLocaleString("en")} parsed machine ads ${(poolBytes / 1048576).toFixed(1)} MB, one ${pool.length.toLocaleString("en")}-machine verdict ${(verdictBytes / 1048576).toFixed(1)} MB, process total ${(heapUsed() / 1048576).toFixed(1)} MB (an isolate has 128 MB)`,
);
report(result);
