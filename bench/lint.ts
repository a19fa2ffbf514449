/**
 * Lint benchmark: `lintSource` over each shipped policy (goal: under 1 s
 * each), against compiling the same source in the same run, plus two large
 * policies whose checks compare pairs (2,000 placement rules, 2,000 filter
 * rules), which the work bound keeps near-linear. Run directly with
 * `npx tsx bench/lint.ts`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENGINES } from "../src/bundle/registry.js";
import { lintSource } from "../src/bundle/lint.js";
import type { EngineName } from "../src/engines/common/engine.js";
import { placementWithRules } from "./fixtures.js";
import { measure, printTable, type BenchRow } from "./support.js";

const POLICIES = join(import.meta.dirname, "../policies");

function lintOnce(engine: EngineName, source: string): void {
  const r = lintSource(engine, source);
  if (!r.ok) throw new Error(`${engine}: ${r.error[0].message}`);
}

function row(name: string, engine: EngineName, source: string): BenchRow[] {
  const baselineName = `compile ${name}`;
  const compile = measure(() => ENGINES[engine].compile(source), 300);
  const lint = measure(() => lintOnce(engine, source), 300);
  return [
    { name: baselineName, microsPerOp: compile, baselineName, ratio: 1 },
    { name: `lint ${name}`, microsPerOp: lint, baselineName, ratio: lint / compile },
  ];
}

/** 2,000 filter rules, each on its own opcode, so every pair is compared (none shadows another). */
function manyFilters(n: number): string {
  const rules = Array.from({ length: n }, (_, i) => ({
    priority: i,
    predicates: [["opcode", ["=", "OP_ID", `OP_${i}`]]],
    action: "PAUSE",
  }));
  return JSON.stringify(rules, null, 1);
}

/** Measures lint of the shipped policies and of two large ones; returns the rows `npm run bench` prints. */
export async function runLintBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const engine of Object.keys(ENGINES) as EngineName[]) {
    const file = ENGINES[engine].file;
    rows.push(...row(`policies/${file}`, engine, readFileSync(join(POLICIES, file), "utf8")));
  }
  const rules = placementWithRules(
    2_000,
    (i) => `{name: user, create: true, filter: {type: allow, users: [user${i}]}}`,
  );
  rows.push(...row("placement, 2,000 rules", "placement", rules));
  rows.push(...row("filters.json, 2,000 rules", "jobfilter", manyFilters(2_000)));
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) printTable("lint", await runLintBench());
