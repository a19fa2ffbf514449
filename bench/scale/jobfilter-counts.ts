/**
 * Scale series: a JobQueue with 1,000 rules and 1k / 10k / 100k jobs running.
 * A rule change: the counts carried to the new rules in place (`rebase`, which
 * reads only the jobs the rules it adds can reach, through the store's
 * indexes by job id and by OP_ID) against the rebuild from every
 * running job that the queue did before (`RunningCounts.of`), in the same run.
 * An object reload: the rules built and the counts restored from the store
 * kept with the jobs (`RunningCounts.restore`) against the rules built and the
 * counts counted from the running rows (what the object did before). The
 * store here is the in-memory one `arbiter test` uses (`MemoryQueueTables`);
 * the Durable Object's SQLite store runs the same steps, each a row read or
 * write, and is not measured here.
 */
import { RunningCounts, buildFilterSet, type FilterRule } from "../../src/engines/jobfilter/index.js";
import { MemoryQueueTables } from "../../src/state/job-queue-store.js";
import { chain, job } from "../fixtures.js";
import { measureSeries, report } from "./series.js";

/** The sizes; `JOBFILTER_COUNTS_MAX=10000` leaves out the 100k size (its rebuilds take seconds each on a loaded machine). */
const CHANGE = [1_000, 10_000, 100_000].filter(
  (n) => n <= Number(process.env.JOBFILTER_COUNTS_MAX ?? Infinity),
);
const TOP = CHANGE.length - 1;
const topName = `${CHANGE[TOP] / 1000}k`;
const many = Array.from({ length: CHANGE[CHANGE.length - 1] }, (_, i) => job(1_000 + i));
const rules = chain(1_000);
const before = buildFilterSet(rules);
/** `rules` with rule `at` replaced by `edit(rule)`. */
const edited = (at: number, edit: (r: FilterRule) => FilterRule) =>
  rules.map((r, i) => (i === at ? edit(r) : r));
// PUT /2/filters/<uuid> on a rule in the middle: the watermark and the trail are stamped anew (its predicate reads the watermark)
const restamped = edited(500, (r) => ({ ...r, watermark: 200_000, reason_trail: [["luxid", "", 1n]] }));
const after = buildFilterSet(restamped);
// the same on an opcode rule, its predicate changed too (to an OP_ID no running job has)
const opcodeChanged = edited(501, (r) => ({
  ...r,
  watermark: 200_000,
  predicates: [["opcode", ["==", "OP_ID", "OP_NEVER_X"]]],
  reason_trail: [["luxid", "", 1n]],
}));

const rebuild = measureSeries(
  "jobfilter: a rule change with 1,000 rules and N jobs running, rebuilding the counts (former path)",
  CHANGE,
  (n) => {
    const run = many.slice(0, n);
    return { run: () => RunningCounts.of(after, run) };
  },
  { unit: "ms", rounds: 1, ms: 1 },
);

/** Rule sets built in advance, alternating between the edited rules and the original ones. */
const POOL = 64;

/**
 * A rule change carried in place, back and forth between the original rules
 * and `toRules` (each call is one change), each change to a rule set built
 * afresh as a PUT builds one (built before the timing; a set seen before
 * would find its rules' keys already worked out).
 */
function carriedSeries(name: string, toRules: FilterRule[]) {
  return measureSeries(
    name,
    CHANGE,
    (n) => {
      const counts = RunningCounts.of(before, many.slice(0, n));
      const to = buildFilterSet(toRules);
      const want = JSON.stringify(RunningCounts.of(to, many.slice(0, n)).snapshot());
      if (JSON.stringify(counts.rebase(to).snapshot()) !== want)
        throw new Error("rebase differs from a rebuild");
      const pool = Array.from({ length: POOL }, (_, i) => buildFilterSet(i % 2 === 0 ? rules : toRules));
      let next = 0;
      return { run: () => counts.rebase(pool[next++ % POOL]) };
    },
    { unit: "ms", rounds: 5, ms: 20 },
  );
}
const carried = carriedSeries(
  "jobfilter: the same, counts carried to the new rules in place (rebase, reading only the jobs the changed rule can reach)",
  restamped,
);
carried.notes.push(
  `${topName} jobs: ${carried.values[TOP].toFixed(2)} ms (goal ≤ 50 ms at 100k); ${(rebuild.values[TOP] / carried.values[TOP]).toFixed(0)}× less than rebuilding`,
);
const carriedOpcode = carriedSeries(
  "jobfilter: a change to an opcode rule's predicate before the jobs' rule, carried (only the jobs with the rule's OP_ID read)",
  opcodeChanged,
);

/** A queue's tables holding the first n jobs running, with their counts stored as the queue keeps them. */
function queueWith(n: number): MemoryQueueTables {
  const tables = new MemoryQueueTables();
  for (const r of rules) tables.putRule(r);
  const now = 1_700_000_000_000;
  for (const j of many.slice(0, n)) {
    tables.insertJob(
      {
        id: j.id,
        job: j,
        priority: 0,
        state: "running",
        action: "ACCEPT",
        rule: null,
        lease_id: "l",
        lease_expires: now + 600_000,
      },
      now,
    );
  }
  RunningCounts.rebuild(buildFilterSet(tables.rules()), tables.shares, many.slice(0, n));
  return tables;
}
const queues = new Map(CHANGE.map((n) => [n, queueWith(n)]));
const reloadCounted = measureSeries(
  "jobfilter: an object reload with 1,000 rules and N jobs running, the rules built and the counts counted from the running rows (former path)",
  CHANGE,
  (n) => {
    const tables = queues.get(n)!;
    return {
      run: () =>
        RunningCounts.of(
          buildFilterSet(tables.rules()),
          tables.running().map((r) => r.job),
        ),
    };
  },
  { unit: "ms", rounds: 1, ms: 1 },
);
const reloadRestored = measureSeries(
  "jobfilter: the same, the rules built and the counts restored from the store kept with the jobs",
  CHANGE,
  (n) => {
    const tables = queues.get(n)!;
    const want = JSON.stringify(RunningCounts.of(before, many.slice(0, n)).snapshot());
    const restore = () => RunningCounts.restore(buildFilterSet(tables.rules()), tables.shares);
    if (JSON.stringify(restore()?.snapshot()) !== want)
      throw new Error("restored counts differ from a rebuild");
    return { run: restore };
  },
  { unit: "ms", rounds: 5, ms: 20 },
);
reloadRestored.notes.push(
  `${topName} jobs: ${reloadRestored.values[TOP].toFixed(1)} ms (goal ≤ 50 ms at 100k); ${(reloadCounted.values[TOP] / reloadRestored.values[TOP]).toFixed(0)}× less than counting`,
);
report(rebuild, carried, carriedOpcode, reloadCounted, reloadRestored);
