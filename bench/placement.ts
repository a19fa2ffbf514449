/**
 * Placement benchmark: µs per decision in-process, against the cost of reading
 * the same request (JSON.parse + zod PlaceRequest) measured in the same run.
 * The goal is a decision that costs less than reading its request (ratio < 1).
 * Run directly with `npx tsx bench/placement.ts`.
 */
import { readFileSync } from "node:fs";
import { compilePlacement, decidePlacement, loadPlacement } from "../src/engines/placement/index.js";
import { PlaceRequest } from "../src/http/schemas/placement.js";
import { measure, printTable, type BenchRow } from "./support.js";
import { LARGE_PLACEMENT_REQUEST, largePlacement, SEED_PLACEMENT_REQUEST } from "./fixtures.js";

const DEFAULT_POLICY = readFileSync(new URL("../policies/placement.yaml", import.meta.url), "utf8");

function load(source: string) {
  const compiled = compilePlacement(source);
  if (!compiled.ok) throw new Error(`bench policy does not compile: ${JSON.stringify(compiled.error)}`);
  return loadPlacement(compiled.value);
}

/** Measures the placement engine and its baseline; returns the rows `npm run bench` prints. */
export async function runPlacementBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const cases: [string, string, object][] = [
    ["seed policy, issue example", DEFAULT_POLICY, SEED_PLACEMENT_REQUEST],
    ["5 rules, 200 queues, ACL walk", largePlacement(), LARGE_PLACEMENT_REQUEST],
  ];
  for (const [label, source, request] of cases) {
    const policy = load(source);
    const json = JSON.stringify(request);
    const parsed = PlaceRequest.parse(JSON.parse(json));
    const baseline = measure(() => PlaceRequest.parse(JSON.parse(json)));
    const baselineName = "JSON.parse + zod";
    rows.push({ name: `${label}: read request`, microsPerOp: baseline, baselineName, ratio: 1 });
    const decide = measure(() => decidePlacement(policy, parsed, { explain: false }));
    rows.push({ name: `${label}: decide`, microsPerOp: decide, baselineName, ratio: decide / baseline });
    const explain = measure(() => decidePlacement(policy, parsed, { explain: true }));
    rows.push({
      name: `${label}: decide + explain`,
      microsPerOp: explain,
      baselineName,
      ratio: explain / baseline,
    });
  }
  const compileUs = measure(() => compilePlacement(DEFAULT_POLICY), 300);
  rows.push({
    name: "compile seed policy (once per publish)",
    microsPerOp: compileUs,
    baselineName: "JSON.parse + zod",
    ratio: compileUs / rows[0].microsPerOp,
  });
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runPlacementBench();
  printTable("placement: µs per operation, ratio to reading the request (same run)", rows);
  for (const r of rows)
    if (r.name.endsWith(": decide"))
      console.log(`${r.name}: ${Math.round(1e6 / r.microsPerOp).toLocaleString("en")} decisions/s`);
}
