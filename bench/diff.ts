/**
 * Diff benchmark: `diffPolicies` of each shipped policy the diff covers
 * against itself (goal: under 1 s each), beside compiling it. Run directly
 * with `npx tsx bench/diff.ts`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DIFF_ENGINES, diffPolicies } from "../src/bundle/diff.js";
import { ENGINES } from "../src/bundle/registry.js";
import { measure, printTable, type BenchRow } from "./support.js";

const POLICIES = join(import.meta.dirname, "../policies");

/** Measures the diff of the shipped policies against themselves; returns the rows `npm run bench` prints. */
export async function runDiffBench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const engine of DIFF_ENGINES) {
    const file = ENGINES[engine].file;
    const source = readFileSync(join(POLICIES, file), "utf8");
    const baselineName = `compile policies/${file}`;
    const compile = measure(() => ENGINES[engine].compile(source), 20);
    const diff = measure(() => {
      const r = diffPolicies(engine, source, source);
      if (!r.ok) throw new Error(r.error.message);
    }, 3);
    rows.push({ name: baselineName, microsPerOp: compile, baselineName, ratio: 1 });
    rows.push({
      name: `diff policies/${file} against itself`,
      microsPerOp: diff,
      baselineName,
      ratio: diff / compile,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) printTable("diff", await runDiffBench());
