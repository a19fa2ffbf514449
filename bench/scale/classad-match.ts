/**
 * Scale series: the HTCondor negotiator's inner loop — one job ad matched
 * against N machine ads (Requirements both ways, the job's Rank, the best
 * pick, the verdict and its log), N = 100 / 1,000 / 10,000 / 100,000, with
 * the ads already parsed (`decideParsedMatch`, no pool policy).
 *
 * A ratio against libclassad is printed only when libclassad runs in the same
 * run: set `LIBCLASSAD_HARNESS` to a harness binary. It is called as
 * `<harness> <job ad file> <machine ads file> 100 1000 …` (old-syntax ads, the
 * machine ads separated by blank lines; size N uses the first N), matches the
 * job against the machines as the negotiator does (Requirements both ways, the
 * job's Rank, the best pick) and prints one line `<N> <µs>` per size, µs being
 * the CPU microseconds of one such match against N machines. It runs once
 * after each of our rounds (interleaved) and its medians are compared with
 * ours. Without it the series prints our figures alone and says that
 * libclassad is not installed here.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { decideParsedMatch } from "../../src/engines/classad/match.js";
import { JOB_AD, slotAd } from "../fixtures.js";
import { heapUsed, measureSeries, median, report } from "./series.js";

const SIZES = [100, 1_000, 10_000, 100_000];
const ROUNDS = 5;
const HARNESS = process.env.LIBCLASSAD_HARNESS;

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

/** One libclassad harness run: µs per match at each size, in SIZES order. */
function runHarness(harness: string, files: { job: string; machines: string }): number[] {
  const r = spawnSync(harness, [files.job, files.machines, ...SIZES.map(String)], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`LIBCLASSAD_HARNESS exited ${r.status}: ${(r.stderr ?? "").trim().slice(-400)}`);
  const byN = new Map<number, number>();
  for (const line of r.stdout.split("\n")) {
    const m = /^\s*(\d+)\s+([0-9.]+)\s*$/.exec(line);
    if (m) byN.set(Number(m[1]), Number(m[2]));
  }
  return SIZES.map((n) => {
    const v = byN.get(n);
    if (v === undefined) throw new Error(`LIBCLASSAD_HARNESS printed no figure for N = ${n}`);
    return v;
  });
}

const NAME = "ClassAd: one job matched against N machine ads (decideParsedMatch)";
const slices = new Map(SIZES.map((n) => [n, pool.slice(0, n)]));
const ours: number[][] = SIZES.map(() => []);
const theirs: number[][] = SIZES.map(() => []);
let files: { dir: string; job: string; machines: string } | null = null;
if (HARNESS) {
  const dir = mkdtempSync(join(tmpdir(), "classad-match-"));
  files = { dir, job: join(dir, "job.ad"), machines: join(dir, "machines.ads") };
  writeFileSync(files.job, `${JOB_AD}\n`);
  writeFileSync(files.machines, Array.from({ length: SIZES[SIZES.length - 1] }, (_, i) => slotAd(i)).join("\n\n") + "\n");
}
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
    if (HARNESS && files) runHarness(HARNESS, files).forEach((v, i) => theirs[i].push(v));
  }
} finally {
  if (files) rmSync(files.dir, { recursive: true, force: true });
}
const result = { name: NAME, unit: "µs" as const, sizes: SIZES, values: ours.map(median), notes: [] as string[] };
if (HARNESS) {
  const base = theirs.map(median);
  result.notes.push(`libclassad (${HARNESS}), same run, interleaved: ${base.map((v) => Math.round(v).toLocaleString("en")).join(" / ")} µs`);
  result.notes.push(`speed-up over libclassad, same run: ${result.values.map((v, i) => `${(base[i] / v).toFixed(2)}×`).join(" / ")} (goal ≥ 5× at every N)`);
} else {
  result.notes.push("libclassad: not installed here, no ratio printed (set LIBCLASSAD_HARNESS to a harness binary to measure it in the same run)");
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
