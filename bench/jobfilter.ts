/**
 * Job filter decisions per second for a 50-rule chain in-process, against the
 * cost of parsing the decision's JSON (measured in the same run).
 * Run: npx tsx bench/jobfilter.ts
 */
import { fileURLToPath } from "node:url";
import type { Job } from "../src/engines/jobfilter/index.js";
import { compileFilters, decideJobfilter, loadFilters } from "../src/engines/jobfilter/index.js";
import { parseExactJson } from "../src/engines/common/exact-json.js";
import { jobSchemas } from "../src/http/schemas/jobs.js";
import { measure, printTable, type BenchRow } from "./support.js";
import { chain, job } from "./fixtures.js";

const RULES = 50;

/** Measures one decision over the 50-rule chain, a pass with a busy queue, and the JSON baseline. */
export async function runJobfilterBench(): Promise<BenchRow[]> {
  const compiled = compileFilters(JSON.stringify(chain()));
  if (!compiled.ok) throw new Error(compiled.error[0].message);
  const policy = loadFilters(compiled.value);
  const running = Array.from({ length: 5 }, (_, i) => job(200 + i));
  const request = { job: job(500), queue: { running, queued: [] as Job[] } };
  const text = JSON.stringify(request);

  const check = decideJobfilter(policy, request, { explain: false }).verdict;
  if (check.action !== "ACCEPT" || check.rule !== "ffffffff-0000-4000-8000-000000000000")
    throw new Error(`unexpected ${JSON.stringify(check)}`);

  const baselineName = "JSON.parse job";
  const baseline = measure(() => JSON.parse(text));
  const rows: BenchRow[] = [
    { name: "JSON.parse of the decision input", microsPerOp: baseline, baselineName, ratio: 1 },
  ];
  // As the route reads a job: integers past 2^53 (nanosecond reason timestamps) kept exact, then zod.
  const zodUs = measure(() => jobSchemas().JobfilterDecisionRequest.parse(parseExactJson(text)));
  rows.push({
    name: "exact JSON parse + zod validation",
    microsPerOp: zodUs,
    baselineName,
    ratio: zodUs / baseline,
  });
  const decideUs = measure(() => decideJobfilter(policy, request, { explain: false }));
  rows.push({
    name: `decide, ${RULES} rules, 5 running`,
    microsPerOp: decideUs,
    baselineName,
    ratio: decideUs / baseline,
  });

  const busy = {
    job: job(900),
    queue: {
      running: Array.from({ length: 10 }, (_, i) => job(300 + i)),
      queued: Array.from({ length: 10 }, (_, i) => job(400 + i)),
    },
  };
  const busyUs = measure(() => decideJobfilter(policy, busy, { explain: false }));
  rows.push({
    name: `decide, ${RULES} rules, 10 running + 10 queued ahead`,
    microsPerOp: busyUs,
    baselineName,
    ratio: busyUs / baseline,
  });

  // A job no rate limit applies to and without ad-hoc buckets: the queue around it cannot change its verdict.
  const plain = {
    ...busy,
    job: { id: 901, opcodes: [{ ...job(901).opcodes[0], OP_ID: "OP_INSTANCE_REBOOT" }] },
  };
  const plainCheck = decideJobfilter(policy, plain, { explain: false }).verdict;
  if (plainCheck.action !== "ACCEPT" || plainCheck.rule !== null)
    throw new Error(`unexpected ${JSON.stringify(plainCheck)}`);
  const plainUs = measure(() => decideJobfilter(policy, plain, { explain: false }));
  rows.push({
    name: `decide, ${RULES} rules, same queue, job under no rate limit`,
    microsPerOp: plainUs,
    baselineName,
    ratio: plainUs / baseline,
  });

  const source = JSON.stringify(chain());
  const compileUs = measure(() => {
    const c = compileFilters(source);
    return c.ok ? loadFilters(c.value) : null;
  }, 300);
  rows.push({
    name: `compile + load ${RULES} rules (once per rule change)`,
    microsPerOp: compileUs,
    baselineName,
    ratio: compileUs / baseline,
  });
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rows = await runJobfilterBench();
  printTable("jobfilter", rows);
  const decide = rows[2];
  console.log(
    `\n${Math.round(1e6 / decide.microsPerOp).toLocaleString("en")} decisions/s over ${RULES} rules; ${decide.ratio.toFixed(2)}× the cost of JSON.parse of the input`,
  );
}
