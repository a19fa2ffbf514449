import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildFilterSet } from "./filter-set.js";
import { RunningCounts } from "./running-counts.js";
import { MemoryShares } from "./running-shares.js";
import type { FilterAction, FilterRule, Job } from "./types.js";

const action: fc.Arbitrary<FilterAction> = fc.oneof(
  fc.constantFrom<FilterAction>("ACCEPT", "PAUSE", "REJECT", "CONTINUE"),
  fc.integer({ min: 0, max: 3 }).map((n): FilterAction => ["RATE_LIMIT", n]),
);
const predicates = fc.constantFrom<FilterRule["predicates"]>(
  [],
  [["opcode", ["==", "OP_ID", "A"]]],
  [["opcode", ["==", "OP_ID", "B"]]],
  [["jobid", ["<", "id", 5]]],
  [["jobid", [">", "id", "watermark"]]],
  [["reason", ["=~", "reason", "^urgent"]]],
  [["opcode", ["|", ["==", "OP_ID", "A"], ["?", "force"]]]],
);
/** A rule body drawn from a small pool of uuids, so a change can add, replace or keep a rule. */
const rule = fc.tuple(
  fc.integer({ min: 0, max: 7 }),
  predicates,
  action,
  fc.integer({ min: 0, max: 3 }),
  fc.integer({ min: 0, max: 2 }),
);
const rules = fc.array(rule, { maxLength: 8 }).map((rs) => {
  const byUuid = new Map<string, FilterRule>();
  for (const [u, p, a, priority, watermark] of rs) {
    const uuid = `00000000-0000-4000-8000-${u.toString(16).padStart(12, "0")}`;
    byUuid.set(uuid, { uuid, watermark, priority, predicates: p, action: a, reason_trail: [] });
  }
  return [...byUuid.values()];
});
const reason = fc.constantFrom("urgent fix", "rate-limit:1:x", "rate-limit:2:x", "plain");
const jobs: fc.Arbitrary<Job[]> = fc
  .array(fc.tuple(fc.constantFrom("A", "B", "C"), fc.boolean(), fc.array(reason, { maxLength: 2 })), {
    maxLength: 12,
  })
  .map((js) =>
    js.map(([op, force, rs], id) => ({
      id,
      opcodes: [{ OP_ID: op, force, reason: rs.map((r) => ["src", r, 1]) }],
    })),
  );

describe("RunningCounts.rebase", () => {
  it("counts as a rebuild for the new rules would, through a series of rule changes", () => {
    fc.assert(
      fc.property(
        jobs,
        fc.array(fc.tuple(rules, fc.nat()), { minLength: 1, maxLength: 4 }),
        (running, changes) => {
          const store = new MemoryShares();
          let counts = RunningCounts.rebuild(buildFilterSet([]), store, running);
          let current: FilterRule[] = [];
          for (const [edit, keep] of changes) {
            // keep some of the current rules as they are (same objects), replace or add the edited ones
            const kept = current.filter(
              (r, i) => (keep >> i) % 2 === 1 && !edit.some((e) => e.uuid === r.uuid),
            );
            current = [...kept, ...edit];
            const set = buildFilterSet(current);
            counts = counts.rebase(set);
            expect(counts.snapshot()).toEqual(RunningCounts.of(set, running).snapshot());
            // what the store saved restores the same counts (an object starting again)
            expect(RunningCounts.restore(set, store)?.snapshot()).toEqual(counts.snapshot());
          }
          // an object starting again with rules the saved counts were not carried to: carried from the saved rules
          const other = buildFilterSet([
            ...current.slice(1),
            {
              uuid: "00000000-0000-4000-8000-0000000000ff",
              watermark: 0,
              priority: 0,
              predicates: [["opcode", ["==", "OP_ID", "C"]]],
              action: "ACCEPT",
              reason_trail: [],
            },
          ]);
          expect(RunningCounts.restore(other, store)?.snapshot()).toEqual(
            RunningCounts.of(other, running).snapshot(),
          );
          counts = RunningCounts.restore(counts.set, store)!;
          expect(counts.snapshot()).toEqual(RunningCounts.of(counts.set, running).snapshot());
          // jobs ending after a rebase take away what they hold under the new rules
          for (const j of running.slice(0, running.length >> 1)) counts.end(j.id);
          expect(counts.snapshot()).toEqual(
            RunningCounts.of(counts.set, running.slice(running.length >> 1)).snapshot(),
          );
        },
      ),
      { numRuns: 500 },
    );
  }, 120_000);

  it("moves no job when a rule changes only what decides nothing about matching (action, trail, an unread watermark)", () => {
    const r = (i: number, over: Partial<FilterRule> = {}): FilterRule => ({
      uuid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
      watermark: 0,
      priority: i,
      predicates: [["opcode", ["==", "OP_ID", i % 2 === 0 ? "A" : "B"]]],
      action: "ACCEPT",
      reason_trail: [],
      ...over,
    });
    const running: Job[] = Array.from({ length: 40 }, (_, id) => ({
      id,
      opcodes: [{ OP_ID: id % 3 === 0 ? "A" : "B" }],
    }));
    const before = buildFilterSet([r(0), r(1), r(2)]);
    const after = buildFilterSet([
      r(0),
      r(1, { action: ["RATE_LIMIT", 9], watermark: 7, reason_trail: [["x", "y", 1]] }),
      r(2),
    ]);
    const store = new MemoryShares();
    const counts = RunningCounts.rebuild(before, store, running);
    let read = 0;
    const each = store.eachHolder.bind(store);
    store.eachHolder = (rules, withJobs, visit) =>
      each(rules, withJobs, (h) => {
        read++;
        visit(h);
      });
    counts.rebase(after);
    expect(read).toBe(0);
    expect(counts.snapshot()).toEqual(RunningCounts.of(after, running).snapshot());
  });
});
