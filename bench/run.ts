/**
 * `npm run bench`: every in-process engine benchmark, then one summary table of
 * each engine's µs per decision and its ratio to the baseline measured in the
 * same run (for decision engines: parsing and validating the request JSON),
 * then the `scale` section: each series of bench/scale/ in a fresh process,
 * with its sizes, figures and growth exponent (`--skip-scale` leaves it out;
 * `npm run bench:scale [series…]` runs it alone).
 */
import { runScale } from "./scale/run.js";
import { printTable, type BenchRow } from "./support.js";

const SUITES: [string, () => Promise<BenchRow[]>][] = [
  ["placement", async () => (await import("./placement.js")).runPlacementBench()],
  ["limits", async () => (await import("./limits.js")).runLimitsBench()],
  ["classad / match", async () => (await import("./classad.js")).runClassadBench()],
  ["customs", async () => (await import("./customs.js")).runCustomsBench()],
  ["jobfilter", async () => (await import("./jobfilter.js")).runJobfilterBench()],
  ["jq", async () => (await import("./jq.js")).runJqBench()],
  ["regex", async () => (await import("./regex.js")).runRegexBench()],
  ["metrics", async () => (await import("./metrics.js")).runMetricsBench()],
  ["lint", async () => (await import("./lint.js")).runLintBench()],
  ["diff", async () => (await import("./diff.js")).runDiffBench()],
];

const summary: (BenchRow & { suite: string })[] = [];
for (const [suite, run] of SUITES) {
  try {
    const rows = await run();
    printTable(suite, rows);
    for (const r of rows) summary.push({ ...r, suite });
  } catch (e) {
    console.error(`${suite}: benchmark failed: ${(e as Error).message}`);
    process.exitCode = 1;
  }
}

console.log("\n=== summary: µs per operation and ratio to its baseline (same run) ===");
printTable(
  "all engines",
  summary.map((r) => ({ ...r, name: `${r.suite}: ${r.name}` })),
);

if (!process.argv.includes("--skip-scale")) runScale();
