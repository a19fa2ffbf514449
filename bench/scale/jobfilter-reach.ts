/**
 * Scale series: a rule change and an object reload with 10k / 100k jobs
 * running, for each kind of rule whose reach the job-id and OP_ID indexes
 * cannot prove (reason predicates, `OP_ID !=`, regexes, field comparisons,
 * and/or/not combinations). The queue is varied (three opcodes, instance
 * names, tags, memory sizes, reason trails), so each change moves some jobs.
 * A change replaces one rule in the middle of a 1,000-rule chain
 * (`rebase`, back and forth between the two rule sets); "own rule" changes
 * the rule 90% of the running jobs are counted under. A reload is
 * `RunningCounts.restore` from a store counted for the other rule set (the
 * change the object did not live to carry through), and with the same rules.
 *
 * `JOBFILTER_BEFORE=<dir>` (a `src` directory of another tree, e.g. one
 * unpacked with `git archive <commit> src`) measures that tree's engine too,
 * in the same run, each row printed for both; `JOBFILTER_REACH_MAX=10000`
 * leaves out the 100k size.
 */
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import type * as Engine from "../../src/engines/jobfilter/index.js";
import type { FilterRule, Job } from "../../src/engines/jobfilter/index.js";
import { chain } from "../fixtures.js";
import { measureSeries, report, type SeriesResult } from "./series.js";

const SIZES = [10_000, 100_000].filter((n) => n <= Number(process.env.JOBFILTER_REACH_MAX ?? Infinity));

/** A running job of a varied queue: 90% replace-disks, 9% migrate, 1% evacuate; names, tags, memory and reasons vary with the id. */
export function variedJob(id: number): Job {
  const r = id % 100;
  const opId = r === 0 ? "OP_NODE_EVACUATE" : r < 10 ? "OP_INSTANCE_MIGRATE" : "OP_INSTANCE_REPLACE_DISKS";
  const why = id % 200 === 0 ? `maintenance ticket ${id}` : id % 3 === 0 ? "rate-limit:500:disks" : "replace-disks";
  return {
    id,
    opcodes: [
      {
        OP_ID: opId,
        instance_name: `${id % 7 === 0 ? "db" : "web"}${id}.example.com`,
        force: id % 3 === 0,
        tags: ["web", `team-${id % 50}`],
        beparams: { memory: 1024 * (1 + (id % 64)) },
        reason: [["gnt:client:gnt-instance", why, 1_700_000_000_000_000_000]],
      },
    ],
  };
}

/** The rule kinds measured: the predicates put in place of the middle rule's. */
export const KINDS: readonly (readonly [string, FilterRule["predicates"]])[] = [
  ["reason =~ (literal prefix)", [["reason", ["=~", "reason", "^maintenance ticket 1"]]]],
  ["reason source ==", [["reason", ["==", "source", "gnt:watcher"]]]],
  ["OP_ID !=", [["opcode", ["!=", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"]]]],
  ["regex, literal prefix", [["opcode", ["=~", "instance_name", "^db7"]]]],
  ["regex, no literal", [["opcode", ["=~", "instance_name", "[0-9]7\\.ex(a|b)mple"]]]],
  ["field >", [["opcode", [">", "beparams.memory", 60_000]]]],
  ["list =[]", [["opcode", ["=[]", "tags", "team-7"]]]],
  ["and/not with ?", [["opcode", ["&", ["?", "force"], ["!", [">", "beparams.memory", 2048]]]]]],
  [
    "or/and/not, two predicates",
    [
      ["opcode", ["|", ["=~", "instance_name", "^db7"], ["&", [">", "beparams.memory", 60_000], ["!", ["=[]", "tags", "team-3"]]]]],
      ["reason", ["!", ["=~", "source", "^gnt:watcher"]]],
    ],
  ],
];

const rules = chain(1_000);
const MIDDLE = 500;
const OWN = rules.length - 1;
const edited = (at: number, predicates: FilterRule["predicates"]) =>
  rules.map((r, i) => (i === at ? { ...r, predicates } : r));
const changes: [string, FilterRule[]][] = [
  ...KINDS.map(([name, p]): [string, FilterRule[]] => [name, edited(MIDDLE, p)]),
  ["own rule (90% of jobs) narrowed", edited(OWN, [["opcode", ["&", ["==", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"], ["!", ["?", "force"]]]]])],
];
const many = Array.from({ length: SIZES[SIZES.length - 1] }, (_, i) => variedJob(1_000 + i));

/** Rule sets built in advance, alternating; each change goes to a set built afresh, as a PUT builds one. */
const POOL = 16;

function seriesFor(label: string, E: typeof Engine): SeriesResult[] {
  const out: SeriesResult[] = [];
  const check = (got: unknown, set: Engine.FilterSet, jobs: readonly Job[], what: string) => {
    if (JSON.stringify(got) !== JSON.stringify(E.RunningCounts.of(set, jobs).snapshot()))
      throw new Error(`${label} ${what}: differs from a recount`);
  };
  for (const [name, toRules] of changes) {
    out.push(
      measureSeries(
        `jobfilter reach [${label}]: rule change, ${name}`,
        SIZES,
        (n) => {
          const jobs = many.slice(0, n);
          const counts = E.RunningCounts.of(E.buildFilterSet(rules), jobs);
          const to = E.buildFilterSet(toRules);
          check(counts.rebase(to).snapshot(), to, jobs, name);
          const pool = Array.from({ length: POOL }, (_, i) => E.buildFilterSet(i % 2 === 0 ? rules : toRules));
          let next = 0;
          return { run: () => counts.rebase(pool[next++ % POOL]) };
        },
        { unit: "ms", rounds: 3, ms: 1 },
      ),
    );
    out.push(
      measureSeries(
        `jobfilter reach [${label}]: reload after an uncarried change, ${name}`,
        SIZES,
        (n) => {
          const jobs = many.slice(0, n);
          const store = new E.MemoryShares();
          E.RunningCounts.rebuild(E.buildFilterSet(rules), store, jobs);
          const to = E.buildFilterSet(toRules);
          check(E.RunningCounts.restore(to, store)?.snapshot(), to, jobs, `${name} reload`);
          let next = 0;
          // each reload builds its rules, as an object that starts again does
          return { run: () => E.RunningCounts.restore(E.buildFilterSet(next++ % 2 === 0 ? rules : toRules), store) };
        },
        { unit: "ms", rounds: 3, ms: 1 },
      ),
    );
  }
  out.push(
    measureSeries(
      `jobfilter reach [${label}]: reload, same rules`,
      SIZES,
      (n) => {
        const store = new E.MemoryShares();
        E.RunningCounts.rebuild(E.buildFilterSet(rules), store, many.slice(0, n));
        return { run: () => E.RunningCounts.restore(E.buildFilterSet(rules), store) };
      },
      { unit: "ms", rounds: 3, ms: 1 },
    ),
  );
  return out;
}

if (process.env.JOBFILTER_REACH_PROBE === undefined) {
const only = process.env.JOBFILTER_REACH_ONLY;
const trees: [string, string][] = [["after", resolve(import.meta.dirname, "../../src")]];
if (process.env.JOBFILTER_BEFORE) trees.unshift(["before", resolve(process.env.JOBFILTER_BEFORE)]);
const results: SeriesResult[] = [];
for (const [label, root] of trees) {
  const E = (await import(pathToFileURL(`${root}/engines/jobfilter/index.ts`).href)) as typeof Engine;
  for (const r of seriesFor(label, E)) if (only === undefined || r.name.includes(only)) results.push(r);
}
report(...results);
}
