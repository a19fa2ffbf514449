import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ExactJson } from "../common/exact-json.js";
import { buildFilterSet, type FilterSet } from "./filter-set.js";
import { RunningCounts } from "./running-counts.js";
import { MemoryShares } from "./running-shares.js";
import type { FilterRule, Job } from "./types.js";

/** A fixed seed: a failure names the same case on every run. */
const SEED = 24;

const uuid = (u: number) => `00000000-0000-4000-8000-${u.toString(16).padStart(12, "0")}`;

/** Opcode expressions weighted towards the shapes that move most jobs: `!=` on a field, regexes with no literal. */
const expr: fc.Arbitrary<ExactJson> = fc.oneof(
  fc
    .tuple(fc.constantFrom("name", "size", "tags"), fc.constantFrom<ExactJson>("a", "b", 1, 2))
    .map(([f, v]) => ["!=", f, v] as ExactJson),
  fc.constantFrom<ExactJson>(
    ["=~", "name", "[ab]"],
    ["=~", "name", "(a|b)$"],
    ["=~", "name", "."],
    ["!", ["=~", "name", "[b-z]"]],
    ["==", "name", "a"],
    ["=[]", "tags", "a"],
    ["!=", "OP_ID", "A"],
    ["==", "OP_ID", "B"],
    [">", "size", 1],
    ["?", "force"],
    ["|", ["!=", "name", "a"], ["==", "size", 2]],
  ),
);
const predicates: fc.Arbitrary<FilterRule["predicates"]> = fc.oneof(
  { weight: 4, arbitrary: expr.map((e): FilterRule["predicates"] => [["opcode", e]]) },
  fc.constantFrom<FilterRule["predicates"]>(
    [],
    [["jobid", [">", "id", 20]]],
    [["reason", ["=~", "reason", "[xy]"]]],
  ),
);
const rule = fc
  .tuple(
    fc.integer({ min: 0, max: 7 }),
    predicates,
    fc.constantFrom<FilterRule["action"]>("ACCEPT", "REJECT", "CONTINUE", ["RATE_LIMIT", 2]),
    fc.integer({ min: 0, max: 3 }),
  )
  .map(([u, p, action, priority]): FilterRule => ({
    uuid: uuid(u),
    watermark: 0,
    priority,
    predicates: p,
    action,
    reason_trail: [],
  }));

const opcode = fc.record({
  OP_ID: fc.constantFrom<ExactJson>("A", "B", 1),
  force: fc.boolean(),
  size: fc.integer({ min: 0, max: 3 }),
  name: fc.constantFrom<ExactJson>("a", "b", "ab", "z", 1, null, ["a"]),
  tags: fc.constantFrom<ExactJson>([], ["a"], ["b", "a"], "a", 1),
  reason: fc.constantFrom<ExactJson>([], [["src", "x", 1]], [["src", "plain", 1]]),
});
/** A job body, its id given when it starts (an id that ended may start again as another job). */
const body = fc.array(opcode, { minLength: 1, maxLength: 2 });

/**
 * One step of a series: a rule put in place of its uuid's, back to the rule
 * set of an earlier step (`back`: how many steps back), jobs ending and
 * starting (`churn`: which ids end; each ended id starts again with another
 * body), or the object restarting (`reload`: the next change is carried by
 * counts restored from the store, which hold what the store saved and
 * nothing the old counts held in memory).
 */
const step = fc.oneof(
  { weight: 2, arbitrary: fc.constant({ reload: true as const }) },
  { weight: 3, arbitrary: rule.map((r) => ({ put: r })) },
  { weight: 3, arbitrary: fc.nat({ max: 5 }).map((back) => ({ back })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.nat(), fc.array(body, { minLength: 8, maxLength: 8 }))
      .map(([churn, bodies]) => ({ churn, bodies })),
  },
);

describe("RunningCounts.rebase from the rules jobs had before (changing a rule back)", () => {
  it("counts as a recount after every step of random rule changes, changes back to earlier rule sets, and jobs ending and starting again under the same ids", () => {
    fc.assert(
      fc.property(
        fc.array(body, { minLength: 1, maxLength: 24 }),
        fc.array(rule, { maxLength: 5 }),
        fc.array(step, { minLength: 1, maxLength: 14 }),
        (bodies, first, steps) => {
          let live: Job[] = bodies.map((opcodes, id) => ({ id, opcodes }) as Job);
          let rules = [...new Map(first.map((r) => [r.uuid, r])).values()];
          const store = new MemoryShares();
          let counts = RunningCounts.rebuild(buildFilterSet(rules), store, live);
          const history: FilterRule[][] = [rules];
          let reload = false;
          for (const s of steps) {
            if ("reload" in s) {
              reload = true;
              continue;
            }
            if ("put" in s) rules = [...rules.filter((r) => r.uuid !== s.put.uuid), s.put];
            else if ("back" in s) rules = history[Math.max(0, history.length - 1 - s.back)];
            else {
              const ending = live.filter((j) => (s.churn >> j.id) % 2 === 1);
              for (const j of ending) counts.end(j.id);
              const again = ending.slice(0, 8).map((j, i) => ({ id: j.id, opcodes: s.bodies[i] }) as Job);
              for (const j of again) counts.start(j);
              live = [...live.filter((j) => !ending.includes(j)), ...again];
              expect(counts.snapshot()).toEqual(RunningCounts.of(counts.set, live).snapshot());
              continue;
            }
            // each change to a set built afresh, as a PUT builds one
            const set = buildFilterSet(rules);
            if (reload) counts = RunningCounts.restore(set, store)!;
            else counts.rebase(set);
            reload = false;
            history.push(rules);
            expect(counts.snapshot()).toEqual(RunningCounts.of(set, live).snapshot());
          }
        },
      ),
      { numRuns: 500, seed: SEED },
    );
  }, 120_000);

  /** Counts each chain rule's matches of a set (its `matches` wrapped). */
  function counted(set: FilterSet): { set: FilterSet; calls: () => number } {
    let n = 0;
    for (const r of set.chain) {
      const m = r.matches;
      (r as { matches: typeof m }).matches = (j) => (n++, m(j));
    }
    return { set, calls: () => n };
  }

  it("matches a job moved by a `!=` rule against no rule when that rule is changed back, and against the rules added since otherwise", () => {
    // 40 rules no job matches, then the rule every job is counted under
    const rules: FilterRule[] = Array.from({ length: 41 }, (_, i) => ({
      uuid: uuid(i),
      watermark: 0,
      priority: i,
      predicates: [["opcode", i === 40 ? ["==", "OP_ID", "A"] : ["==", "size", 100 + i]]],
      action: "ACCEPT",
      reason_trail: [],
    }));
    const running: Job[] = Array.from({ length: 200 }, (_, id) => ({
      id,
      opcodes: [{ OP_ID: "A", name: `n${id}`, size: id % 3 }],
    }));
    const put = (at: number, predicates: FilterRule["predicates"]) =>
      rules.map((r, i) => (i === at ? { ...r, predicates } : r));
    const counts = RunningCounts.of(buildFilterSet(rules), running);
    // rule 10 now reaches every job but n7: 199 jobs move to it
    counts.rebase(buildFilterSet(put(10, [["opcode", ["!=", "name", "n7"]]])));
    expect(counts.slotsOf(uuid(10))).toBe(199);
    // changed back: each of the 199 was under rule 40 before, and nothing before rule 40 changed since
    const back = counted(buildFilterSet(rules));
    counts.rebase(back.set);
    expect(counts.snapshot()).toEqual(RunningCounts.of(buildFilterSet(rules), running).snapshot());
    expect(back.calls()).toBe(0);
    // `!=` again, then a third predicate: each job is matched against the one rule added since the set it was counted for before
    counts.rebase(buildFilterSet(put(10, [["opcode", ["!=", "name", "n7"]]])));
    const third = counted(buildFilterSet(put(10, [["opcode", ["==", "size", 1]]])));
    counts.rebase(third.set);
    expect(counts.snapshot()).toEqual(
      RunningCounts.of(buildFilterSet(put(10, [["opcode", ["==", "size", 1]]])), running).snapshot(),
    );
    expect(counts.slotsOf(uuid(10))).toBe(67);
    // the 199 moved jobs once each (rule 10 only; rule 40 is theirs before); n7 is read through the reach, by the size index
    expect(third.calls()).toBeLessThanOrEqual(200);
  });

  it("remembers the rules moved jobs had in the store: counts restored after a change (the object restarting) change back without matching them", () => {
    const rules: FilterRule[] = Array.from({ length: 41 }, (_, i) => ({
      uuid: uuid(i),
      watermark: 0,
      priority: i,
      predicates: [["opcode", i === 40 ? ["==", "OP_ID", "A"] : ["==", "size", 100 + i]]],
      action: "ACCEPT",
      reason_trail: [],
    }));
    const running: Job[] = Array.from({ length: 200 }, (_, id) => ({
      id,
      opcodes: [{ OP_ID: "A", name: `n${id}`, size: id % 3 }],
    }));
    const put = (at: number, predicates: FilterRule["predicates"]) =>
      rules.map((r, i) => (i === at ? { ...r, predicates } : r));
    const neq = put(10, [["opcode", ["!=", "name", "n7"]]]);
    const store = new MemoryShares();
    RunningCounts.rebuild(buildFilterSet(rules), store, running).rebase(buildFilterSet(neq));
    // restored for the original rules from counts saved for `!=` (the change back the old object did not live to carry)
    const back = counted(buildFilterSet(rules));
    let counts = RunningCounts.restore(back.set, store)!;
    expect(counts.snapshot()).toEqual(RunningCounts.of(buildFilterSet(rules), running).snapshot());
    expect(back.calls()).toBe(0);
    // changed again, restarted, then a third predicate: only rule 10 (added since the saved earlier set) is matched, once per moved job
    counts.rebase(buildFilterSet(neq));
    const third = counted(buildFilterSet(put(10, [["opcode", ["==", "size", 1]]])));
    counts = RunningCounts.restore(third.set, store)!;
    expect(counts.snapshot()).toEqual(
      RunningCounts.of(buildFilterSet(put(10, [["opcode", ["==", "size", 1]]])), running).snapshot(),
    );
    expect(third.calls()).toBeLessThanOrEqual(200);
    // a job that ended and started again under the same id is another job: nothing remembered for it
    counts.end(3);
    counts.start({ id: 3, opcodes: [{ OP_ID: "A", name: "n7", size: 1 }] });
    counts = RunningCounts.restore(buildFilterSet(rules), store)!;
    const now = [
      ...running.filter((j) => j.id !== 3),
      { id: 3, opcodes: [{ OP_ID: "A", name: "n7", size: 1 }] } as Job,
    ];
    expect(counts.snapshot()).toEqual(RunningCounts.of(buildFilterSet(rules), now).snapshot());
  });
});
