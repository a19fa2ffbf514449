import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExactJson } from "../common/exact-json.js";
import { prepareJob } from "./evaluate.js";
import { buildFilterSet, ruleReach } from "./filter-set.js";
import { anyOf, factsOf, fieldKind, inRanges, isEmpty, valuesAt } from "./job-reach.js";
import { RunningCounts } from "./running-counts.js";
import { reachFilter } from "./reach-filter.js";
import { MemoryShares, type Reached } from "./running-shares.js";
import type { FilterRule, Job } from "./types.js";

/** A fixed seed: a failure names the same case on every run. */
const SEED = 31;

const idBound = fc.oneof(
  fc.integer({ min: -2, max: 14 }),
  fc.constant("watermark"),
  fc.bigInt({ min: -3n, max: 14n }),
  fc.constant(2n ** 70n),
  fc.constant(-(2n ** 70n)),
);
const idLeaf: fc.Arbitrary<ExactJson> = fc.oneof(
  fc
    .tuple(fc.constantFrom("<", ">", "<=", ">=", "==", "=", "!="), idBound)
    .map(([op, v]) => [op, "id", v] as ExactJson),
  // leaves a jobid predicate cannot evaluate (an error, which is neither true nor false)
  fc.constantFrom<ExactJson>(["==", "other", 1], ["?", "id"], ["<", "id", "name"], ["=~", "id", "1"]),
);
const opLeaf: fc.Arbitrary<ExactJson> = fc.oneof(
  fc
    .tuple(fc.constantFrom("==", "=", "!="), fc.constantFrom("A", "B", "C"))
    .map(([op, v]) => [op, "OP_ID", v] as ExactJson),
  fc.constantFrom<ExactJson>(
    ["?", "force"],
    ["==", "OP_ID", 1],
    ["=~", "OP_ID", "^A"],
    ["<", "OP_ID", "B"],
    ["==", "size", 3],
    [">", "size", 2],
    ["!=", "OP_ID", 1],
    ["=~", "OP_ID", "B$"],
    [">=", "OP_ID", "B"],
    ["?", "OP_ID"],
    ["=[]", "OP_ID", "A"],
  ),
  // other fields' equality and list membership: indexed by value
  fc
    .tuple(
      fc.constantFrom("==", "=", "!="),
      fc.constantFrom("name", "be.mem", "tags", "size"),
      fc.constantFrom<ExactJson>("a", "b", 1, 2, 2n),
    )
    .map(([op, f, v]) => [op, f, v] as ExactJson),
  fc
    .tuple(fc.constantFrom("tags", "name", "be.mem"), fc.constantFrom<ExactJson>("a", "b", 1, 2))
    .map(([f, v]) => ["=[]", f, v] as ExactJson),
  fc.constantFrom<ExactJson>(
    ["=~", "name", "^a"],
    // regexes on other fields: a test of their string values (a list's elements never match)
    ["=~", "tags", "a"],
    ["=~", "be.mem", "^a$"],
    ["&", ["=~", "name", "a|b"], ["=", "size", 2]],
    ["==", "reason", "x"],
    ["==", "dry_run", 1],
    [">", "name", "a"],
    ["?", "name"],
    // one list holding both: the two membership sets must not be intersected
    ["&", ["=[]", "tags", "a"], ["=[]", "tags", "b"]],
  ),
);
const reasonLeaf: fc.Arbitrary<ExactJson> = fc.constantFrom<ExactJson>(
  ["=~", "reason", "^urgent"],
  ["=~", "reason", "fix|plain"],
  ["==", "reason", "plain"],
  ["!=", "reason", "plain"],
  ["<", "reason", "rate"],
  ["==", "source", "src"],
  ["!=", "source", "other"],
  ["=~", "source", "^s"],
  [">", "timestamp", 1],
  ["==", "timestamp", 2],
  ["?", "reason"],
  ["==", "nope", 1],
);

/** Expression trees over `leaf`: `&`, `|` (empty ones included), `!`, and the empty expression. */
function tree(leaf: fc.Arbitrary<ExactJson>): fc.Arbitrary<ExactJson> {
  const { node } = fc.letrec<{ node: ExactJson }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("node"), { maxLength: 3 }).map((xs) => ["&", ...xs] as ExactJson),
      fc.array(tie("node"), { maxLength: 3 }).map((xs) => ["|", ...xs] as ExactJson),
      tie("node").map((x) => ["!", x] as ExactJson),
    ),
  }));
  return fc.oneof(node, fc.constant(null));
}

const predicate: fc.Arbitrary<FilterRule["predicates"][number]> = fc.oneof(
  tree(idLeaf).map((e) => ["jobid", e] as FilterRule["predicates"][number]),
  tree(opLeaf).map((e) => ["opcode", e] as FilterRule["predicates"][number]),
  tree(reasonLeaf).map((e) => ["reason", e] as FilterRule["predicates"][number]),
);
const watermark = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(2n ** 60n));

const opcode = fc.record({
  OP_ID: fc.oneof(fc.constantFrom<ExactJson>("A", "B", "C", 1), fc.constant(undefined)),
  force: fc.boolean(),
  size: fc.integer({ min: 0, max: 5 }),
  name: fc.constantFrom<ExactJson>("a", "b", 1, 2n, ["a"], null, true),
  tags: fc.constantFrom<ExactJson>([], ["a"], ["a", "b"], ["b", "a", "b"], [1, 2], [2, "a"], "a", 1),
  be: fc.constantFrom<ExactJson>({ mem: 1 }, { mem: 2 }, { mem: 2n }, { mem: "a" }, {}, [], 2),
  dry_run: fc.constantFrom<ExactJson>(1, "x"),
  reason: fc.constantFrom<ExactJson>(
    [],
    [["src", "urgent fix", 1]],
    [["src", "rate-limit:2:x", 1]],
    [["other", "plain", 2]],
    [
      ["src", "plain", 1],
      ["other", "urgent", 2],
    ],
    [
      ["src", 5, 1],
      ["other", "urgent"],
    ],
  ),
});
/** Running jobs with distinct ids (0 to 40), each with up to three opcodes, some without a (string) `OP_ID`. */
const jobs: fc.Arbitrary<Job[]> = fc
  .uniqueArray(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.array(opcode, { minLength: 1, maxLength: 3 })), {
    selector: ([id]) => id,
    maxLength: 30,
  })
  .map((js) =>
    js.map(([id, ops]) => ({
      id,
      opcodes: ops.map((o) => {
        const { OP_ID, ...rest } = o;
        return (OP_ID === undefined ? rest : { OP_ID, ...rest }) as Job["opcodes"][number];
      }),
    })),
  );

const uuid = (u: number) => `00000000-0000-4000-8000-${u.toString(16).padStart(12, "0")}`;
const rule = fc
  .tuple(
    fc.integer({ min: 0, max: 7 }),
    fc.array(predicate, { maxLength: 2 }),
    fc.constantFrom<FilterRule["action"]>("ACCEPT", "REJECT", "CONTINUE", ["RATE_LIMIT", 2]),
    fc.integer({ min: 0, max: 3 }),
    watermark,
  )
  .map(([u, predicates, action, priority, w]): FilterRule => ({
    uuid: uuid(u),
    watermark: w,
    priority,
    predicates,
    action,
    reason_trail: [],
  }));

/** Whether a job lies in what the store would read for `reached` whichever of each rule's fact reaches it reads through (`paths` indexed by value). */
function isReached(reached: Reached, job: Job, paths: readonly string[]): boolean {
  const facts = factsOf(job, paths);
  return (
    inRanges(reached.ids, job.id) ||
    reached.facts.some((alts) =>
      alts.every((f) => facts.some(([kind, v]) => f.kind === kind && f.values.has(v))),
    )
  );
}

describe("a rule's reach", () => {
  it("holds every job the rule matches", () => {
    fc.assert(
      fc.property(rule, jobs, (r, running) => {
        const set = buildFilterSet([{ ...r, action: "ACCEPT" }]);
        const compiled = set.rules[0];
        const reached = anyOf([ruleReach(compiled)]);
        // the set lists every field path the reach looks values up in (the paths a store indexes); a value test
        // (a regex) reads through a path only when some other rule has the store index it
        const paths = new Set(set.valued);
        for (const f of ruleReach(compiled).facts) {
          if (!f.kind.startsWith("field:")) continue;
          if (f.values.finite !== null) expect(set.valued).toContain(f.kind.slice(6));
          paths.add(f.kind.slice(6));
        }
        const within = reached === null ? undefined : reachFilter(reached);
        for (const job of running) {
          if (!compiled.matches(prepareJob(job, set.fields))) continue;
          expect(isEmpty(ruleReach(compiled))).toBe(false);
          if (reached !== null) expect(isReached(reached, job, [...paths])).toBe(true);
          // the same reach tested on the job itself (a change reading jobs without an index)
          if (within !== undefined) expect(within(job.id, job)).toBe(true);
        }
      }),
      { numRuns: 3000, seed: SEED },
    );
  }, 60_000);

  it("is narrow for the shapes a store can index: an id range, an OP_ID, a watermark above every job", () => {
    const reach = (predicates: FilterRule["predicates"], w = 100) =>
      ruleReach(
        buildFilterSet([
          { uuid: uuid(1), watermark: w, priority: 0, predicates, action: "ACCEPT", reason_trail: [] },
        ]).rules[0],
      );
    expect(anyOf([reach([["jobid", ["&", [">", "id", "watermark"], ["<", "id", 10]]]])])).toEqual({
      ids: [],
      facts: [],
    });
    expect(anyOf([reach([["jobid", ["|", ["<", "id", 5], [">=", "id", 90]]]])])?.ids).toEqual([
      [-Infinity, 5],
      [90, Infinity],
    ]);
    const finite = (predicates: FilterRule["predicates"]) => {
      const facts = anyOf([reach(predicates)])!.facts.flat();
      return facts.map((f) => [f.kind, f.values.finite === null ? null : [...f.values.finite].sort()]);
    };
    expect(finite([["opcode", ["&", ["=", "OP_ID", "OP_X"], ["?", "force"]]]])).toEqual([["op", ["OP_X"]]]);
    expect(finite([["opcode", ["|", ["=", "OP_ID", "OP_X"], ["=", "OP_ID", "OP_Y"]]]])).toEqual([
      ["op", ["OP_X", "OP_Y"]],
    ]);
    expect(finite([["reason", ["&", ["==", "reason", "r"], ["=~", "source", "^gnt"]]]])).toEqual([
      ["reason", ["r"]],
    ]);
    // a value test, run on each distinct value a store holds
    const tests = (predicates: FilterRule["predicates"], values: string[]) => {
      const [[f]] = anyOf([reach(predicates)])!.facts;
      expect(f.values.finite).toBeNull();
      return [f.kind, values.filter((v) => f.values.has(v))];
    };
    expect(tests([["opcode", ["!=", "OP_ID", "OP_X"]]], ["OP_X", "OP_Y"])).toEqual(["op", ["OP_Y"]]);
    expect(
      tests([["opcode", ["&", ["!", ["==", "OP_ID", "OP_X"]], ["?", "force"]]]], ["OP_X", "OP_Y"]),
    ).toEqual(["op", ["OP_Y"]]);
    expect(tests([["opcode", ["=~", "OP_ID", "^OP_INSTANCE_"]]], ["OP_X", "OP_INSTANCE_A"])).toEqual([
      "op",
      ["OP_INSTANCE_A"],
    ]);
    expect(tests([["reason", ["=~", "reason", "^maint"]]], ["maint 1", "other"])).toEqual([
      "reason",
      ["maint 1"],
    ]);
    expect(tests([["reason", ["!=", "source", "gnt:watcher"]]], ["gnt:watcher", "x"])).toEqual([
      "source",
      ["x"],
    ]);
    // other fields: equality and list membership, by their values' keys
    expect(finite([["opcode", ["=", "instance_name", "web1"]]])).toEqual([
      ["field:instance_name", ["sweb1"]],
    ]);
    expect(
      finite([["opcode", ["|", ["=", "beparams.memory", 1024], ["=", "beparams.memory", "1024"]]]]),
    ).toEqual([["field:beparams.memory", ["n1024", "s1024"]]]);
    expect(finite([["opcode", ["&", ["=", "OP_ID", "OP_X"], ["=[]", "tags", "t"], ["?", "force"]]]])).toEqual(
      [
        ["op", ["OP_X"]],
        ["field:tags", ["lst"]],
      ],
    );
    // two list elements of one opcode: either set, never their (empty) intersection
    expect(finite([["opcode", ["&", ["=[]", "tags", "a"], ["=[]", "tags", "b"]]]])).toEqual([
      ["field:tags", ["lsa"]],
    ]);
    // a hidden common parameter: the predicate never holds
    expect(isEmpty(reach([["opcode", ["=", "dry_run", 1]]]))).toBe(true);
    // a regex on another field: a test of its string values, run on each distinct one a store holds (a list's
    // elements and other values are never matched)
    expect(tests([["opcode", ["=~", "instance_name", "^db7"]]], ["sdb70", "sweb7", "ldb70", "n7"])).toEqual([
      "field:instance_name",
      ["sdb70"],
    ]);
    expect(tests([["opcode", ["&", ["=~", "tags", "x"], ["?", "force"]]]], ["sx", "lsx"])).toEqual([
      "field:tags",
      ["sx"],
    ]);
    expect(finite([["opcode", ["&", ["=~", "instance_name", "x"], ["=", "instance_name", "y"]]]])).toEqual([
      ["field:instance_name", ["sy"]],
    ]);
    // ... read through only where the store indexes the path
    expect(
      anyOf([reach([["opcode", ["=~", "instance_name", "x"]]])], (f) => f.kind !== "field:instance_name"),
    ).toBeNull();
    // nothing to index: any job
    expect(anyOf([reach([["opcode", ["!", ["=~", "instance_name", "x"]]]])])).toBeNull();
    expect(anyOf([reach([["opcode", ["!=", "instance_name", "x"]]])])).toBeNull();
    expect(anyOf([reach([["opcode", ["|", ["=", "instance_name", "x"], ["?", "force"]]]])])).toBeNull();
    // a field path the store does not index is not read through
    expect(
      anyOf([reach([["opcode", ["=", "instance_name", "x"]]])], (f) => f.kind !== "field:instance_name"),
    ).toBeNull();
    expect(anyOf([reach([["opcode", ["|", ["==", "OP_ID", "OP_X"], ["?", "force"]]]])])).toBeNull();
    expect(anyOf([reach([["reason", [">", "timestamp", 5]]])])).toBeNull();
  });
});

describe("RunningCounts.rebase through the indexes", () => {
  it("carries a rule whose two opcode predicates hold on different opcodes of one job", () => {
    // each predicate holds on another opcode: their OP_ID sets must not be intersected (main before this gave none)
    const jobs: Job[] = [{ id: 1, opcodes: [{ OP_ID: "A" }, { OP_ID: "B" }] }];
    const last: FilterRule = {
      uuid: uuid(9),
      watermark: 0,
      priority: 9,
      predicates: [["opcode", ["==", "OP_ID", "A"]]],
      action: "ACCEPT",
      reason_trail: [],
    };
    const both: FilterRule = {
      ...last,
      uuid: uuid(1),
      priority: 1,
      predicates: [
        ["opcode", ["==", "OP_ID", "A"]],
        ["opcode", ["==", "OP_ID", "B"]],
      ],
    };
    const next = buildFilterSet([both, last]);
    const counts = RunningCounts.of(buildFilterSet([last]), jobs).rebase(next);
    expect(counts.snapshot()).toEqual({ rules: { [uuid(1)]: 1 }, buckets: {} });
  });

  it("counts as a recount from scratch after every one of a series of random rule changes", () => {
    fc.assert(
      fc.property(
        jobs,
        fc.array(fc.tuple(fc.array(rule, { maxLength: 4 }), fc.nat()), { minLength: 1, maxLength: 5 }),
        (running, changes) => {
          const store = new MemoryShares();
          let counts = RunningCounts.rebuild(buildFilterSet([]), store, running);
          let current: FilterRule[] = [];
          for (const [edit, keep] of changes) {
            const kept = current.filter(
              (r, i) => (keep >> i) % 2 === 1 && !edit.some((e) => e.uuid === r.uuid),
            );
            const byUuid = new Map([...kept, ...edit].map((r) => [r.uuid, r]));
            current = [...byUuid.values()];
            const set = buildFilterSet(current);
            counts = counts.rebase(set);
            expect(counts.snapshot()).toEqual(RunningCounts.of(set, running).snapshot());
          }
          // jobs ending and starting after the changes keep the counts right
          for (const j of running.slice(0, running.length >> 1)) counts.end(j.id);
          for (const j of running.slice(0, running.length >> 2)) counts.start(j);
          const still = [...running.slice(running.length >> 1), ...running.slice(0, running.length >> 2)];
          expect(counts.snapshot()).toEqual(RunningCounts.of(counts.set, still).snapshot());
        },
      ),
      { numRuns: 600, seed: SEED },
    );
  }, 120_000);

  it("counts as a recount while field paths new to the store fill in slices between rule changes, jobs ending and starting", () => {
    fc.assert(
      fc.property(
        jobs,
        fc.array(fc.tuple(fc.array(rule, { maxLength: 4 }), fc.nat(), fc.nat({ max: 12 }), fc.nat()), {
          minLength: 1,
          maxLength: 6,
        }),
        (running, changes) => {
          const store = new MemoryShares();
          let counts = RunningCounts.rebuild(buildFilterSet([]), store, running);
          let live = [...running];
          let current: FilterRule[] = [];
          for (const [edit, keep, fill, churn] of changes) {
            const kept = current.filter(
              (r, i) => (keep >> i) % 2 === 1 && !edit.some((e) => e.uuid === r.uuid),
            );
            current = [...new Map([...kept, ...edit].map((r) => [r.uuid, r])).values()];
            const set = buildFilterSet(current);
            counts = counts.rebase(set);
            expect(counts.snapshot()).toEqual(RunningCounts.of(set, live).snapshot());
            store.fillIndex(fill);
            // the live jobs whose bit of `churn` is set end, the others not live start again
            const ending = new Set(live.filter((_, i) => (churn >> i) % 2 === 1));
            const starting = running.filter((j) => !live.includes(j) && (churn & 1) === 0);
            for (const j of ending) counts.end(j.id);
            for (const j of starting) counts.start(j);
            live = [...live.filter((j) => !ending.has(j)), ...starting];
            expect(counts.snapshot()).toEqual(RunningCounts.of(set, live).snapshot());
            // a path filled holds exactly the live jobs' values
            const filling = store.fillingPaths();
            for (const path of store.indexedPaths().filter((p) => !filling.includes(p)))
              for (const job of live)
                for (const v of new Set(valuesAt(job, path))) {
                  const read: number[] = [];
                  const values = { finite: new Set([v]), all: false, has: (x: string) => x === v };
                  store.eachReached({ ids: [], facts: [[{ kind: fieldKind(path), values }]] }, true, (h) => {
                    expect(valuesAt(h.job!, path)).toContain(v);
                    read.push(h.id);
                  });
                  expect(read).toContain(job.id);
                }
          }
        },
      ),
      { numRuns: 400, seed: SEED },
    );
  }, 120_000);

  it("reads only the jobs an added rule can reach, not every job after it", () => {
    const r = (i: number, predicates: FilterRule["predicates"], watermark = 100): FilterRule => ({
      uuid: uuid(i),
      watermark,
      priority: i,
      predicates,
      action: ["RATE_LIMIT", 1000],
      reason_trail: [],
    });
    // 3,000 jobs, all under the last rule; two of them run OP_X
    const running: Job[] = Array.from({ length: 3000 }, (_, k) => ({
      id: 1000 + k,
      opcodes: [{ OP_ID: k % 1500 === 7 ? "OP_X" : "OP_A", instance_name: `i${k}`, tags: ["all", `t${k}`] }],
    }));
    const last = r(9, [["opcode", ["=", "OP_ID", "OP_A"]]]);
    const before = buildFilterSet([
      r(1, [["jobid", [">", "id", "watermark"]]], 5000),
      r(2, [["opcode", ["=", "OP_ID", "OP_Y"]]]),
      last,
    ]);
    const store = new MemoryShares();
    const counts = RunningCounts.rebuild(before, store, running);
    let read = 0;
    const reached = store.eachReached.bind(store);
    const holders = store.eachHolder.bind(store);
    store.eachReached = (x, withJobs, visit) => reached(x, withJobs, (h) => (read++, visit(h)));
    store.eachHolder = (x, withJobs, visit) => holders(x, withJobs, (h) => (read++, visit(h)));
    // jobs found by complement: only those handed to be read are read (the others hold the rule, unread)
    const beside = store.eachBeside.bind(store);
    store.eachBeside = (x, co, visit, sure) => beside(x, co, (h) => (read++, visit(h)), sure);
    // PUT re-stamps rule 1's watermark below some running ids: only the ids from it up are read (3990 to 3999)
    const restamped = buildFilterSet([
      r(1, [["jobid", [">", "id", "watermark"]]], 3990),
      r(2, [["opcode", ["=", "OP_ID", "OP_Y"]]]),
      last,
    ]);
    counts.rebase(restamped);
    expect(counts.snapshot()).toEqual(RunningCounts.of(restamped, running).snapshot());
    expect(read).toBe(10);
    // rule 2 changed to OP_X: the two OP_X jobs are read
    read = 0;
    const opx = buildFilterSet([
      r(1, [["jobid", [">", "id", "watermark"]]], 3990),
      r(2, [["opcode", ["=", "OP_ID", "OP_X"]]]),
      last,
    ]);
    counts.rebase(opx);
    expect(counts.snapshot()).toEqual(RunningCounts.of(opx, running).snapshot());
    expect(read).toBe(2);
    // rule 2 changed to test instance names, a path new to the store: no job is read to index it, the rule reads
    // every job not under rule 1 as if it had no reach, and the index fills in slices, then is read through
    const named = (e: ExactJson) =>
      buildFilterSet([r(1, [["jobid", [">", "id", "watermark"]]], 3990), r(2, [["opcode", e]]), last]);
    const changes: [ExactJson, number][] = [
      [["=", "instance_name", "i6"], 3000 - 9],
      [["=", "instance_name", "i7"], 1 + 1],
      [
        ["|", ["=", "instance_name", "i8"], ["=", "instance_name", "i9"], ["=", "instance_name", "nobody"]],
        1 + 2,
      ],
      // OP_A holds 2,998 jobs, the name one: read through the name
      [["&", ["=", "OP_ID", "OP_A"], ["=", "instance_name", "i10"]], 2 + 1],
      [["!", ["!", ["=[]", "tags", "t11"]]], 3000 - 9],
      [["!", ["!", ["=[]", "tags", "t12"]]], 1 + 1],
    ];
    for (const [e, reads] of changes) {
      read = 0;
      const set = named(e);
      counts.rebase(set);
      expect(counts.snapshot()).toEqual(RunningCounts.of(set, running).snapshot());
      expect(read).toBe(reads);
      if (store.fillingPaths().length === 0) continue;
      expect(store.fillingPaths()).toEqual([e === changes[0][0] ? "instance_name" : "tags"]);
      // the jobs running before are indexed 1,000 at a time; the counts do not change
      expect([1, 2, 3, 4].map(() => store.fillIndex(1000))).toEqual([1000, 1000, 1000, 0]);
      expect(store.fillingPaths()).toEqual([]);
      expect(counts.snapshot()).toEqual(RunningCounts.of(set, running).snapshot());
    }
    // the path no rule names any more stays indexed (a rule naming it again reads no job to index it)
    expect(store.indexedPaths()).toEqual(["tags", "instance_name"]);
    // a regex on an indexed field: tested once per distinct name, only the jobs named so are read
    read = 0;
    const pattern = named(["=~", "instance_name", "^i1[23]$"]);
    counts.rebase(pattern);
    expect(counts.snapshot()).toEqual(RunningCounts.of(pattern, running).snapshot());
    // the two named, and the one job under rule 2 before (t12), matched again
    expect(read).toBe(2 + 1);
    counts.rebase(named(["=", "instance_name", "i6"]));
    // `!=` on the indexed field, by complement: every job has a name, so only the one named i12 is read, and the
    // one rule 2 held (i6), matched again as its own (2,991 before: every job not under rule 1)
    read = 0;
    const unequal = named(["!=", "instance_name", "i12"]);
    counts.rebase(unequal);
    expect(counts.snapshot()).toEqual(RunningCounts.of(unequal, running).snapshot());
    expect(read).toBe(1 + 1);
  });

  it("finds the jobs a `!=` (on a field or on `OP_ID`) or a negated regex holds on by complement, reading only those lacking the field, holding no key or the values it may fail on", () => {
    const r = (i: number, predicates: FilterRule["predicates"]): FilterRule => ({
      uuid: uuid(i),
      watermark: 0,
      priority: i,
      predicates,
      action: ["RATE_LIMIT", 1000],
      reason_trail: [],
    });
    // 2,000 jobs under the last rule; some lack the name, hold null, a list, a number, have two opcodes or none
    type Shape = "missing" | "null" | "list" | "number" | "two" | "half" | "none" | "plain";
    const shape = (k: number): Shape =>
      k % 97 === 0
        ? "missing"
        : k % 89 === 0
          ? "null"
          : k % 83 === 0
            ? "list"
            : k % 79 === 0
              ? "number"
              : k % 73 === 0
                ? "two"
                : k % 71 === 0
                  ? "half"
                  : k === 1999
                    ? "none"
                    : "plain";
    const opcodesOf: Record<Shape, (k: number) => Job["opcodes"]> = {
      missing: () => [{ OP_ID: "OP_A" }],
      null: () => [{ OP_ID: "OP_A", name: null }],
      list: (k) => [{ OP_ID: "OP_A", name: [`n${k}`, "n12"] }],
      number: (k) => [{ OP_ID: "OP_A", name: k }],
      two: (k) => [
        { OP_ID: "OP_A", name: "n12" },
        { OP_ID: "OP_B", name: `n${k}` },
      ],
      half: (k): Job["opcodes"] => [{ OP_ID: "OP_A", name: `n${k}` }, { OP_ID: "OP_B" }],
      none: () => [],
      plain: (k) => [{ OP_ID: "OP_A", name: `n${k}` }],
    };
    const running: Job[] = Array.from({ length: 2000 }, (_, k) => ({
      id: 1000 + k,
      opcodes: opcodesOf[shape(k)](k),
    }));
    const last = r(9, [["opcode", ["|", ["=", "OP_ID", "OP_A"], ["=", "OP_ID", "OP_B"]]]]);
    const at = (e: ExactJson) =>
      buildFilterSet([r(1, [["opcode", ["=", "OP_ID", "OP_NONE"]]]), r(2, [["opcode", e]]), last]);
    const store = new MemoryShares();
    let counts = RunningCounts.rebuild(at(["=", "name", "n5"]), store, running);
    let read = 0;
    const holders = store.eachHolder.bind(store);
    const reached = store.eachReached.bind(store);
    const beside = store.eachBeside.bind(store);
    store.eachHolder = (x, withJobs, visit) => holders(x, withJobs, (h) => (read++, visit(h)));
    store.eachReached = (x, withJobs, visit) => reached(x, withJobs, (h) => (read++, visit(h)));
    store.eachBeside = (x, co, visit, sure) => beside(x, co, (h) => (read++, visit(h)), sure);
    // what each change reads besides the job named n5, which the changed rule held (matched again as its own)
    const noKey = (s: Shape) => s === "missing" || s === "null" || s === "half" || s === "none";
    const ends7 = (k: number) => k >= 10 && k % 10 === 7;
    const changes: [ExactJson, (k: number, s: Shape) => boolean][] = [
      // a list or a number is a value `!= "n12"` holds on: unread; a job with another name beside n12 is read
      [["!=", "name", "n12"], (k, s) => noKey(s) || s === "two" || (s === "plain" && k === 12)],
      // a regex with no literal prefix reads through the index: the jobs with a name it holds on
      [["=~", "name", "[0-9]7$"], (k, s) => (s === "plain" || s === "half" || s === "two") && ends7(k)],
      // negated, by complement: the jobs the regex holds on, those with no key, a list or a number (an error)
      [
        ["!", ["=~", "name", "[0-9]7$"]],
        (k, s) => noKey(s) || s === "list" || s === "number" || ((s === "plain" || s === "two") && ends7(k)),
      ],
      [["!=", "name", 158], (k, s) => noKey(s) || k === 158],
      // `OP_ID != "OP_B"`, by complement through the OP_ID index: the jobs with an opcode OP_B, or with no opcode
      [["!=", "OP_ID", "OP_B"], (_k, s) => s === "two" || s === "half" || s === "none"],
      // `OP_ID != "OP_A"` (most jobs' opcode: no complement): the jobs with another OP_ID move unread, the one with no opcode is matched
      [["!=", "OP_ID", "OP_A"], (_k, s) => s === "two" || s === "half" || s === "none"],
    ];
    for (const [e, reads] of changes) {
      for (const there of [e, ["=", "name", "n5"]] as ExactJson[]) {
        read = 0;
        const set = at(there);
        counts = counts.rebase(set);
        expect(counts.snapshot()).toEqual(RunningCounts.of(set, running).snapshot());
        if (there === e)
          expect([e, read]).toEqual([
            e,
            1 + running.filter((j) => reads(j.id - 1000, shape(j.id - 1000))).length,
          ]);
      }
    }
  });
});
