/**
 * Scale series: the HTCondor negotiator's inner loop — one job ad matched
 * against N machine ads (Requirements both ways, the job's Rank, the best
 * pick), N = 100 / 1,000 / 10,000 / 100,000, with the ads already parsed
 * (`decideParsedMatch`, the route's decide, no pool policy). Two series: the
 * full verdict (a line per machine, the log) and the best-N form the route
 * answers with `"best": N` (the best BEST_N, counts of the rest).
 *
 * The engine runs bundled by esbuild, as wrangler ships it: under tsx every
 * cross-module reference (even a constant such as MAX_STEPS, read per
 * evaluation step) goes through a getter, which doubled our figures.
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
import { loadavg } from "node:os";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import * as sourceEngine from "../../src/engines/classad/index.js";
import { bundled } from "../bundled.js";
import { JOB_AD, slotAd } from "../fixtures.js";
import {
  libclassad,
  libclassadMatch,
  noLibclassadNote,
  writeAdFiles,
  type AdFiles,
} from "../native/libclassad.js";
import {
  exponentOf,
  growthExponent,
  heapUsed,
  measureSeries,
  median,
  pairedExponents,
  report,
  type SeriesResult,
} from "./series.js";

const SIZES = (process.env.SCALE_SIZES ?? "100,1000,10000,100000").split(",").map(Number);
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 5);
/** How many machines the best-N series lists (`"best": 1`, the negotiator's pick). */
const BEST_N = Number(process.env.BEST_N ?? 1);
/**
 * CPU ms each timed run lasts (after an untimed run of half that): the process's
 * CPU counts V8's helper threads, which after the full GC before each run sweep
 * the pool's heap (266 MB at 100,000 ads) and optimise code; 100 ms windows let
 * that work land in the small sizes' figures (0.3–0.5 ms at 100 machines).
 */
const WINDOW_MS = Number(process.env.SCALE_MS ?? 400);
/**
 * Extra pairs of back-to-back timed runs at the last two sizes, per form and round, for the growth
 * exponent (each of WINDOW_MS / 2): with each round's own pair, `ROUNDS × (1 + PAIRS)` exponents a form,
 * printed as their median and spread. The exponent of the medians (3 rounds: one sample each of 10k
 * and 100k taken minutes apart) moved by 0.05 between runs on this shared machine.
 */
const PAIRS = Number(process.env.SCALE_PAIRS ?? 3);
const HARNESS = libclassad();

const { mod: engine, how } = await bundled("src/engines/classad/index.ts", sourceEngine);
const loadBefore = loadavg();

function ad(text: string): ClassAd {
  const r = engine.readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const ctx = { now: 1_700_000_000_000, random: Math.random };
const job = ad(JOB_AD);
const largest = SIZES[SIZES.length - 1];

const before = heapUsed();
const pool = Array.from({ length: largest }, (_, i) => ad(slotAd(i)));
const poolBytes = heapUsed() - before;

const FULL = "ClassAd: one job matched against N machine ads (decideParsedMatch, full verdict)";
const BEST = `ClassAd: the same, asking for the best ${BEST_N} (decideParsedMatch, "best": ${BEST_N})`;
const slices = new Map(SIZES.map((n) => [n, pool.slice(0, n)]));
const full: number[][] = SIZES.map(() => []);
const best: number[][] = SIZES.map(() => []);
const theirs: number[][] = SIZES.map(() => []);
const fullPairs: number[] = [];
const bestPairs: number[] = [];

/** The decide of one form at size n, checked once. */
function decideAt(n: number, bestN: number | undefined): () => unknown {
  const machines = slices.get(n) as ClassAd[];
  const req =
    bestN === undefined ? { job, schedd: null, machines } : { job, schedd: null, machines, best: bestN };
  const check = engine.decideParsedMatch(null, req, ctx);
  if (check.outcome !== "matched") throw new Error("fixture does not match");
  return () => engine.decideParsedMatch(null, req, ctx);
}

/**
 * One round of one form at every size (rounds alternate the forms and libclassad; odd rounds visit the
 * sizes largest first), then {@link PAIRS} more pairs of the last two sizes; every pair's exponent goes
 * to `pairs`.
 */
function round(name: string, bestN: number | undefined, into: number[][], pairs: number[], r: number): void {
  const order = r % 2 === 0 ? SIZES : [...SIZES].reverse();
  const one = measureSeries(name, order, (n) => ({ run: decideAt(n, bestN) }), { rounds: 1, ms: WINDOW_MS });
  const at = new Map(order.map((n, i) => [n, one.values[i]]));
  SIZES.forEach((n, i) => into[i].push(at.get(n) as number));
  if (SIZES.length < 2) return;
  const [s1, s2] = SIZES.slice(-2);
  pairs.push(exponentOf(s1, at.get(s1) as number, s2, at.get(s2) as number));
  pairs.push(
    ...pairedExponents(s1, decideAt(s1, bestN), s2, decideAt(s2, bestN), PAIRS, WINDOW_MS / 2, r % 2 === 0),
  );
}

let files: AdFiles | null = null;
if (HARNESS.ok)
  files = writeAdFiles(
    JOB_AD,
    slotAd(1),
    Array.from({ length: largest }, (_, i) => slotAd(i)),
  );
try {
  for (let r = 0; r < ROUNDS; r++) {
    round(FULL, undefined, full, fullPairs, r);
    round(BEST, BEST_N, best, bestPairs, r);
    if (HARNESS.ok && files) libclassadMatch(HARNESS.path, files, SIZES).forEach((v, i) => theirs[i].push(v));
  }
} finally {
  files?.dispose();
}
const results: SeriesResult[] = [
  { name: FULL, unit: "µs", sizes: SIZES, values: full.map(median), notes: [], exponents: fullPairs },
  { name: BEST, unit: "µs", sizes: SIZES, values: best.map(median), notes: [], exponents: bestPairs },
];
const load = `load average ${loadBefore[0].toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end (${ROUNDS} rounds; the engine: ${how})`;
if (HARNESS.ok) {
  const base = theirs.map(median);
  const exponent = growthExponent({ name: "", unit: "µs", sizes: SIZES, values: base, notes: [] });
  for (const r of results) {
    r.notes.push(
      `libclassad ${HARNESS.version}, same run, interleaved (medians of ${ROUNDS}): ${base.map((v) => Math.round(v).toLocaleString("en")).join(" / ")} µs, growth exponent ${exponent.toFixed(2)}`,
    );
    r.notes.push(
      `speed-up over libclassad, same run: ${r.values.map((v, i) => `${(base[i] / v).toFixed(2)}×`).join(" / ")} (goal ≥ 5× at every N, exponent ≤ 1.05)`,
    );
  }
} else {
  for (const r of results) r.notes.push(noLibclassadNote(HARNESS));
}
const verdictBytes = (() => {
  const b = heapUsed();
  const d = engine.decideParsedMatch(null, { job, schedd: null, machines: pool }, ctx);
  const used = heapUsed() - b;
  return d.verdict.machines.length > 0 ? used : 0;
})();
results[0].notes.push(
  `heap: the ${pool.length.toLocaleString("en")} parsed machine ads ${(poolBytes / 1048576).toFixed(1)} MB, one ${pool.length.toLocaleString("en")}-machine verdict ${(verdictBytes / 1048576).toFixed(1)} MB, process total ${(heapUsed() / 1048576).toFixed(1)} MB (an isolate has 128 MB)`,
);
results[1].notes.push(load);
report(...results);
