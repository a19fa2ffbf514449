/**
 * Scale series: a rule change in a JobQueue with 1,000 rules and 1k / 10k /
 * 100k jobs running. The counts carried to the new rules (`rebase`, which
 * matches again only what the change can move) against the rebuild from every
 * running job that the queue did before (`RunningCounts.of`), in the same run.
 */
import { RunningCounts, buildFilterSet } from "../../src/engines/jobfilter/index.js";
import { chain, job } from "../fixtures.js";
import { measureSeries, report } from "./series.js";

const CHANGE = [1_000, 10_000, 100_000];
const many = Array.from({ length: CHANGE[CHANGE.length - 1] }, (_, i) => job(1_000 + i));
const rules = chain(1_000);
const before = buildFilterSet(rules);
// PUT /2/filters/<uuid> on a rule in the middle: the watermark and the trail are stamped anew
const after = buildFilterSet(
  rules.map((r, i) => (i === 500 ? { ...r, watermark: 200_000, reason_trail: [["luxid", "", 1n]] } : r)),
);
const rebuild = measureSeries(
  "jobfilter: a rule change with 1,000 rules and N jobs running, rebuilding the counts (former path)",
  CHANGE,
  (n) => {
    const run = many.slice(0, n);
    return { run: () => RunningCounts.of(after, run) };
  },
  { unit: "ms", rounds: 3, ms: 1 },
);
const carried = measureSeries(
  "jobfilter: the same, counts carried to the new rules (rebase)",
  CHANGE,
  (n) => {
    const counts = RunningCounts.of(before, many.slice(0, n));
    const want = JSON.stringify(RunningCounts.of(after, many.slice(0, n)).snapshot());
    if (JSON.stringify(counts.rebase(after).snapshot()) !== want)
      throw new Error("rebase differs from a rebuild");
    return { run: () => counts.rebase(after) };
  },
  { unit: "ms", rounds: 5, ms: 20 },
);
carried.notes.push(
  `100k jobs: ${carried.values[2].toFixed(1)} ms (goal ≤ 50 ms); ${(rebuild.values[2] / carried.values[2]).toFixed(0)}× less than rebuilding`,
);
report(rebuild, carried);
