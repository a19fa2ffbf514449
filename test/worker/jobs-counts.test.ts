/**
 * The JobQueue object's per-rule running counts: kept in step as jobs start,
 * finish and lose their leases, never stored, and rebuilt from the job rows
 * when the object starts again — a restart in the middle of a run leaves the
 * same counts and the same decisions as no restart.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import type { JobQueue } from "../../src/state/job-queue.js";
import type { JobStatus } from "../../src/state/job-queue-types.js";

const testEnv = env as unknown as Env;

function stub(queue: string): DurableObjectStub<JobQueue> {
  return testEnv.JOB_QUEUE.get(testEnv.JOB_QUEUE.idFromName(queue)) as unknown as DurableObjectStub<JobQueue>;
}

const op = (id: string, reason: string[] = []) => ({ OP_ID: id, reason: reason.map((r) => ["gnt:client", r, 1]) });

/** Rules: OP_A rate-limited to 3, OP_B to 2, everything else accepted; ad-hoc buckets through reasons. */
function addRules(q: JobQueue): { a: string; b: string } {
  const a = q.putFilter("counts", { priority: 1, predicates: [["opcode", ["=", "OP_ID", "OP_A"]]], action: ["RATE_LIMIT", 3], reason: [] });
  const b = q.putFilter("counts", { priority: 2, predicates: [["opcode", ["=", "OP_ID", "OP_B"]]], action: ["RATE_LIMIT", 2], reason: [] });
  return { a, b };
}

/** A run of submissions and finishes; `restartAt` replaces the object by a new one over the same storage at that step. */
async function run(queue: string, restartAt: number | null): Promise<{ actions: string[]; counts: unknown[] }> {
  return runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
    let q = first;
    const { a, b } = addRules(q);
    // rule uuids are random: name them so two runs compare
    const label = (snap: { rules: Record<string, number>; buckets: Record<string, number> }) => ({
      rules: Object.fromEntries(Object.entries(snap.rules).map(([k, n]) => [k === a ? "A" : k === b ? "B" : k, n])),
      buckets: snap.buckets,
    });
    const actions: string[] = [];
    const counts: unknown[] = [];
    const steps: (() => Promise<JobStatus | unknown>)[] = [
      () => q.submit(queue, { id: 1, opcodes: [op("OP_A")] }),
      () => q.submit(queue, { id: 2, opcodes: [op("OP_A", ["rate-limit:2:disk"])] }),
      () => q.submit(queue, { id: 3, opcodes: [op("OP_B")] }),
      () => q.submit(queue, { id: 4, opcodes: [op("OP_A", ["rate-limit:2:disk"])] }),
      () => q.submit(queue, { id: 5, opcodes: [op("OP_A", ["rate-limit:2:disk"])] }),
      () => q.submit(queue, { id: 6, opcodes: [op("OP_A")] }),
      () => q.submit(queue, { id: 7, opcodes: [op("OP_A")] }),
      async () => q.finish(1),
      () => q.check(7),
      () => q.check(5),
      async () => q.finish(2),
      () => q.check(5),
      () => q.submit(queue, { id: 8, opcodes: [op("OP_B")] }),
      () => q.submit(queue, { id: 9, opcodes: [op("OP_B")] }),
    ];
    for (let i = 0; i < steps.length; i++) {
      if (i === restartAt) {
        // what the runtime does after the object is evicted: a new instance over the same storage
        q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      }
      const r = (await steps[i]()) as JobStatus;
      actions.push(`${r.job_id}:${r.action}:${r.state}`);
      counts.push(label(q.runningSnapshot()));
    }
    expect(q.runningSnapshot().rules[a]).toBe(3);
    return { actions, counts };
  });
}

describe("JobQueue running counts", () => {
  it("follow jobs as they start and finish, and decide rate limits from them", async () => {
    const { actions, counts } = await run("counts-straight", null);
    expect(actions).toEqual([
      "1:ACCEPT:running",
      "2:ACCEPT:running",
      "3:ACCEPT:running",
      "4:ACCEPT:running",
      "5:ADHOC_RATE_LIMITED:queued",
      "6:RATE_LIMITED:queued",
      "7:RATE_LIMITED:queued",
      "1:ACCEPT:finished",
      "7:ACCEPT:running",
      "5:ADHOC_RATE_LIMITED:queued",
      "2:ACCEPT:finished",
      "5:ACCEPT:running",
      "8:ACCEPT:running",
      "9:RATE_LIMITED:queued",
    ]);
    const disk = (i: number) => Object.entries((counts[i] as { buckets: Record<string, number> }).buckets).filter(([k]) => k.includes("disk"));
    expect(counts[3]).toMatchObject({ rules: { A: 3, B: 1 } });
    expect(disk(3).map(([, n]) => n)).toEqual([2]);
    expect(disk(10).map(([, n]) => n)).toEqual([1]);
    expect(counts[11]).toMatchObject({ rules: { A: 3, B: 1 } });
    expect(disk(11).map(([, n]) => n)).toEqual([2]);
  });

  for (const at of [3, 8, 11]) {
    it(`are rebuilt from the job rows when the object restarts mid-run (before step ${at})`, async () => {
      const straight = await run(`counts-straight-${at}`, null);
      const restarted = await run(`counts-restart-${at}`, at);
      expect(restarted.actions).toEqual(straight.actions);
      expect(restarted.counts).toEqual(straight.counts);
    });
  }
});
