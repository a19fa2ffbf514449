/**
 * The JobQueue object's per-rule running counts: kept in step as jobs start,
 * finish and lose their leases, stored with the jobs and restored from
 * storage when the object starts again — a restart in the middle of a run
 * leaves the same counts and the same decisions as no restart — and carried
 * through rule changes with many jobs running, as counting anew would count.
 */
import { env, runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear } from "../../src/engines/common/regex/index.js";
import {
  NO_KEY,
  RunningCounts,
  buildFilterSet,
  requiredGlob,
  valuesAt,
  type FilterRule,
  type Job,
} from "../../src/engines/jobfilter/index.js";
import type { Env } from "../../src/env.js";
import type { JobQueue } from "../../src/state/job-queue.js";
import type { JobQueueCore } from "../../src/state/job-queue-core.js";
import type { JobStatus } from "../../src/state/job-queue-types.js";
import { SqlShares, globAdmits } from "../../src/state/running-shares-sql.js";

const testEnv = env as unknown as Env;

function stub(queue: string): DurableObjectStub<JobQueue> {
  return testEnv.JOB_QUEUE.get(testEnv.JOB_QUEUE.idFromName(queue)) as unknown as DurableObjectStub<JobQueue>;
}

/** The object's queue logic, to fill the counts' index in slices smaller than the alarm's. */
const coreOf = (q: JobQueue) => (q as unknown as { core: JobQueueCore }).core;

/**
 * The group a member row's job is in: the row's, unless a split not yet written (`running_pending`) takes the
 * jobs of that group holding a value its memo matched to another.
 */
const REAL_GROUP =
  "coalesce((SELECT p.dest FROM running_pending p WHERE p.grp = s.grp AND EXISTS (SELECT 1 FROM running_memos r2 CROSS JOIN running_matched m2 ON m2.memo = r2.memo CROSS JOIN running_facts f2 ON f2.kind = r2.kind AND f2.value = m2.value WHERE r2.memo = p.memo AND f2.id = s.id)), s.grp)";

/**
 * The store's counts per group of the jobs holding a value a kept regex matched, and the same counted from the
 * matches, the facts and the members; likewise each group's count of jobs and its members.
 */
function memoGroups(sql: SqlStorage): { kept: unknown[]; recount: unknown[] } {
  return {
    kept: [
      ...sql.exec("SELECT memo, grp, k FROM running_memo_groups ORDER BY memo, grp").toArray(),
      ...sql.exec("SELECT -1 AS memo, grp, n AS k FROM running_groups WHERE n > 0 ORDER BY grp").toArray(),
    ],
    recount: [
      ...sql
        .exec(
          `SELECT r.memo AS memo, ${REAL_GROUP} AS grp, count(DISTINCT s.id) AS k FROM running_memos r CROSS JOIN running_matched m ON m.memo = r.memo CROSS JOIN running_facts f ON f.kind = r.kind AND f.value = m.value CROSS JOIN running_members s ON s.id = f.id WHERE r.dropping = 0 GROUP BY 1, 2 ORDER BY 1, 2`,
        )
        .toArray(),
      ...sql
        .exec(
          `SELECT -1 AS memo, ${REAL_GROUP} AS grp, count(*) AS k FROM running_members s GROUP BY 2 ORDER BY 2`,
        )
        .toArray(),
    ],
  };
}

const op = (id: string, reason: string[] = []) => ({
  OP_ID: id,
  reason: reason.map((r) => ["gnt:client", r, 1]),
});

/** Rules: OP_A rate-limited to 3, OP_B to 2, everything else accepted; ad-hoc buckets through reasons. */
function addRules(q: JobQueue): { a: string; b: string } {
  const a = q.putFilter("counts", {
    priority: 1,
    predicates: [["opcode", ["=", "OP_ID", "OP_A"]]],
    action: ["RATE_LIMIT", 3],
    reason: [],
  });
  const b = q.putFilter("counts", {
    priority: 2,
    predicates: [["opcode", ["=", "OP_ID", "OP_B"]]],
    action: ["RATE_LIMIT", 2],
    reason: [],
  });
  return { a, b };
}

/** A run of submissions and finishes; `restartAt` replaces the object by a new one over the same storage at that step. */
async function run(
  queue: string,
  restartAt: number | null,
): Promise<{ actions: string[]; counts: unknown[] }> {
  return runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
    let q = first;
    const { a, b } = addRules(q);
    // rule uuids are random: name them so two runs compare
    const label = (snap: { rules: Record<string, number>; buckets: Record<string, number> }) => ({
      rules: Object.fromEntries(
        Object.entries(snap.rules).map(([k, n]) => [k === a ? "A" : k === b ? "B" : k, n]),
      ),
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
    const disk = (i: number) =>
      Object.entries((counts[i] as { buckets: Record<string, number> }).buckets).filter(([k]) =>
        k.includes("disk"),
      );
    expect(counts[3]).toMatchObject({ rules: { A: 3, B: 1 } });
    expect(disk(3).map(([, n]) => n)).toEqual([2]);
    expect(disk(10).map(([, n]) => n)).toEqual([1]);
    expect(counts[11]).toMatchObject({ rules: { A: 3, B: 1 } });
    expect(disk(11).map(([, n]) => n)).toEqual([2]);
  });

  it("are restored from storage, not counted again from the job rows, when the object starts again", async () => {
    const queue = "counts-stored";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      const { a, b } = addRules(first);
      for (let id = 1; id <= 3; id++)
        await first.submit(queue, { id, opcodes: [op("OP_A", ["rate-limit:5:net"])] });
      await first.submit(queue, { id: 4, opcodes: [op("OP_B")] });
      const before = first.runningSnapshot();
      expect(before.rules).toEqual({ [a]: 3, [b]: 1 });
      // the totals are in storage as the object counts them
      const rows = state.storage.sql
        .exec<{ kind: string; key: string; n: number }>("SELECT kind, key, n FROM running_totals")
        .toArray();
      expect(Object.fromEntries(rows.filter((r) => r.kind === "rule").map((r) => [r.key, r.n]))).toEqual(
        before.rules,
      );
      expect(Object.fromEntries(rows.filter((r) => r.kind === "bucket").map((r) => [r.key, r.n]))).toEqual(
        before.buckets,
      );
      // a job row changed behind the queue's back: counting the rows again would count job 1 under B
      state.storage.sql.exec(
        "UPDATE jobs SET job = ? WHERE id = 1",
        JSON.stringify({ id: 1, opcodes: [op("OP_B")] }),
      );
      const again = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(
        state,
        testEnv,
      );
      expect(again.runningSnapshot()).toEqual(before);
      // and the restored counts go on: job 2 ends, B's last slot is taken, a third B is held
      again.finish(2);
      expect((await again.submit(queue, { id: 5, opcodes: [op("OP_B")] })) as JobStatus).toMatchObject({
        action: "ACCEPT",
      });
      expect((await again.submit(queue, { id: 6, opcodes: [op("OP_B")] })) as JobStatus).toMatchObject({
        action: "RATE_LIMITED",
      });
      expect(again.runningSnapshot().rules).toEqual({ [a]: 2, [b]: 2 });
    });
  });

  it("are carried through rule changes with many jobs running, as counting the running jobs anew gives", async () => {
    const queue = "counts-many";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      let q = first;
      const ops = ["OP_A", "OP_B", "OP_C"];
      q.putFilter(queue, { priority: 50, predicates: [], action: "ACCEPT", reason: [] });
      const r1 = q.putFilter(queue, {
        priority: 10,
        predicates: [["opcode", ["=", "OP_ID", "OP_A"]]],
        action: ["RATE_LIMIT", 100_000],
        reason: [],
      });
      const r2 = q.putFilter(queue, {
        priority: 20,
        predicates: [["opcode", ["=", "OP_ID", "OP_B"]]],
        action: "ACCEPT",
        reason: [],
      });
      for (let id = 1; id <= 600; id++)
        await q.submit(queue, {
          id,
          opcodes: [op(ops[id % 3], id % 7 === 0 ? ["rate-limit:1000:disk"] : [])],
        });
      for (let id = 3; id <= 600; id += 11) q.finish(id);
      const fresh = () => {
        const running = state.storage.sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
        return RunningCounts.of(buildFilterSet(q.listFilters()), running).snapshot();
      };
      const restart = () => {
        q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      };
      expect(q.runningSnapshot()).toEqual(fresh());
      // a rule before the others taking some jobs (by id), a rule changed to match other jobs, a rule deleted
      q.putFilter(queue, {
        priority: 5,
        predicates: [["jobid", ["<", "id", 200]]],
        action: "ACCEPT",
        reason: [],
      });
      expect(q.runningSnapshot()).toEqual(fresh());
      q.putFilter(
        queue,
        { priority: 20, predicates: [["opcode", ["=", "OP_ID", "OP_C"]]], action: "ACCEPT", reason: [] },
        r2,
      );
      expect(q.runningSnapshot()).toEqual(fresh());
      q.deleteFilter(r1);
      expect(q.runningSnapshot()).toEqual(fresh());
      // a rule change the object stops before carrying the counts through: the next object carries them
      q.putFilter(queue, {
        priority: 1,
        predicates: [["opcode", ["=", "OP_ID", "OP_B"]]],
        action: ["RATE_LIMIT", 7],
        reason: [],
      });
      restart();
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(Object.values(q.runningSnapshot().rules).reduce((x, y) => x + y, 0)).toBe(600 - 55);
    });
  });

  it("are carried through random rule changes (fixed seed) as a recount gives, while field paths new to the index fill in slices (the object restarting mid-fill), also after an object stored with only the OP_ID index (and no field value index) starts again", async () => {
    const queue = "counts-random";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      let q = first;
      // a small linear congruential generator: the same series on every run
      let seed = 31;
      const next = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed % n;
      };
      const ops = ["OP_A", "OP_B", "OP_C", "OP_D"];
      const reasons = ["urgent fix", "maintenance ticket 7", "rate-limit:900:disk", "plain"];
      // opcodes with an instance name (one of 40, or a number) and tags (a list of two, or none)
      const named = (o: ReturnType<typeof op>) => ({
        ...o,
        instance_name: next(5) === 0 ? next(40) : `inst${next(40)}`,
        ...(next(3) === 0 ? {} : { tags: [`t${next(6)}`, `t${next(6)}`] }),
      });
      for (let id = 1; id <= 300; id++) {
        const opcodes = [named(op(ops[next(4)], next(2) === 0 ? [reasons[next(4)]] : []))];
        if (next(3) === 0)
          opcodes.push(named(op(ops[next(4)], next(3) === 0 ? [reasons[next(4)], reasons[next(4)]] : [])));
        await q.submit(queue, { id, opcodes });
      }
      const fresh = () => {
        const running = state.storage.sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
        return RunningCounts.of(buildFilterSet(q.listFilters()), running).snapshot();
      };
      const predicate = (): [string, unknown] => {
        switch (next(17)) {
          // regexes on a field path: read through its index (a value test on each distinct value) once it is filled
          case 15:
            return ["opcode", ["=~", "instance_name", `^inst${next(4)}`]];
          case 16:
            return [
              "opcode",
              [
                "|",
                ["=~", "tags", `t${next(6)}`],
                ["&", ["=~", "instance_name", `${next(10)}$`], ["=[]", "tags", `t${next(6)}`]],
              ],
            ];
          case 10:
            return ["opcode", ["=", "instance_name", `inst${next(40)}`]];
          case 11:
            return [
              "opcode",
              ["|", ["=", "instance_name", `inst${next(40)}`], ["=", "instance_name", next(40)]],
            ];
          case 12:
            return ["opcode", ["&", ["=", "OP_ID", ops[next(4)]], ["=[]", "tags", `t${next(6)}`]]];
          case 13:
            return ["opcode", ["!=", "instance_name", `inst${next(40)}`]];
          case 14:
            return [
              "opcode",
              ["&", ["=~", "instance_name", `${next(10)}$`], ["=", "instance_name", `inst${next(40)}`]],
            ];
          case 5:
            return ["opcode", ["!=", "OP_ID", ops[next(4)]]];
          case 6:
            return [
              "opcode",
              [
                "&",
                ["=~", "OP_ID", `[${"ABCD"[next(4)]}${"ABCD"[next(4)]}]$`],
                ["!", ["=", "OP_ID", ops[next(4)]]],
              ],
            ];
          case 7:
            return ["reason", ["=~", "reason", `^${reasons[next(4)].slice(0, 3)}`]];
          case 8:
            return ["reason", ["&", ["!=", "reason", reasons[next(4)]], ["=", "source", "gnt:client"]]];
          case 9:
            return ["reason", ["|", ["=", "reason", reasons[next(4)]], [">", "timestamp", 0]]];
          case 0:
            return ["opcode", ["=", "OP_ID", ops[next(4)]]];
          case 1:
            return ["opcode", ["|", ["=", "OP_ID", ops[next(4)]], ["=", "OP_ID", ops[next(4)]]]];
          case 2:
            return ["jobid", ["&", [">", "id", next(300)], ["<", "id", next(300)]]];
          case 3:
            return ["jobid", [">", "id", "watermark"]];
          default:
            return ["opcode", ["!", ["=", "OP_ID", ops[next(4)]]]];
        }
      };
      const uuids: string[] = [];
      for (let step = 0; step < 36; step++) {
        const body = {
          priority: next(10),
          predicates: [predicate()] as never,
          action: ["RATE_LIMIT", 1000] as ["RATE_LIMIT", number],
          reason: [],
        };
        const pick = next(4);
        if (pick === 0 && uuids.length > 0) q.deleteFilter(uuids.splice(next(uuids.length), 1)[0]);
        else if (pick === 1 && uuids.length > 0) q.putFilter(queue, body, uuids[next(uuids.length)]);
        else uuids.push(q.putFilter(queue, body, undefined));
        if (step % 3 === 0) q.finish(1 + next(300));
        if (step === 12) {
          // an object stored by a release with only the OP_ID index: the next object indexes its running jobs' facts once
          state.storage.sql.exec("DROP TABLE running_facts");
          state.storage.sql.exec("DELETE FROM meta WHERE key = 'running_facts'");
          // nor the field value index: the next rule change indexes the paths its rules test
          state.storage.sql.exec("DELETE FROM meta WHERE key = 'indexed_paths'");
          state.storage.sql.exec(
            "CREATE TABLE running_ops (op TEXT NOT NULL, id INTEGER NOT NULL, PRIMARY KEY (op, id)) WITHOUT ROWID",
          );
          state.storage.sql.exec("INSERT INTO meta (key, value) VALUES ('running_ops', '1')");
          q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
        }
        // an object that restarts while a path is filling goes on filling it where it stopped
        if (step === 22)
          q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
        expect(q.runningSnapshot()).toEqual(fresh());
        const byGroup = memoGroups(state.storage.sql);
        expect(byGroup.kept).toEqual(byGroup.recount);
        // a field path new to the index fills a slice at a time (the object may restart in between)
        if (step % 2 === 1) coreOf(q).fillIndex(1 + next(120));
      }
      // the alarm fills what is left, and is set while a path is filling
      for (let alarms = 0; coreOf(q).indexFilling(); alarms++) {
        expect(alarms).toBeLessThan(3);
        expect(await state.storage.getAlarm()).not.toBeNull();
        await q.alarm();
        expect(q.runningSnapshot()).toEqual(fresh());
      }
      expect(state.storage.sql.exec("SELECT value FROM meta WHERE key = 'filling_paths'").toArray()).toEqual(
        [],
      );
      const indexed = (kind: string) =>
        state.storage.sql
          .exec<{ n: number }>("SELECT count(*) AS n FROM running_facts WHERE kind = ?", kind)
          .one().n;
      expect([indexed("op"), indexed("source"), indexed("reason")].every((n) => n > 0)).toBe(true);
      // the field paths the rules test by value are indexed
      const paths = JSON.parse(
        state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'indexed_paths'").one()
          .value,
      ) as string[];
      expect(paths).toEqual(expect.arrayContaining([...buildFilterSet(q.listFilters()).valued]));
      // each filled path holds every running job's values there
      const running = state.storage.sql
        .exec<{ id: number; job: string }>("SELECT id, job FROM jobs WHERE state = 'running'")
        .toArray();
      for (const p of paths) {
        expect(indexed(`field:${p}`)).toBeGreaterThan(0);
        for (const r of running)
          expect(
            state.storage.sql
              .exec<{ n: number }>(
                "SELECT count(*) AS n FROM running_facts WHERE kind = ? AND id = ?",
                `field:${p}`,
                r.id,
              )
              .one().n,
          ).toBe(new Set(valuesAt(JSON.parse(r.job) as Job, p, true)).size);
      }
      expect(
        state.storage.sql.exec("SELECT name FROM sqlite_master WHERE name = 'running_ops'").toArray(),
      ).toEqual([]);
      // regexes alone on the filled name index: their matches kept with the counts (at most 4), through rule
      // changes, jobs starting and ending, and a restart
      const patterns = ["^inst1", "[0-9]7$", "3", "^inst[2-4]", "0$", "5"];
      for (let step = 0; step < 14; step++) {
        const body = {
          priority: next(10),
          predicates: [["opcode", ["=~", "instance_name", patterns[next(6)]]]] as never,
          action: ["RATE_LIMIT", 1000] as ["RATE_LIMIT", number],
          reason: [],
        };
        const pick = next(4);
        if (pick === 0 && uuids.length > 0) q.deleteFilter(uuids.splice(next(uuids.length), 1)[0]);
        else if (pick !== 3 && uuids.length > 0) q.putFilter(queue, body, uuids[next(uuids.length)]);
        else uuids.push(q.putFilter(queue, body, undefined));
        if (step % 2 === 0) q.finish(1 + next(300));
        else await q.submit(queue, { id: 400 + step, opcodes: [named(op(ops[next(4)]))] });
        if (step === 7)
          q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
        expect(q.runningSnapshot()).toEqual(fresh());
        const byGroup = memoGroups(state.storage.sql);
        expect(byGroup.kept).toEqual(byGroup.recount);
      }
      expect(
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_memos").one().n,
      ).toBeGreaterThan(0);
    });
  });

  it("are carried through regex rules on an indexed field (its string values tested once each), strings matched, numbers and lists never", async () => {
    const queue = "counts-regex";
    await runInDurableObject(stub(queue), async (q: JobQueue, state: DurableObjectState) => {
      q.putFilter(queue, { priority: 50, predicates: [], action: "ACCEPT", reason: [] });
      // a rule naming instance_name by value: the store indexes the path as jobs start
      q.putFilter(queue, {
        priority: 40,
        predicates: [["opcode", ["=", "instance_name", "nobody"]]],
        action: "ACCEPT",
        reason: [],
      });
      for (let id = 1; id <= 120; id++)
        await q.submit(queue, {
          id,
          opcodes: [{ OP_ID: "OP_A", instance_name: id % 10 === 0 ? id : `inst${id}`, tags: [`t${id % 6}`] }],
        });
      expect(coreOf(q).indexFilling()).toBe(false);
      const fresh = () => {
        const running = state.storage.sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
        return RunningCounts.of(buildFilterSet(q.listFilters()), running).snapshot();
      };
      const cases: [unknown, number][] = [
        // inst1, inst11…inst19, inst101…inst119 (100 and 110 are numbers): 1 + 9 + 18
        [["=~", "instance_name", "^inst1"], 28],
        // names ending in 0 are numbers here: a regex on a number never holds
        [["=~", "instance_name", "0$"], 0],
        // names ending in 5 hold before the regex on a list is reached (an error, which stops the `|` for the others)
        [["|", ["=~", "instance_name", "5$"], ["=~", "tags", "t1"]], 12],
      ];
      for (const [e, n] of cases) {
        const u = q.putFilter(queue, {
          priority: 10,
          predicates: [["opcode", e]] as never,
          action: ["RATE_LIMIT", 1000],
          reason: [],
        });
        expect(q.runningSnapshot()).toEqual(fresh());
        expect(q.runningSnapshot().rules[u] ?? 0).toBe(n);
        q.deleteFilter(u);
        expect(q.runningSnapshot()).toEqual(fresh());
      }
    });
  });

  it("are carried through a rule changed to `!=` and back, to a regex with no literal and back, as a recount gives, also when the object restarts in between", async () => {
    const queue = "counts-back";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      let q = first;
      q.putFilter(queue, {
        priority: 50,
        predicates: [["opcode", ["=", "OP_ID", "OP_A"]]],
        action: ["RATE_LIMIT", 1000],
        reason: [],
      });
      const body = {
        priority: 10,
        predicates: [["opcode", ["=", "instance_name", "nobody"]]],
        action: "ACCEPT",
        reason: [],
      };
      const u = q.putFilter(queue, body as never);
      for (let id = 1; id <= 150; id++)
        await q.submit(queue, {
          id,
          opcodes: [
            { OP_ID: id % 5 === 0 ? "OP_B" : "OP_A", instance_name: id % 10 === 0 ? id : `inst${id}` },
          ],
        });
      const fresh = () => {
        const running = state.storage.sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
        return RunningCounts.of(buildFilterSet(q.listFilters()), running).snapshot();
      };
      const put = (e: unknown) => q.putFilter(queue, { ...body, predicates: [["opcode", e]] } as never, u);
      const before = q.runningSnapshot();
      expect(before).toEqual(fresh());
      for (const e of [
        ["!=", "instance_name", "inst7"],
        ["=~", "instance_name", "[0-9]7$"],
      ]) {
        put(e);
        expect(q.runningSnapshot()).toEqual(fresh());
        expect(q.runningSnapshot().rules[u]).toBe(e[0] === "!=" ? 149 : 14);
        // back as it was: every job the rule took goes back where it was
        put(body.predicates[0][1]);
        expect(q.runningSnapshot()).toEqual(before);
        expect(q.runningSnapshot()).toEqual(fresh());
      }
      const restart = () =>
        (q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv));
      const remembered = () =>
        state.storage.sql
          .exec<{ n: number }>("SELECT coalesce(sum(n), 0) AS n FROM running_groups WHERE gen IS NOT NULL")
          .one().n;
      // changed, then the object restarts before changing it back: the rules the moved jobs had are read from storage
      put(["!=", "instance_name", "inst9"]);
      q.runningSnapshot();
      expect(remembered()).toBe(150);
      restart();
      put(body.predicates[0][1]);
      expect(q.runningSnapshot()).toEqual(before);
      q.finish(3);
      // a third predicate after `!=` (the object restarting before each change): the jobs `!=` took are matched against it, then go back where they were
      for (const e of [
        ["!=", "instance_name", "inst9"],
        ["=~", "instance_name", "1"],
        body.predicates[0][1],
        ["!=", "instance_name", "inst8"],
      ]) {
        restart();
        put(e);
        expect(q.runningSnapshot()).toEqual(fresh());
      }
      // only the last 4 earlier rule sets are kept
      expect(
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM earlier_sets").one().n,
      ).toBeLessThanOrEqual(4);
    });
  });

  it("keep a regex rule's matched values with the counts (kept true as jobs start and end, across restarts), so changing to it again tests no value; the least recently used beyond four dropped in slices", async () => {
    const queue = "counts-memo";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      let q = first;
      const sql = state.storage.sql;
      q.putFilter(queue, { priority: 50, predicates: [], action: "ACCEPT", reason: [] });
      const body = {
        priority: 10,
        predicates: [["opcode", ["=", "instance_name", "nobody"]]],
        action: ["RATE_LIMIT", 1000],
        reason: [],
      };
      // names the path by value: indexed from the first job on
      const u = q.putFilter(queue, body as never);
      // names inst<id>, some numbers, some missing; inst57 held by two jobs; some jobs with two opcodes both named
      const job = (id: number) => ({
        id,
        opcodes: [
          id % 11 === 0
            ? { OP_ID: "OP_A" }
            : { OP_ID: "OP_A", instance_name: id % 10 === 0 ? id : `inst${id}` },
          ...(id % 6 === 0 ? [{ OP_ID: "OP_B", instance_name: `inst${id + 10}` }] : []),
          ...(id === 58 ? [{ OP_ID: "OP_B", instance_name: "inst57" }] : []),
        ],
      });
      for (let id = 1; id <= 120; id++) await q.submit(queue, job(id));
      const running = () =>
        sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
      const fresh = () => RunningCounts.of(buildFilterSet(q.listFilters()), running()).snapshot();
      const put = (e: unknown) => q.putFilter(queue, { ...body, predicates: [["opcode", e]] } as never, u);
      // the values held that a pattern matches, as keys (`s` and the string)
      const held = (re: RegExp) =>
        [
          ...new Set(
            running().flatMap((j) =>
              j.opcodes.flatMap((o) => {
                const v = (o as { instance_name?: unknown }).instance_name;
                return typeof v === "string" && re.test(v) ? [`s${v}`] : [];
              }),
            ),
          ),
        ].sort();
      const groupsAgree = () => {
        const byGroup = memoGroups(sql);
        expect(byGroup.kept).toEqual(byGroup.recount);
        return byGroup.kept.length;
      };
      // the name's rows a store holds in memory ("value id"; undefined: not held), and the index's own
      const sharesOf = (at: JobQueue) => coreOf(at).tables.shares as SqlShares;
      const heldRows = (store: SqlShares) => {
        const rows = (store as unknown as { held: Map<string, Map<string, number | Set<number>>> }).held.get(
          "field:instance_name",
        );
        return rows === undefined
          ? undefined
          : [...rows]
              .flatMap(([v, at]) => (typeof at === "number" ? [at] : [...at]).map((id) => `${v} ${id}`))
              .sort();
      };
      const factRows = () =>
        sql
          .exec<{ value: string; id: number }>(
            "SELECT value, id FROM running_facts WHERE kind = 'field:instance_name'",
          )
          .toArray()
          .map((r) => `${r.value} ${r.id}`)
          .sort();
      // the statements a call makes through the object's store that read the name's values or rows from the index
      // (a rule change is carried to the counts at their next use)
      const indexReads = (call: () => void) => {
        const store = sharesOf(q) as unknown as { sql: SqlStorage };
        const raw = store.sql;
        const reads: string[] = [];
        store.sql = new Proxy(raw, {
          get: (t, k) =>
            k === "exec"
              ? (query: string, ...b: unknown[]) => {
                  if (/DISTINCT value|FROM running_facts WHERE kind|GLOB/.test(query)) reads.push(query);
                  return raw.exec(query, ...(b as SqlStorageValue[]));
                }
              : Reflect.get(t, k),
        });
        try {
          call();
        } finally {
          store.sql = raw;
        }
        return reads;
      };
      const kept = (pattern: string) =>
        sql
          .exec<{ value: string }>(
            "SELECT m.value AS value FROM running_matched m JOIN running_memos r ON r.memo = m.memo WHERE r.pattern = ? AND r.dropping = 0 ORDER BY 1",
            pattern,
          )
          .toArray()
          .map((r) => r.value);
      const before = q.runningSnapshot();
      put(["=~", "instance_name", "[0-9]7$"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(kept("[0-9]7$")).toEqual(held(/[0-9]7$/));
      expect(groupsAgree()).toBeGreaterThan(0);
      put(body.predicates[0][1]);
      expect(q.runningSnapshot()).toEqual(before);
      groupsAgree();
      // the first change recorded its split of the ACCEPT rule's group, not written to the member rows: jobs
      // whose row names that group end, the object restarts, the rule changes to the regex and back, all with
      // the split still not written, each equal to a recount
      const pendingRows = () => sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_pending").one().n;
      const virtual = () =>
        sql
          .exec<{ id: number }>(
            `SELECT s.id AS id FROM running_members s WHERE ${REAL_GROUP} <> s.grp ORDER BY 1`,
          )
          .toArray()
          .map((r) => r.id);
      expect(pendingRows()).toBeGreaterThan(0);
      const unwrittenIds = virtual();
      expect(unwrittenIds.length).toBeGreaterThan(5);
      q.finish(unwrittenIds[0]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      expect(pendingRows()).toBeGreaterThan(0);
      expect(q.runningSnapshot()).toEqual(fresh());
      q.finish(unwrittenIds[1]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      put(["=~", "instance_name", "[0-9]7$"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      q.finish(unwrittenIds[2]);
      expect(q.runningSnapshot()).toEqual(fresh());
      put(body.predicates[0][1]);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(pendingRows()).toBeGreaterThan(0);
      expect(virtual().length).toBe(unwrittenIds.length - 3);
      groupsAgree();
      // a rule reading one such job through the name's index (the job in the group its split gives) moves it, and goes
      const named = running()
        .find((j) => j.id === unwrittenIds[3])!
        .opcodes.map((o) => (o as { instance_name?: unknown }).instance_name)
        .find((v) => typeof v === "string" && /[0-9]7$/.test(v)) as string;
      const extra = q.putFilter(queue, {
        priority: 5,
        predicates: [["opcode", ["=", "instance_name", named]]],
        action: ["RATE_LIMIT", 1000],
        reason: [],
      } as never);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(q.runningSnapshot().rules[extra]).toBeGreaterThan(0);
      groupsAgree();
      q.deleteFilter(extra);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      // jobs start (some named to match) and end (one of inst57's two jobs, others whose name only they hold)
      for (let id = 121; id <= 150; id++) await q.submit(queue, job(id));
      for (const id of [57, 17, 27, 126, 137]) q.finish(id);
      expect(kept("[0-9]7$")).toEqual(held(/[0-9]7$/));
      expect(kept("[0-9]7$")).toContain("sinst57");
      expect(kept("[0-9]7$")).toContain("sinst147");
      expect(kept("[0-9]7$")).not.toContain("sinst17");
      groupsAgree();
      // a new object over the same storage changes to the pattern again: no statement reads the name's distinct values
      let distinct = 0;
      const shares = new SqlShares(
        new Proxy(sql, {
          get: (t, k) =>
            k === "exec"
              ? (query: string, ...b: unknown[]) => {
                  if (query.includes("DISTINCT value")) distinct++;
                  return sql.exec(query, ...b);
                }
              : Reflect.get(t, k),
        }),
      );
      const re = q
        .listFilters()
        .map((r) =>
          r.uuid === u ? { ...r, predicates: [["opcode", ["=~", "instance_name", "[0-9]7$"]]] as never } : r,
        );
      const carried = RunningCounts.restore(buildFilterSet(q.listFilters()), shares)!;
      carried.rebase(buildFilterSet(re));
      expect(distinct).toBe(0);
      expect(carried.snapshot()).toEqual(RunningCounts.of(buildFilterSet(re), running()).snapshot());
      groupsAgree();
      q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      expect(q.runningSnapshot()).toEqual(fresh());
      put(body.predicates[0][1]);
      expect(q.runningSnapshot()).toEqual(fresh());
      // four more patterns: the least recently used ([0-9]7$) is dropped, its rows deleted by the alarm's slices
      for (const p of ["1$", "^inst2", "[02468]$", "3"]) {
        put(["=~", "instance_name", p]);
        expect(q.runningSnapshot()).toEqual(fresh());
        expect(kept(p)).toEqual(held(new RegExp(p)));
        groupsAgree();
      }
      const rows = () =>
        sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM running_matched WHERE memo IN (SELECT memo FROM running_memos WHERE dropping = 1)",
          )
          .one().n;
      expect(rows()).toBe(held(/[0-9]7$/).length);
      expect(coreOf(q).indexFilling()).toBe(true);
      // the object has set its alarm to delete them (see `JobQueue.keepFilling`)
      expect((q as unknown as { filling: boolean }).filling).toBe(true);
      // and the member rows of splits not yet written (written first, within the same slices)
      const unwritten = () =>
        sql
          .exec<{ n: number }>(`SELECT count(*) AS n FROM running_members s WHERE ${REAL_GROUP} <> s.grp`)
          .one().n;
      // a slice goes through at most 3 jobs holding a value of a split's memo (in order, each split its own) or
      // deletes 3 rows: so many slices at most
      const budget =
        sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM running_pending p JOIN running_memos r ON r.memo = p.memo JOIN running_matched m ON m.memo = p.memo JOIN running_facts f ON f.kind = r.kind AND f.value = m.value",
          )
          .one().n + rows();
      expect(unwritten()).toBeGreaterThan(0);
      let slices = 0;
      for (let left = rows() + unwritten(); left > 0; left = rows() + unwritten()) {
        coreOf(q).fillIndex(3);
        expect(left - rows() - unwritten()).toBeLessThanOrEqual(3);
        groupsAgree();
        slices++;
      }
      expect(slices).toBeLessThanOrEqual(Math.ceil(budget / 3) + 1);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_pending").one().n).toBe(0);
      await q.alarm();
      expect(coreOf(q).indexFilling()).toBe(false);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_memos").one().n).toBe(4);
      // the patterns kept still follow jobs starting and ending
      for (let id = 151; id <= 160; id++) await q.submit(queue, job(id));
      q.finish(31);
      for (const p of ["1$", "^inst2", "[02468]$", "3"]) expect(kept(p)).toEqual(held(new RegExp(p)));
      groupsAgree();
      // the name's rows, read into memory by those slices (the object started with memos on the name), kept in
      // step with the index as jobs start and end; so a change to a regex never kept reads none of the name's
      // values or rows from SQLite, and equals a recount
      expect(heldRows(sharesOf(q))).toEqual(factRows());
      expect(indexReads(() => (put(["=~", "instance_name", "[0-9]9$"]), q.runningSnapshot()))).toEqual([]);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(kept("[0-9]9$")).toEqual(held(/[0-9]9$/));
      groupsAgree();
      put(body.predicates[0][1]);
      // started again: the rows read anew in slices (20 for a job), jobs starting and ending between them
      q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      expect(heldRows(sharesOf(q))).toEqual([]);
      let warming = 0;
      for (; coreOf(q).indexFilling(); warming++) {
        // a change before they are all read reads the index, only the rows whose value holds the regex's required
        // literal (here "inst", through an escape: SQLite's `instr` drops no value the regex matches) and its
        // required run of characters (SQLite's GLOB), with their groups, in one statement (no distinct values)
        if (warming === 1) {
          const reads = indexReads(
            () => (put(["=~", "instance_name", "\\x69nst[0-9]*5$"]), q.runningSnapshot()),
          );
          expect(reads).toHaveLength(1);
          expect(reads[0]).toContain("instr(f.value");
          expect(q.runningSnapshot()).toEqual(fresh());
          expect(kept("\\x69nst[0-9]*5$")).toEqual(held(/inst[0-9]*5$/));
          expect(held(/inst[0-9]*5$/).length).toBeGreaterThan(5);
          put(body.predicates[0][1]);
        }
        // and one whose regex has no literal: only the rows the GLOB admits, one statement
        if (warming === 2) {
          const reads = indexReads(() => (put(["=~", "instance_name", "[0-9][05]$"]), q.runningSnapshot()));
          expect(reads).toHaveLength(1);
          expect(reads[0]).toContain("GLOB");
          expect(q.runningSnapshot()).toEqual(fresh());
          expect(kept("[0-9][05]$")).toEqual(held(/[0-9][05]$/));
          expect(held(/[0-9][05]$/).length).toBeGreaterThan(5);
          groupsAgree();
          put(body.predicates[0][1]);
        }
        coreOf(q).fillIndex(1);
        const facts = new Set(factRows());
        expect(heldRows(sharesOf(q))!.every((r) => facts.has(r))).toBe(true);
        await q.submit(queue, job(300 + warming));
        q.finish(running().find((j) => j.id > 100 + warming)!.id);
      }
      expect(warming).toBeGreaterThan(4);
      expect(heldRows(sharesOf(q))).toEqual(factRows());
      expect(indexReads(() => (put(["=~", "instance_name", "[0-9]8$"]), q.runningSnapshot()))).toEqual([]);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(kept("[0-9]8$")).toEqual(held(/[0-9]8$/));
      groupsAgree();
      // past its bounds (here 40 rows) a store lets the rows go and reads the index at a change, as before
      const bounded = new SqlShares(sql, { rows: 40, chars: 1_000_000 });
      const boundedCounts = RunningCounts.restore(buildFilterSet(q.listFilters()), bounded)!;
      while (boundedCounts.fillIndex(1));
      expect(heldRows(bounded)).toBeUndefined();
      const to6 = q
        .listFilters()
        .map((r) =>
          r.uuid === u ? { ...r, predicates: [["opcode", ["=~", "instance_name", "[0-9]6$"]]] as never } : r,
        );
      boundedCounts.rebase(buildFilterSet(to6));
      expect(boundedCounts.snapshot()).toEqual(RunningCounts.of(buildFilterSet(to6), running()).snapshot());
      groupsAgree();
      q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
      expect(q.runningSnapshot()).toEqual(fresh());
      put(["=~", "instance_name", "1$"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      // names too long for one list of 20,000 values in a SQLite string (3.2 MB here): asked for in shorter lists
      for (let id = 161; id <= 240; id++)
        await q.submit(queue, {
          id,
          opcodes: [{ OP_ID: "OP_A", instance_name: `inst${"x".repeat(40_000)}${id}` }],
        });
      put(["=~", "instance_name", "x[0-9]*7$"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      expect(q.runningSnapshot().rules[u]).toBe(held(/x[0-9]*7$/).length);
      expect(held(/x[0-9]*7$/).length).toBe(8);
      groupsAgree();
      // a `!=` change moves jobs apart from their groups (one by one), and back
      put(["!=", "instance_name", "inst33"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      put(["=~", "instance_name", "3"]);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
      q.deleteFilter(u);
      expect(q.runningSnapshot()).toEqual(fresh());
      groupsAgree();
    });
  });

  it("read a new regex's rows through a GLOB that, in SQLite, admits every value the regex matches (values not ASCII always)", async () => {
    await runInDurableObject(stub("counts-glob"), async (_q: JobQueue, state: DurableObjectState) => {
      const sql = state.storage.sql;
      const atoms = [
        "a",
        "b",
        "0",
        "5",
        "k",
        "é",
        "😀",
        "[0-9]",
        "[^0-9]",
        "[ab]",
        "[^a]",
        "[]^-]",
        "[-^]",
        ".",
        "\\d",
        "\\w",
        "\\s",
        "\\b",
        "(?i)",
        "^",
        "$",
        "*",
        "+",
        "?",
        "(",
        ")",
        "|",
        "[*?[]",
      ];
      const chars = [
        "a",
        "b",
        "A",
        "0",
        "5",
        "k",
        "K",
        "\u212a",
        "é",
        "😀",
        "\ud83d",
        "\n",
        " ",
        "*",
        "?",
        "[",
        "]",
        "-",
        "^",
        "\u0000",
      ];
      let tried = 0;
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...atoms), { minLength: 1, maxLength: 5 }),
          fc.array(fc.array(fc.constantFrom(...chars), { maxLength: 6 }), { minLength: 1, maxLength: 8 }),
          (p, subjects) => {
            const source = p.join("");
            const compiled = compileLinear(source, "pcre");
            const globs = requiredGlob(source);
            if (!compiled.ok || globs === null) return;
            const admits = globAdmits(
              "?1",
              globs.map((_, k) => `?${2 + k}`),
            );
            for (const s of subjects) {
              // the value as SQLite holds it (and hands it back), as the store reads it
              const r = sql
                .exec<{ v: string; m: number }>(`SELECT ?1 AS v, ${admits} AS m`, s.join(""), ...globs)
                .one();
              if (compiled.value.test(r.v)) {
                tried++;
                expect([source, globs, r.v, r.m]).toEqual([source, globs, r.v, 1]);
              }
            }
          },
        ),
        { numRuns: 600 },
      );
      expect(tried).toBeGreaterThan(100);
    });
  });

  it("move a `!=` rule's jobs by their groups, writing a few rows however many jobs move (a change, its change back, a reload going back), and migrate counts stored one row per job", async () => {
    const queue = "counts-groups";
    await runInDurableObject(stub(queue), async (first: JobQueue, state: DurableObjectState) => {
      let q = first;
      const sql = state.storage.sql;
      q.putFilter(queue, {
        priority: 50,
        predicates: [["opcode", ["=", "OP_ID", "OP_A"]]],
        action: ["RATE_LIMIT", 1000],
        reason: [],
      });
      // names a path by value: indexed from the first job on
      const u = q.putFilter(queue, {
        priority: 10,
        predicates: [["opcode", ["=", "instance_name", "nobody"]]],
        action: "ACCEPT",
        reason: [],
      });
      // some jobs without the name (the presence key), one named inst7, the others named otherwise
      for (let id = 1; id <= 200; id++)
        await q.submit(queue, {
          id,
          opcodes: [
            {
              // 11 opcodes without OP_ID (a job then matches no OP_ID rule)
              ...(id % 17 === 0 ? {} : { OP_ID: id % 5 === 0 ? "OP_B" : "OP_A" }),
              ...(id % 13 === 0 ? {} : { instance_name: id % 10 === 0 ? id : `inst${id}` }),
            },
          ],
        });
      const recount = (rules: FilterRule[]) => {
        const running = sql
          .exec<{ job: string }>("SELECT job FROM jobs WHERE state = 'running'")
          .toArray()
          .map((r) => JSON.parse(r.job) as Job);
        return RunningCounts.of(buildFilterSet(rules), running).snapshot();
      };
      const rules = q.listFilters();
      const neq = rules.map((r) =>
        r.uuid === u ? { ...r, predicates: [["opcode", ["!=", "instance_name", "inst7"]]] as never } : r,
      );
      const before = q.runningSnapshot();
      expect(before).toEqual(recount(rules));
      // the rows each step writes, counted on the storage's cursors
      const counted = () => {
        const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
        let returned = 0;
        let jobRows = 0;
        const exec = (query: string, ...bindings: unknown[]) => {
          const c = sql.exec(query, ...bindings);
          cursors.push(c);
          const withJob = query.includes("JOIN jobs");
          const count = (n: number) => {
            returned += n;
            if (withJob) jobRows += n;
          };
          // the rows handed to the object's code, counted as they come
          return new Proxy(c, {
            get: (t, k) =>
              k === "next"
                ? () => {
                    const r = t.next();
                    if (r.done !== true) count(1);
                    return r;
                  }
                : k === "toArray"
                  ? () => {
                      const rows = t.toArray();
                      count(rows.length);
                      return rows;
                    }
                  : k === "one"
                    ? () => (count(1), t.one())
                    : k === Symbol.iterator
                      ? function (this: unknown) {
                          return this;
                        }
                      : (Reflect.get(t, k) as unknown),
          });
        };
        const store = new SqlShares(
          new Proxy(sql, { get: (t, k) => (k === "exec" ? exec : Reflect.get(t, k)) }),
        );
        return {
          store,
          written: () => cursors.reduce((n, c) => n + c.rowsWritten, 0),
          // the rows read since the last call
          read: () => cursors.splice(0).reduce((n, c) => n + c.rowsRead, 0),
          // the rows handed out since the last call
          returned: () => returned - ((returned = 0), 0),
          // the job rows (with their texts) handed out since the last call
          jobRows: () => jobRows - ((jobRows = 0), 0),
        };
      };
      let c = counted();
      let counts = RunningCounts.restore(buildFilterSet(rules), c.store)!;
      expect(c.written()).toBe(0);
      counts.rebase(buildFilterSet(neq));
      const moved = recount(neq);
      // every job named otherwise (and the numbers) moves to `!=`; inst7 and the 15 without a name are read
      expect(moved.rules[u]).toBe(200 - 15 - 1);
      expect(counts.snapshot()).toEqual(moved);
      // the 16 jobs read (inst7, the 15 unnamed) are taken out of their groups, a few rows each; the 184 moved write none each
      expect(c.written()).toBeLessThanOrEqual(60);
      c = counted();
      counts = RunningCounts.restore(buildFilterSet(neq), c.store)!;
      counts.rebase(buildFilterSet(rules));
      expect(counts.snapshot()).toEqual(before);
      expect(c.written()).toBeLessThanOrEqual(15);
      // changed, then a new object over the same storage carries the counts back
      counts.rebase(buildFilterSet(neq));
      c = counted();
      expect(RunningCounts.restore(buildFilterSet(rules), c.store)!.snapshot()).toEqual(before);
      expect(c.written()).toBeLessThanOrEqual(15);
      const restart = () =>
        (q = new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv));
      restart();
      expect(q.runningSnapshot()).toEqual(before);
      // the groups hold every running job once
      expect(sql.exec<{ n: number }>("SELECT sum(n) AS n FROM running_groups").one().n).toBe(200);
      expect(sql.exec<{ n: number }>("SELECT count(*) AS n FROM running_members").one().n).toBe(200);
      // an object stored by a release with one share row per job and no presence key
      sql.exec(
        "CREATE TABLE running_shares (id INTEGER PRIMARY KEY, rule TEXT, buckets TEXT NOT NULL, gen INTEGER, was TEXT)",
      );
      sql.exec("CREATE INDEX running_shares_rule ON running_shares (rule)");
      sql.exec(
        "INSERT INTO running_shares (id, rule, buckets, gen, was) SELECT s.id, g.rule, s.buckets, g.gen, g.was FROM running_members s JOIN running_groups g ON g.grp = s.grp",
      );
      sql.exec("DROP TABLE running_members");
      sql.exec("DROP TABLE running_groups");
      sql.exec("DELETE FROM running_facts WHERE value = ?", NO_KEY);
      sql.exec("DELETE FROM meta WHERE key IN ('presence_keys', 'op_presence')");
      sql.exec("INSERT INTO meta (key, value) VALUES ('earlier_columns', '1')");
      restart();
      expect(q.runningSnapshot()).toEqual(before);
      expect(sql.exec("SELECT name FROM sqlite_master WHERE name = 'running_shares'").toArray()).toEqual([]);
      expect(sql.exec<{ n: number }>("SELECT sum(n) AS n FROM running_groups").one().n).toBe(200);
      // the path indexed without the presence key fills again before it is read through
      expect(coreOf(q).indexFilling()).toBe(true);
      const put = (e: unknown) =>
        q.putFilter(
          queue,
          { priority: 10, predicates: [["opcode", e]], action: "ACCEPT", reason: [] } as never,
          u,
        );
      put(["!=", "instance_name", "inst9"]);
      expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      put(["=", "instance_name", "nobody"]);
      expect(q.runningSnapshot()).toEqual(before);
      coreOf(q).fillIndex(1000);
      expect(coreOf(q).indexFilling()).toBe(false);
      expect(
        sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM running_facts WHERE kind = 'field:instance_name' AND value = ?",
            NO_KEY,
          )
          .one().n,
      ).toBe(15);
      expect(
        sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM running_facts WHERE kind = 'op' AND value = ?",
            NO_KEY,
          )
          .one().n,
      ).toBe(11);
      for (const e of [
        ["!=", "instance_name", "inst9"],
        ["=", "instance_name", "nobody"],
        ["!=", "instance_name", 20],
        ["!=", "OP_ID", "OP_B"],
        ["=", "instance_name", "nobody"],
        // most jobs are OP_A: no complement; those with another OP_ID move unread, those without one are matched
        ["!=", "OP_ID", "OP_A"],
        ["=~", "OP_ID", "B$"],
        ["=", "instance_name", "nobody"],
      ]) {
        put(e);
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
        restart();
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      // counts indexed before the `op` presence key: no call reads every job for it; filled in slices, and not
      // read through (the complement of `OP_ID !=`) until filled, also when the object restarts half-way
      const opNone = () =>
        sql
          .exec<{ n: number }>(
            "SELECT count(*) AS n FROM running_facts WHERE kind = 'op' AND value = ?",
            NO_KEY,
          )
          .one().n;
      sql.exec("DELETE FROM running_facts WHERE kind = 'op' AND value = ?", NO_KEY);
      sql.exec("DELETE FROM meta WHERE key = 'op_presence'");
      c = counted();
      expect(c.read()).toBeLessThanOrEqual(50);
      expect(c.store.presenceFilling()).toBe(true);
      for (const k of [1, 2]) {
        expect(c.store.fillIndex(50)).toBe(50);
        expect(c.read()).toBeLessThanOrEqual(3 * 50);
        expect(opNone()).toBe(k === 1 ? 2 : 5);
      }
      restart();
      for (const e of [
        ["!=", "OP_ID", "OP_B"],
        ["=", "instance_name", "nobody"],
        ["!=", "OP_ID", "OP_B"],
      ]) {
        put(e);
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
        restart();
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      expect(coreOf(q).indexFilling()).toBe(true);
      let slices = 0;
      for (; coreOf(q).indexFilling(); slices++) coreOf(q).fillIndex(50);
      expect(slices).toBe(3);
      expect(opNone()).toBe(11);
      for (const e of [
        ["=", "instance_name", "nobody"],
        ["!=", "OP_ID", "OP_B"],
      ]) {
        put(e);
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      // `OP_ID !=` the opcode of most jobs: the 38 OP_B jobs it takes are counted and moved by their groups, not
      // handed out one by one; only the 11 jobs with an opcode without OP_ID are read
      put(["=", "instance_name", "nobody"]);
      const opNeq = q
        .listFilters()
        .map((r) =>
          r.uuid === u ? { ...r, predicates: [["opcode", ["!=", "OP_ID", "OP_A"]]] as never } : r,
        );
      for (let round = 0; round < 2; round++) {
        c = counted();
        counts = RunningCounts.restore(buildFilterSet(q.listFilters()), c.store)!;
        c.returned();
        counts.rebase(buildFilterSet(opNeq));
        expect(counts.snapshot()).toEqual(recount(opNeq));
        expect(counts.snapshot().rules[u]).toBe(38);
        // 34 here (the 11 read, the groups, the rules and meta); 69 when the 38 come back one row each
        expect(c.returned()).toBeLessThanOrEqual(45);
        expect(c.jobRows()).toBe(11);
        // a new object over the same storage carries the counts back to its rules
        restart();
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      // a regex alone on the indexed name: the jobs holding a name it matches are counted and moved by their
      // groups, none read (numbers and unnamed jobs never match)
      const regex = q
        .listFilters()
        .map((r) =>
          r.uuid === u ? { ...r, predicates: [["opcode", ["=~", "instance_name", "[0-9]7$"]]] as never } : r,
        );
      for (let round = 0; round < 2; round++) {
        c = counted();
        counts = RunningCounts.restore(buildFilterSet(q.listFilters()), c.store)!;
        c.jobRows();
        counts.rebase(buildFilterSet(regex));
        expect(counts.snapshot()).toEqual(recount(regex));
        expect(counts.snapshot().rules[u]).toBe(18);
        expect(c.jobRows()).toBe(0);
        restart();
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      // counts saved before the fact index existed: no call reads every job for it; filled in slices (the object
      // restarting half-way), and no fact read through it until filled; a full recount fills it at once
      const allFacts = () =>
        sql
          .exec<{ f: string }>("SELECT kind || ' ' || value || ' ' || id AS f FROM running_facts ORDER BY 1")
          .toArray()
          .map((r) => r.f);
      const facts = allFacts();
      const oldLayout = () => {
        // a release before the fact index kept no regex's matches and left no split unwritten
        while (coreOf(q).indexFilling()) coreOf(q).fillIndex(1000);
        for (const t of ["running_memos", "running_matched", "running_memo_groups"])
          sql.exec(`DELETE FROM ${t}`);
        sql.exec("DELETE FROM running_facts");
        sql.exec("DELETE FROM meta WHERE key = 'running_facts'");
      };
      oldLayout();
      c = counted();
      expect(c.read()).toBeLessThanOrEqual(50);
      expect(c.store.factsFilling()).toBe(true);
      for (const k of [1, 2]) {
        expect(c.store.fillIndex(50)).toBe(50);
        expect(c.read()).toBeLessThanOrEqual(3 * 50);
        expect(new Set(allFacts().map((f) => f.split(" ").pop())).size).toBe(50 * k);
      }
      const changes = [
        ["!=", "OP_ID", "OP_B"],
        ["=", "instance_name", "inst7"],
        ["!=", "instance_name", "inst9"],
        ["=~", "OP_ID", "B$"],
        ["=~", "instance_name", "[0-9]7$"],
        ["=", "instance_name", "nobody"],
      ];
      restart();
      expect(coreOf(q).indexFilling()).toBe(true);
      const agree = (what: string) => {
        const g = memoGroups(sql);
        expect(g.kept, what).toEqual(g.recount);
      };
      for (const e of changes) {
        put(e);
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
        agree(`after ${JSON.stringify(e)}`);
        restart();
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
        agree(`after ${JSON.stringify(e)}, restarted`);
      }
      slices = 0;
      for (; coreOf(q).indexFilling(); slices++) {
        coreOf(q).fillIndex(50);
        agree(`slice ${slices}`);
      }
      expect(slices).toBe(3);
      expect(allFacts()).toEqual(facts);
      expect(sql.exec("SELECT value FROM meta WHERE key = 'running_facts_after'").toArray()).toEqual([]);
      for (const e of changes) {
        put(e);
        expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      }
      // stopped half-way, then counted anew (the counts' rule set unknown): the recount indexes every job
      oldLayout();
      restart();
      coreOf(q).fillIndex(50);
      sql.exec("DELETE FROM meta WHERE key = 'counts_for'");
      restart();
      expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
      expect(coreOf(q).indexFilling()).toBe(false);
      expect(allFacts()).toEqual(facts);
      put(["!=", "OP_ID", "OP_B"]);
      expect(q.runningSnapshot()).toEqual(recount(q.listFilters()));
    });
  });

  for (const at of [3, 8, 11]) {
    it(`are restored when the object restarts mid-run (before step ${at})`, async () => {
      const straight = await run(`counts-straight-${at}`, null);
      const restarted = await run(`counts-restart-${at}`, at);
      expect(restarted.actions).toEqual(straight.actions);
      expect(restarted.counts).toEqual(straight.counts);
    });
  }
});
