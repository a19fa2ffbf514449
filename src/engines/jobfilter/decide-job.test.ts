import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildFilterSet } from "./filter-set.js";
import { RunningCounts, decideCounted } from "./running-counts.js";
import { decideJob, schedulePass } from "./schedule.js";
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
  [["reason", ["=~", "reason", "^urgent"]]],
  [["opcode", ["|", ["==", "OP_ID", "A"], ["?", "force"]]]],
);
const rules = fc
  .array(fc.tuple(predicates, action, fc.integer({ min: 0, max: 3 })), { maxLength: 6 })
  .map((rs) =>
    rs.map(([p, a, priority], i): FilterRule => ({
      uuid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
      watermark: 0,
      priority,
      predicates: p,
      action: a,
      reason_trail: [],
    })),
  );
const reason = fc.constantFrom("urgent fix", "rate-limit:1:x", "rate-limit:2:x", "rate-limit:1:y", "plain");
const job: fc.Arbitrary<Job> = fc
  .tuple(
    fc.integer({ min: 0, max: 9 }),
    fc.constantFrom("A", "B", "C"),
    fc.boolean(),
    fc.array(reason, { maxLength: 2 }),
  )
  .map(([id, op, force, rs]) => ({
    id,
    opcodes: [{ OP_ID: op, force, reason: rs.map((r) => ["src", r, 1]) }],
  }));

describe("decideJob", () => {
  it("answers as the last candidate of a full scheduling pass", () => {
    fc.assert(
      fc.property(
        rules,
        fc.array(job, { maxLength: 5 }),
        fc.array(job, { maxLength: 5 }),
        job,
        (rs, running, queued, j) => {
          const set = buildFilterSet(rs);
          const pass = schedulePass(set, running, [...queued, j]);
          const last = pass[pass.length - 1];
          expect(decideJob(set, j, { running, queued })).toEqual({ action: last.action, rule: last.rule });
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("decideCounted", () => {
  it("answers as decideJob does with the same running jobs, while jobs start and end", () => {
    const distinct = (jobs: Job[]) => jobs.map((j, i) => ({ ...j, id: 100 + i }));
    fc.assert(
      fc.property(
        rules,
        fc.array(job, { maxLength: 8 }),
        fc.array(fc.nat(7), { maxLength: 4 }),
        job,
        (rs, started, endIdx, j) => {
          const set = buildFilterSet(rs);
          const running = distinct(started);
          const counts = RunningCounts.of(set, running);
          expect(decideCounted(counts, j)).toEqual(decideJob(set, j, { running, queued: [] }));
          // some jobs end: the counts follow, and equal counts rebuilt from the jobs still running
          const ended = new Set(endIdx.filter((i) => i < running.length).map((i) => running[i].id));
          for (const id of ended) counts.end(id);
          const still = running.filter((r) => !ended.has(r.id));
          expect(counts.snapshot()).toEqual(RunningCounts.of(set, still).snapshot());
          expect(decideCounted(counts, j)).toEqual(decideJob(set, j, { running: still, queued: [] }));
        },
      ),
      { numRuns: 2000 },
    );
  });
});
