/**
 * Scale series: the HTCondor negotiator's inner loop — one job ad matched
 * against N machine ads (Requirements both ways, the job's Rank, the best
 * pick, the verdict and its log), N = 10 / 100 / 1,000 / 10,000, with the
 * ads already parsed (`decideParsedMatch`, no pool policy). libclassad
 * 23.9.6's figures for the same loop, measured on this machine kind when the
 * work was planned (issue 14; the C++ library is not installed here), are
 * printed beside ours; the goal is 1.5× faster at every N.
 */
import { readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { decideParsedMatch } from "../../src/engines/classad/match.js";
import { JOB_AD, slotAd } from "../fixtures.js";
import { heapUsed, measureSeries, report } from "./series.js";

const SIZES = [10, 100, 1_000, 10_000];
/** libclassad 23.9.6, µs per match of one job against N machines (issue 14's table). */
const LIBCLASSAD = [24, 246, 2_725, 41_813];

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

const result = measureSeries("ClassAd: one job matched against N machine ads (decideParsedMatch)", SIZES, (n) => {
  const machines = pool.slice(0, n);
  const check = decideParsedMatch(null, { job, schedd: null, machines }, ctx);
  if (check.outcome !== "matched") throw new Error("fixture does not match");
  return { run: () => decideParsedMatch(null, { job, schedd: null, machines }, ctx) };
});
result.notes.push(`libclassad 23.9.6 (issue 14): ${LIBCLASSAD.map((v) => v.toLocaleString("en")).join(" / ")} µs`);
result.notes.push(`speed-up over libclassad: ${result.values.map((v, i) => `${(LIBCLASSAD[i] / v).toFixed(2)}×`).join(" / ")} (goal ≥ 1.5× at every N)`);
const verdictBytes = (() => {
  const b = heapUsed();
  const d = decideParsedMatch(null, { job, schedd: null, machines: pool }, ctx);
  const used = heapUsed() - b;
  return d.verdict.machines.length > 0 ? used : 0;
})();
result.notes.push(
  `heap: the 10,000 parsed machine ads ${(poolBytes / 1048576).toFixed(1)} MB, one 10,000-machine verdict ${(verdictBytes / 1048576).toFixed(1)} MB, process total ${(heapUsed() / 1048576).toFixed(1)} MB (an isolate has 128 MB)`,
);
report(result);
