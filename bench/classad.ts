/**
 * ClassAd benchmark: a 31-attribute job ad and a 55-attribute slot ad with
 * the Requirements condor_submit generates. Measures evaluating the job's
 * Requirements, a symmetric match, ranking, and a 2,000-machine /v1/match
 * decision, each against parsing the two ads in the same run; and, when
 * libclassad runs here (bench/native/libclassad.ts), libclassad's figures for
 * the same parse, Requirements, symmetric match and Rank, measured in the same
 * run: CPU time, ROUNDS rounds that alternate ours and libclassad's, medians.
 * Run directly with `npx tsx bench/classad.ts`. Our engine runs bundled by
 * esbuild, as wrangler ships it (bench/bundled.ts).
 */

const { mod: engine, how } = await bundled("bench/classad-entry.ts", sourceEngine);
const {
  clearExprCache,
  readAd,
  evalAttr,
  decideMatch,
  decideParsedMatch,
  symmetricMatch,
  compileMatchPolicy,
  loadMatchPolicy,
  EvalState,
} = engine;
import type { ClassAd } from "../src/engines/classad/classad.js";
import { bundled } from "./bundled.js";
import * as sourceEngine from "./classad-entry.js";
import { cpuPerCall, measure, printTable, type BenchRow } from "./support.js";
import { CLASSAD_POLICY, JOB_AD, slotAd } from "./fixtures.js";
import { libclassad, libclassadOps, noLibclassadNote, writeAdFiles } from "./native/libclassad.js";

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const POOL = 2000;
const ROUNDS = 5;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** The operations compared with libclassad, by the harness's names for them. */
type Op = "parse" | "parse-cached" | "requirements" | "symmetric" | "rank";

/**
 * CPU µs per call of each operation, ours and (when it runs) libclassad's:
 * ROUNDS rounds, each measuring ours then running the harness once; medians.
 */
async function interleaved(
  ours: Record<Op, () => unknown>,
  slotText: string,
): Promise<{ ours: Record<Op, number>; theirs: Record<Op, number> | null; version: string }> {
  const h = libclassad();
  const files = h.ok ? writeAdFiles(JOB_AD, slotText) : null;
  const ops = Object.keys(ours) as Op[];
  const mine = new Map<Op, number[]>(ops.map((k) => [k, []]));
  const base = new Map<Op, number[]>(ops.map((k) => [k, []]));
  try {
    for (const op of ops) await cpuPerCall(ours[op], 50);
    for (let r = 0; r < ROUNDS; r++) {
      for (const op of ops) mine.get(op)?.push(await cpuPerCall(ours[op], 100));
      if (h.ok && files) {
        const got = libclassadOps(h.path, files);
        for (const op of ops) {
          const v = got.get(op);
          if (v === undefined) throw new Error(`libclassad harness printed no figure for ${op}`);
          base.get(op)?.push(v);
        }
      }
    }
  } finally {
    files?.dispose();
  }
  const pick = (m: Map<Op, number[]>) =>
    Object.fromEntries(ops.map((k) => [k, median(m.get(k) ?? [])])) as Record<Op, number>;
  if (!h.ok) console.log(noLibclassadNote(h));
  return { ours: pick(mine), theirs: h.ok ? pick(base) : null, version: h.ok ? h.version : "" };
}

/** Runs the ClassAd benchmarks and returns their rows (ratios against parsing the two ads cold). */
export async function runClassadBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slotText = slotAd(1);
  const baselineName = "parse job + slot ads (cold)";
  const job = ad(JOB_AD);
  const slot = ad(slotText);
  const st = new EvalState({ now: 1_700_000_000_000, random: Math.random });
  if (evalAttr(job, "requirements", slot, st) !== true || !symmetricMatch(job, slot, st))
    throw new Error("fixture ads do not match");

  const m = await interleaved(
    {
      parse: () => {
        clearExprCache();
        return [ad(JOB_AD), ad(slotText)];
      },
      "parse-cached": () => [ad(JOB_AD), ad(slotText)],
      requirements: () => evalAttr(job, "requirements", slot, st),
      symmetric: () => symmetricMatch(job, slot, st),
      rank: () => evalAttr(job, "rank", slot, st),
    },
    slotText,
  );
  const names: Record<Op, string> = {
    parse: baselineName,
    "parse-cached": "parse job + slot ads (expression cache warm)",
    requirements: "evaluate job Requirements vs slot",
    symmetric: "symmetric match (both Requirements)",
    rank: "evaluate job Rank vs slot",
  };
  const parseCold = m.ours.parse;
  // reading defers each expression's parse to its first use (syntax-check.ts): this row pays for those
  // parses too, as a match's first pair does, against libclassad's parse + symmetric match + Rank
  const firstUses: number[] = [];
  for (let r = 0; r < 3; r++)
    firstUses.push(
      await cpuPerCall(() => {
        clearExprCache();
        const [j, s] = [ad(JOB_AD), ad(slotText)];
        return symmetricMatch(j, s, st) && evalAttr(j, "rank", s, st);
      }, 100),
    );
  const firstUse = median(firstUses);
  // the cold row before kept lines were cleared with the cache: expressions cold, each layout's last
  // plain-literal lines warm (what a repeated ad of a known kind costs when its expressions are new)
  const linesWarm: number[] = [];
  for (let r = 0; r < 3; r++)
    linesWarm.push(
      await cpuPerCall(() => {
        clearExprCache(false);
        return [ad(JOB_AD), ad(slotText)];
      }, 100),
    );
  for (const op of Object.keys(names) as Op[])
    rows.push({ name: names[op], microsPerOp: m.ours[op], baselineName, ratio: m.ours[op] / parseCold });
  if (m.theirs) {
    // libclassad's figure for each, its ratio taken to ours: how many times faster we are
    const theirName: Record<Op, string> = {
      parse: "parse job + slot ads, its cache off",
      "parse-cached": "parse job + slot ads, its cache on, warm",
      requirements: "job Requirements vs slot",
      symmetric: "symmetric match",
      rank: "job Rank vs slot",
    };
    console.log(
      `libclassad ${m.version}: same run (ours: ${how}), ${ROUNDS} interleaved rounds, CPU time; its rows' ratio is its µs over ours`,
    );
    for (const op of Object.keys(names) as Op[])
      rows.push({
        name: `  libclassad: ${theirName[op]}`,
        microsPerOp: m.theirs[op],
        baselineName: names[op],
        ratio: m.theirs[op] / m.ours[op],
      });
  }

  rows.push({
    name: "parse job + slot ads (expression cache cold, kept lines warm)",
    microsPerOp: median(linesWarm),
    baselineName,
    ratio: median(linesWarm) / parseCold,
  });
  rows.push({
    name: "parse job + slot ads (cold), then their symmetric match and Rank once",
    microsPerOp: firstUse,
    baselineName,
    ratio: firstUse / parseCold,
  });
  if (m.theirs) {
    const sum = m.theirs.parse + m.theirs.symmetric + m.theirs.rank;
    rows.push({
      name: "  libclassad: parse (its cache off) + symmetric match + Rank",
      microsPerOp: sum,
      baselineName: "parse job + slot ads (cold), then their symmetric match and Rank once",
      ratio: sum / firstUse,
    });
  }

  const compiled = compileMatchPolicy(CLASSAD_POLICY);
  if (!compiled.ok) throw new Error("bench policy");
  const policy = loadMatchPolicy(compiled.value);
  const texts = Array.from({ length: POOL }, (_, i) => slotAd(i));
  const slots = texts.map(ad);
  const ctx = { now: 1_700_000_000_000, random: Math.random };
  const parsedUs = measure(
    () => decideParsedMatch(policy, { job, schedd: null, machines: slots }, ctx),
    1500,
  );
  rows.push({
    name: `match decision over ${POOL} parsed slots (policy on)`,
    microsPerOp: parsedUs,
    baselineName,
    ratio: parsedUs / parseCold,
  });
  rows.push({
    name: "  … per slot",
    microsPerOp: parsedUs / POOL,
    baselineName,
    ratio: parsedUs / POOL / parseCold,
  });
  // the route's path asked for the negotiator's pick alone (`"best": 1`): no line or log string per slot
  const bestUs = measure(
    () => decideParsedMatch(policy, { job, schedd: null, machines: slots, best: 1 }, ctx),
    1500,
  );
  rows.push({
    name: `match decision over ${POOL} parsed slots, "best": 1 (policy on)`,
    microsPerOp: bestUs,
    baselineName: `match decision over ${POOL} parsed slots (policy on)`,
    ratio: bestUs / parsedUs,
  });
  const fullUs = measure(() => decideMatch(policy, { job: JOB_AD, machines: texts }, ctx), 2000);
  rows.push({
    name: `/v1/match decision from ${POOL} slot ad texts`,
    microsPerOp: fullUs,
    baselineName,
    ratio: fullUs / parseCold,
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runClassadBench();
  printTable("classad: µs per operation, ratio to parsing the job and slot ads (same run)", rows);
  const sym = rows.find((r) => r.name.startsWith("symmetric"));
  if (sym)
    console.log(
      `symmetric matches per second: ${Math.round(1e6 / sym.microsPerOp).toLocaleString("en")} (goal: under 5 µs each)`,
    );
}
