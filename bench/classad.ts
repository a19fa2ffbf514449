/**
 * ClassAd benchmark: a 31-attribute job ad and a 55-attribute slot ad with
 * the Requirements condor_submit generates. Measures evaluating the job's
 * Requirements, a symmetric match, ranking, and a 2,000-machine /v1/match
 * decision, each against parsing the two ads in the same run.
 * Run directly with `npx tsx bench/classad.ts`.
 */
import { clearExprCache, readAd } from "../src/engines/classad/ad-input.js";
import type { ClassAd } from "../src/engines/classad/classad.js";
import { evalAttr } from "../src/engines/classad/evaluate.js";
import { decideMatch, decideParsedMatch, symmetricMatch } from "../src/engines/classad/match.js";
import { compileMatchPolicy, loadMatchPolicy } from "../src/engines/classad/policy.js";
import { EvalState } from "../src/engines/classad/state.js";
import { measure, printTable, type BenchRow } from "./support.js";
import { CLASSAD_POLICY, JOB_AD, slotAd } from "./fixtures.js";

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const POOL = 2000;

/** Runs the ClassAd benchmarks and returns their rows (ratios against parsing the two ads cold). */
export async function runClassadBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const slotText = slotAd(1);
  const baselineName = "parse job + slot ads (cold)";
  const parseCold = measure(() => {
    clearExprCache();
    return [ad(JOB_AD), ad(slotText)];
  });
  rows.push({ name: baselineName, microsPerOp: parseCold, baselineName, ratio: 1 });
  const parseWarm = measure(() => [ad(JOB_AD), ad(slotText)]);
  rows.push({
    name: "parse job + slot ads (expression cache warm)",
    microsPerOp: parseWarm,
    baselineName,
    ratio: parseWarm / parseCold,
  });

  const job = ad(JOB_AD);
  const slot = ad(slotText);
  const st = new EvalState({ now: 1_700_000_000_000, random: Math.random });
  if (evalAttr(job, "requirements", slot, st) !== true || !symmetricMatch(job, slot, st))
    throw new Error("fixture ads do not match");

  const reqUs = measure(() => evalAttr(job, "requirements", slot, st));
  rows.push({
    name: "evaluate job Requirements vs slot",
    microsPerOp: reqUs,
    baselineName,
    ratio: reqUs / parseCold,
  });
  const symUs = measure(() => symmetricMatch(job, slot, st));
  rows.push({
    name: "symmetric match (both Requirements)",
    microsPerOp: symUs,
    baselineName,
    ratio: symUs / parseCold,
  });
  const rankUs = measure(() => evalAttr(job, "rank", slot, st));
  rows.push({
    name: "evaluate job Rank vs slot",
    microsPerOp: rankUs,
    baselineName,
    ratio: rankUs / parseCold,
  });

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
