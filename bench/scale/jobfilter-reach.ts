/**
 * Scale series: a rule change and an object reload with 10k / 100k jobs
 * running, for each kind of rule whose reach the job-id and OP_ID indexes
 * cannot prove (reason predicates, `OP_ID !=`, regexes, field comparisons,
 * and/or/not combinations), and the ones the field value index proves
 * (`==` and `=[]` on another opcode field, alone, as a set, beside `OP_ID`),
 * and regexes on a field the store indexes ("on an indexed field": the
 * field put in the store's index before the series). The queue is varied (three opcodes, instance
 * names, tags, memory sizes, reason trails), so each change moves some jobs.
 * A change replaces one rule in the middle of a 1,000-rule chain
 * (`rebase`, back and forth between the two rule sets); "own rule" changes
 * the rule 90% of the running jobs are counted under. A reload is
 * `RunningCounts.restore` from a store counted for the other rule set (the
 * change the object did not live to carry through: the saved rules are
 * parsed and built, then the counts carried), and with the same rules.
 * Rule sets are built before the timing (a reload builds its rules whatever
 * the counts cost). Counts are checked against a recount at 10k. Before a
 * kind's series, the field paths its rule names are indexed in full (a tree
 * whose store fills a new path in slices, `fillIndex`, is filled first), so
 * the series measures a change through the index; the first change naming
 * a path new to the store, and filling one slice of it, are rows of their own.
 *
 * For `!=` and a regex with no literal, the change back is timed on its
 * own too (after an untimed change and change back that index the paths
 * the rule names, filled in full, as before a series) (the medians above time the change there, the change back being
 * the untimed call between two): the worst of a few calls each way, and of
 * reloads carrying the counts back (a reload reads the jobs' earlier rules
 * from the store where the tree saves them there; an older tree's reload
 * remembers nothing, so it matches each moved job against the rules after it).
 *
 * `JOBFILTER_BEFORE=<dir>` (a `src` directory of another tree, e.g. one
 * unpacked with `git archive <commit> src`) measures that tree's engine too,
 * in the same run, each row printed for both; `JOBFILTER_REACH_MAX=10000`
 * leaves out the 100k size; `JOBFILTER_REACH_KINDS=a,b` measures only the
 * kinds whose names contain one of the comma-separated texts.
 */
import { fileURLToPath, pathToFileURL } from "node:url";
import { resolve } from "node:path";
import type * as Engine from "../../src/engines/jobfilter/index.js";
import type { FilterRule, Job } from "../../src/engines/jobfilter/index.js";
import { chain } from "../fixtures.js";
import { collect, cpuMicros, measureSeries, median, report, type SeriesResult } from "./series.js";

const SIZES = [10_000, 100_000].filter((n) => n <= Number(process.env.JOBFILTER_REACH_MAX ?? Infinity));

/** A running job of a varied queue: 90% replace-disks, 9% migrate, 1% evacuate; names, tags, memory and reasons vary with the id. */
export function variedJob(id: number): Job {
  const r = id % 100;
  const opId = r === 0 ? "OP_NODE_EVACUATE" : r < 10 ? "OP_INSTANCE_MIGRATE" : "OP_INSTANCE_REPLACE_DISKS";
  const why =
    id % 200 === 0 ? `maintenance ticket ${id}` : id % 3 === 0 ? "rate-limit:500:disks" : "replace-disks";
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
  ["field == (one instance name)", [["opcode", ["=", "instance_name", "db7007.example.com"]]]],
  [
    "field in a set (| of three ==)",
    [
      [
        "opcode",
        [
          "|",
          ["=", "instance_name", "db7007.example.com"],
          ["=", "instance_name", "web7008.example.com"],
          ["=", "instance_name", "web50001.example.com"],
        ],
      ],
    ],
  ],
  [
    "OP_ID == (90% of jobs) & field ==",
    [
      [
        "opcode",
        ["&", ["=", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"], ["=", "instance_name", "web7011.example.com"]],
      ],
    ],
  ],
  ["field == number (1/64 of jobs)", [["opcode", ["=", "beparams.memory", 4096]]]],
  ["field != (not indexed)", [["opcode", ["!=", "instance_name", "db7007.example.com"]]]],
  // the same regexes once `instance_name` is indexed (some other rule of the object's named it by value)
  ["regex, literal prefix, on an indexed field", [["opcode", ["=~", "instance_name", "^db7"]]]],
  ["regex, no literal, on an indexed field", [["opcode", ["=~", "instance_name", "[0-9]7\\.ex(a|b)mple"]]]],
  ["and/not with ?", [["opcode", ["&", ["?", "force"], ["!", [">", "beparams.memory", 2048]]]]]],
  [
    "or/and/not, two predicates",
    [
      [
        "opcode",
        [
          "|",
          ["=~", "instance_name", "^db7"],
          ["&", [">", "beparams.memory", 60_000], ["!", ["=[]", "tags", "team-3"]]],
        ],
      ],
      ["reason", ["!", ["=~", "source", "^gnt:watcher"]]],
    ],
  ],
];

const rules = chain(1_000);
const MIDDLE = 500;
const OWN = rules.length - 1;
const edited = (at: number, predicates: FilterRule["predicates"]) =>
  rules.map((r, i) => (i === at ? { ...r, predicates } : r));
const KINDS_WANTED = process.env.JOBFILTER_REACH_KINDS?.split(",");
const changes: [string, FilterRule[]][] = (
  [
    ...KINDS.map(([name, p]): [string, FilterRule[]] => [name, edited(MIDDLE, p)]),
    [
      "own rule (90% of jobs) narrowed",
      edited(OWN, [["opcode", ["&", ["==", "OP_ID", "OP_INSTANCE_REPLACE_DISKS"], ["!", ["?", "force"]]]]]),
    ],
  ] as [string, FilterRule[]][]
).filter(([name]) => KINDS_WANTED === undefined || KINDS_WANTED.some((k) => name.includes(k)));
const many = Array.from({ length: SIZES[SIZES.length - 1] }, (_, i) => variedJob(1_000 + i));

/** The jobs one JobQueue alarm indexes at a new field path (`INDEX_FILL_SLICE` in src/state/job-queue.ts). */
const FILL_SLICE = 1000;

/** Fills every path a store indexes in full, when its tree fills new paths in slices (an older tree indexed them in the rule change). */
function fillAll(store: Engine.MemoryShares): void {
  const s = store as Partial<Pick<Engine.MemoryShares, "fillIndex" | "fillingPaths">>;
  if (s.fillIndex !== undefined) while (s.fillingPaths!().length > 0) s.fillIndex(Infinity);
}

/** Rule sets built in advance, alternating; each change goes to a set built afresh, as a PUT builds one (the build is not timed). */
const POOL = 16;

/** Per size, one store counted for `rules` and carried through every series (each series leaves it counted for `rules` again). */
interface Queue {
  store: Engine.MemoryShares;
  counts: Engine.RunningCounts;
  jobs: readonly Job[];
}

function seriesFor(label: string, E: typeof Engine): SeriesResult[] {
  const out: SeriesResult[] = [];
  const base = () => E.buildFilterSet(rules);
  const queues = new Map<number, Queue>(
    SIZES.map((n) => {
      const store = new E.MemoryShares();
      const jobs = many.slice(0, n);
      return [n, { store, counts: E.RunningCounts.rebuild(base(), store, jobs), jobs }];
    }),
  );
  /** Back to the original rules, checked against a recount at the smallest size (a recount at 100k takes seconds). */
  const settle = (q: Queue, what: string) => {
    q.counts = E.RunningCounts.restore(base(), q.store)!;
    if (
      q.jobs.length === SIZES[0] &&
      JSON.stringify(q.counts.snapshot()) !== JSON.stringify(E.RunningCounts.of(base(), q.jobs).snapshot())
    )
      throw new Error(`${label} ${what}: differs from a recount`);
  };
  const pools = (toRules: FilterRule[]) =>
    Array.from({ length: POOL }, (_, i) => E.buildFilterSet(i % 2 === 0 ? toRules : rules));
  for (const [name, toRules] of BACK_ONLY ? [] : changes) {
    out.push(
      measureSeries(
        `jobfilter reach [${label}]: rule change, ${name}`,
        SIZES,
        (n) => {
          const q = queues.get(n)!;
          // the paths the rule names indexed in full before the timing (not timed)
          q.counts.rebase(E.buildFilterSet(toRules));
          if (name.endsWith("on an indexed field"))
            q.store.setIndexedPaths([...new Set([...q.store.indexedPaths(), "instance_name"])]);
          fillAll(q.store);
          q.counts.rebase(E.buildFilterSet(rules));
          const pool = pools(toRules);
          let next = 0;
          return { run: () => q.counts.rebase(pool[next++ % POOL]) };
        },
        { unit: "ms", rounds: 3, ms: 1 },
      ),
    );
    for (const q of queues.values()) settle(q, name);
    out.push(
      measureSeries(
        `jobfilter reach [${label}]: reload after an uncarried change, ${name}`,
        SIZES,
        (n) => {
          const q = queues.get(n)!;
          const pool = pools(toRules);
          let next = 0;
          return { run: () => E.RunningCounts.restore(pool[next++ % POOL], q.store) };
        },
        { unit: "ms", rounds: 3, ms: 1 },
      ),
    );
    for (const q of queues.values()) settle(q, `${name} reload`);
  }
  if ("setIndexedPaths" in queues.get(SIZES[0])!.store && !BACK_ONLY) {
    // `instance_name` dropped from the store's index before each change to a rule naming it (the timed call is always that change)
    const named = edited(MIDDLE, KINDS.find(([name]) => name.startsWith("field =="))![1]);
    const drop = (store: Engine.MemoryShares) =>
      store.setIndexedPaths(store.indexedPaths().filter((p) => p !== "instance_name"));
    out.push(
      measureSeries(
        `jobfilter reach [${label}]: the first rule change naming a field path new to the store (field ==)`,
        SIZES,
        (n) => {
          const q = queues.get(n)!;
          const pool = pools(named);
          let next = 0;
          return {
            run: () => {
              drop(q.store);
              return q.counts.rebase(pool[next++ % POOL]);
            },
          };
        },
        { unit: "ms", rounds: 3, ms: 1 },
      ),
    );
    for (const q of queues.values()) settle(q, "first naming");
    if ("fillIndex" in queues.get(SIZES[0])!.store)
      out.push(
        measureSeries(
          `jobfilter reach [${label}]: filling a new field path's index, one slice of ${FILL_SLICE} jobs (the JobQueue alarm's)`,
          SIZES,
          (n) => {
            const store = queues.get(n)!.store;
            return {
              run: () => {
                if (store.fillingPaths().length === 0) {
                  drop(store);
                  store.setIndexedPaths([...store.indexedPaths(), "instance_name"]);
                }
                return store.fillIndex(FILL_SLICE);
              },
            };
          },
          { unit: "ms", rounds: 3, ms: 1 },
        ),
      );
    for (const q of queues.values()) fillAll(q.store);
  }
  // a rule changed and changed back, each direction timed on its own: the worst call, not the median (which the forward calls set)
  for (const [name, toRules] of changes.filter(([n]) =>
    BACK_KINDS.some((k) => n === k || n.startsWith(`${k} (`)),
  )) {
    const worst: number[][] = [[], [], []];
    const medians: string[] = [];
    for (const n of SIZES) {
      const q = queues.get(n)!;
      const [fwd, back, reload] = backAndForth(
        q,
        () => E.buildFilterSet(toRules),
        () => E.buildFilterSet(rules),
        E,
      );
      worst[0].push(Math.max(...fwd));
      worst[1].push(Math.max(...back));
      worst[2].push(Math.max(...reload));
      medians.push(
        `${n / 1000}k: medians ${median(fwd).toFixed(1)} / ${median(back).toFixed(1)} / ${median(reload).toFixed(1)} ms`,
      );
      settle(q, `${name} back and forth`);
    }
    const row = (what: string, values: number[]): SeriesResult => ({
      name: `jobfilter reach [${label}]: ${what}, ${name} (worst of ${BACK_ROUNDS})`,
      unit: "ms",
      sizes: SIZES,
      values,
      notes: [`changed, changed back, reload changing back: ${medians.join("; ")}`],
    });
    out.push(
      row("rule change", worst[0]),
      row("rule change going back", worst[1]),
      row("reload after an uncarried change going back", worst[2]),
    );
  }
  out.push(
    measureSeries(
      `jobfilter reach [${label}]: reload, same rules`,
      SIZES,
      (n) => {
        const q = queues.get(n)!;
        const pool = pools(rules);
        let next = 0;
        return { run: () => E.RunningCounts.restore(pool[next++ % POOL], q.store) };
      },
      { unit: "ms", rounds: 3, ms: 1 },
    ),
  );
  return out;
}

/** The kinds whose change back is timed on its own (`JOBFILTER_REACH_BACK=a,b` to choose others: a kind's name, or its start before ` (`), and how many times. */
const BACK_KINDS = process.env.JOBFILTER_REACH_BACK?.split(",") ?? [
  "OP_ID !=",
  "regex, no literal",
  "field !=",
];
const BACK_ROUNDS = 3;
/** `JOBFILTER_REACH_BACK_ONLY=1`: only the rows of a change and its change back (and the reload with the same rules). */
const BACK_ONLY = process.env.JOBFILTER_REACH_BACK_ONLY === "1";

/**
 * CPU ms of `BACK_ROUNDS` rule changes to a set `to` builds and as many
 * back to `from`'s (each to a set built afresh, not timed, after a full
 * collection), then of as many reloads carrying the counts back from `to`'s
 * (a new `RunningCounts` restored from the store, which holds nothing of the
 * changes before; the change to `to` before each is not timed).
 */
function backAndForth(
  q: Queue,
  to: () => Engine.FilterSet,
  from: () => Engine.FilterSet,
  E: typeof Engine,
): number[][] {
  const timed = (run: () => unknown) => {
    collect();
    const t = cpuMicros();
    run();
    return (cpuMicros() - t) / 1000;
  };
  const fwd: number[] = [];
  const back: number[] = [];
  const reload: number[] = [];
  // the paths the rule names indexed in full before the timing, as before a series (not timed)
  q.counts.rebase(to());
  fillAll(q.store);
  q.counts.rebase(from());
  for (let r = 0; r < BACK_ROUNDS; r++) {
    const [a, b] = [to(), from()];
    fwd.push(timed(() => q.counts.rebase(a)));
    back.push(timed(() => q.counts.rebase(b)));
  }
  for (let r = 0; r < BACK_ROUNDS; r++) {
    const [a, b] = [to(), from()];
    q.counts.rebase(a);
    reload.push(timed(() => (q.counts = E.RunningCounts.restore(b, q.store)!)));
  }
  return [fwd, back, reload];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
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
