import {
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";
import type { JobQueue } from "../../src/state/job-queue.js";

const BASE = "http://arbiter.test";
const testEnv = env as unknown as Env;

type Json = Record<string, unknown>;

async function send(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const res = await SELF.fetch(BASE + path, init);
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) };
}

const submit = async (queue: string, job: Json) =>
  (await send("POST", `/v1/queues/${queue}/jobs`, job)).body as Json;
const op = (OP_ID: string, extra: Json = {}) => ({ OP_ID, ...extra });

function stub(queue: string) {
  return testEnv.JOB_QUEUE.get(testEnv.JOB_QUEUE.idFromName(queue)) as unknown as DurableObjectStub<JobQueue>;
}

describe("/2/filters (Ganeti RAPI)", () => {
  it("adds, lists, reads, replaces and deletes a rule", async () => {
    const add = await send("POST", "/2/filters", {
      priority: 1,
      predicates: [["jobid", [">", "id", "watermark"]]],
      action: "PAUSE",
      reason: [["gnt:user", "soft drain", 5]],
    });
    expect(add.status).toBe(200);
    const uuid = add.body as string;
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const list = await send("GET", "/2/filters");
    expect(list.body).toContainEqual({ uuid, uri: `/2/filters/${uuid}` });

    const one = (await send("GET", `/2/filters/${uuid}`)).body as Json;
    expect(one).toMatchObject({
      uuid,
      priority: 1,
      action: "PAUSE",
      predicates: [["jobid", [">", "id", "watermark"]]],
    });
    const trail = one.reason_trail as unknown[][];
    expect(trail[0]).toEqual(["gnt:user", "soft drain", 5]);
    expect(trail[1].slice(0, 2)).toEqual(["luxid", ""]);
    expect(typeof trail[1][2]).toBe("number");

    const bulk = (await send("GET", "/2/filters?bulk=1")).body as Json[];
    expect(bulk.find((r) => r.uuid === uuid)).toEqual(one);

    const put = await send("PUT", `/2/filters/${uuid}`, { action: ["RATE_LIMIT", 3] });
    expect(put).toEqual({ status: 200, body: uuid });
    expect(((await send("GET", `/2/filters/${uuid}`)).body as Json).action).toEqual(["RATE_LIMIT", 3]);

    expect(await send("DELETE", `/2/filters/${uuid}`)).toEqual({ status: 200, body: null });
    const again = await send("DELETE", `/2/filters/${uuid}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({
      code: 404,
      message: `Filter rule with UUID ${uuid} does not exist`,
      explain: expect.any(String),
    });
    expect((await send("GET", `/2/filters/${uuid}`)).status).toBe(404);
  });

  it("creates a rule with the uuid a PUT names", async () => {
    const uuid = "0f0f0f0f-1111-4222-8333-444455556666";
    expect(await send("PUT", `/2/filters/${uuid}`, { action: "ACCEPT" })).toEqual({
      status: 200,
      body: uuid,
    });
    expect(((await send("GET", `/2/filters/${uuid}`)).body as Json).action).toBe("ACCEPT");
  });

  it("answers the RAPI's error texts", async () => {
    const cases: [string, string, unknown, string][] = [
      [
        "POST",
        "/2/filters",
        { uuid: "x" },
        "Invalid body parameters: filter rule doesn't support the parameter 'uuid'",
      ],
      ["POST", "/2/filters", [1], "Invalid body contents, not a dictionary"],
      ["POST", "/2/filters", { priority: "1" }, "'priority' parameter: Type is 'str', but 'int' is expected"],
      ["POST", "/2/filters", { priority: -1 }, "priority must be a non-negative integer"],
      ["POST", "/2/filters", { action: ["RATE_LIMIT", 0] }, "RATE_LIMIT argument must be a positive integer"],
      ["POST", "/2/filters", { predicates: [["opcode", ["~", "a", 1]]] }, "Unknown filter operand '~'"],
      ["PUT", "/2/filters/not-a-uuid", {}, "Unable to parse UUID"],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await send(method, path, body);
      expect(res, `${method} ${JSON.stringify(body)}`).toEqual({
        status: 400,
        body: { code: 400, message, explain: expect.any(String) },
      });
    }
    const bulk = await send("GET", "/2/filters?bulk=yes");
    expect(bulk.status).toBe(400);
    expect((bulk.body as Json).message).toBe("Invalid value for the 'bulk' parameter");
  });

  it("tells float literals from integers where Ganeti does", async () => {
    const raw = async (text: string) => {
      const res = await SELF.fetch(`${BASE}/2/filters`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
      });
      return { status: res.status, message: ((await res.json()) as Json).message };
    };
    expect(await raw(`{"priority": 1.0}`)).toEqual({
      status: 400,
      message: "'priority' parameter: Type is 'float', but 'int' is expected",
    });
    expect(await raw(`{"action": ["RATE_LIMIT", 1e1]}`)).toEqual({
      status: 400,
      message: "RATE_LIMIT argument must be a positive integer",
    });
    // In predicates, 1.0 is the integer 1, as Text.JSON reads it.
    expect((await raw(`{"priority": 2, "predicates": [["jobid", ["==", "id", 1.0]]]}`)).status).toBe(200);
  });

  it("requires the admin token for writes and a decision token for reads", async () => {
    const vars = { ADMIN_TOKEN: "admin-secret", DECISION_TOKENS: "reader" };
    const call = async (method: string, path: string, token?: string, body?: unknown) => {
      const ctx = createExecutionContext();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      const init: RequestInit = {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      };
      const res = await app.fetch(new Request(BASE + path, init), { ...testEnv, ...vars }, ctx);
      await waitOnExecutionContext(ctx);
      return res;
    };
    expect((await call("POST", "/2/filters", undefined, {})).status).toBe(401);
    expect((await call("POST", "/2/filters", "reader", {})).status).toBe(403);
    expect((await call("GET", "/2/filters", "reader")).status).toBe(200);
    const ok = await call("POST", "/v1/queues/auth/filters", "admin-secret", { action: "CONTINUE" });
    expect(ok.status).toBe(200);
    expect((await call("POST", "/v1/queues/auth/jobs", undefined, { opcodes: [op("OP_X")] })).status).toBe(
      401,
    );
  });
});

describe("job queue", () => {
  it("stamps the watermark with the highest job id seen, and resets it on replace", async () => {
    const q = "watermark";
    await submit(q, { opcodes: [op("OP_A")] });
    await submit(q, { id: 41, opcodes: [op("OP_A")] });
    const uuid = (
      await send("POST", `/v1/queues/${q}/filters`, {
        predicates: [["jobid", [">", "id", "watermark"]]],
        action: "PAUSE",
      })
    ).body as string;
    expect(((await send("GET", `/v1/queues/${q}/filters/${uuid}`)).body as Json).watermark).toBe(41);

    const next = await submit(q, { opcodes: [op("OP_A")] });
    expect(next).toMatchObject({
      job_id: 42,
      action: "PAUSE",
      rule: uuid,
      run: false,
      state: "queued",
      cacheable: false,
    });
    expect(next.trace).toBeUndefined();
    const explained = (await send("GET", `/v1/queues/${q}/jobs/42?explain=true`)).body as Json;
    expect(explained.trace).toEqual({
      rules: [
        {
          index: 0,
          uuid,
          priority: 0,
          watermark: 41,
          action: "PAUSE",
          matches: true,
          predicates: [{ predicate: ["jobid", [">", "id", "watermark"]], matches: true }],
          result: "applied",
          why: "its predicate holds; PAUSE applies",
        },
      ],
      buckets: [],
    });
    expect(typeof next.decision_id).toBe("string");
    expect(typeof next.revision).toBe("string");

    await send("PUT", `/v1/queues/${q}/filters/${uuid}`, {
      predicates: [["jobid", [">", "id", "watermark"]]],
      action: "PAUSE",
    });
    expect(((await send("GET", `/v1/queues/${q}/filters/${uuid}`)).body as Json).watermark).toBe(42);
    // The paused job is now at the watermark: asking again lets it run.
    expect((await send("GET", `/v1/queues/${q}/jobs/42`)).body).toMatchObject({
      action: "ACCEPT",
      run: true,
      state: "running",
    });
    expect(await stub(q).highestJobId()).toBe(42);
    expect((await send("GET", `/v1/queues/${q}/filters`)).body).toEqual([
      { uuid, uri: `/v1/queues/${q}/filters/${uuid}` },
    ]);
  });

  it("refuses a duplicate job id and an invalid submission", async () => {
    const q = "dupes";
    expect((await submit(q, { id: 5, opcodes: [op("OP_A")] })).run).toBe(true);
    const dup = await send("POST", `/v1/queues/${q}/jobs`, { id: 5, opcodes: [op("OP_A")] });
    expect(dup.status).toBe(409);
    expect((dup.body as { error: Json }).error.code).toBe("conflict");
    const bad = await send("POST", `/v1/queues/${q}/jobs`, { opcodes: [] });
    expect(bad.status).toBe(400);
    expect((await send("GET", `/v1/queues/${q}/jobs/999`)).status).toBe(404);
  });

  it("cancels a held job once a REJECT rule applies to it", async () => {
    const q = "reject";
    await send("POST", `/v1/queues/${q}/filters`, { priority: 5, action: "PAUSE" });
    const held = await submit(q, { opcodes: [op("OP_INSTANCE_CREATE")] });
    expect(held).toMatchObject({ action: "PAUSE", run: false, state: "queued" });
    const reject = (
      await send("POST", `/v1/queues/${q}/filters`, {
        priority: 0,
        predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_CREATE"]]],
        action: "REJECT",
      })
    ).body as string;
    const after = (await send("GET", `/v1/queues/${q}/jobs/${held.job_id}`)).body;
    expect(after).toMatchObject({ action: "REJECT", rule: reject, run: false, state: "cancelled" });
    // A cancelled job stays cancelled even when the rule goes away.
    await send("DELETE", `/v1/queues/${q}/filters/${reject}`);
    expect((await send("GET", `/v1/queues/${q}/jobs/${held.job_id}`)).body).toMatchObject({
      state: "cancelled",
    });
  });

  it("frees a slot when a lease expires through the alarm, and heartbeats and finishes are idempotent", async () => {
    const q = "leases";
    await send("POST", `/v1/queues/${q}/filters`, { action: ["RATE_LIMIT", 1] });
    const first = await submit(q, { opcodes: [op("OP_A")] });
    expect(first).toMatchObject({ action: "ACCEPT", run: true, state: "running" });
    const lease = first.lease as { id: string; expires_at: string };
    expect(Date.parse(lease.expires_at) - Date.now()).toBeGreaterThan(590_000);
    const second = await submit(q, { opcodes: [op("OP_A")] });
    expect(second).toMatchObject({ action: "RATE_LIMITED", run: false, state: "queued" });

    const hb1 = await send("POST", `/v1/queues/${q}/jobs/${first.job_id}/heartbeat`, { lease_id: lease.id });
    const hb2 = await send("POST", `/v1/queues/${q}/jobs/${first.job_id}/heartbeat`);
    expect(hb1.status).toBe(200);
    expect(hb2.body).toMatchObject({ state: "running", lease: { id: lease.id } });
    expect(
      (await send("POST", `/v1/queues/${q}/jobs/${first.job_id}/heartbeat`, { lease_id: "other" })).status,
    ).toBe(409);

    // Age the lease, then let the alarm run.
    await runInDurableObject(stub(q), (instance: JobQueue, state) => {
      void instance;
      state.storage.sql.exec(
        "UPDATE jobs SET lease_expires = ? WHERE id = ?",
        Date.now() - 1,
        first.job_id as number,
      );
    });
    expect(await runDurableObjectAlarm(stub(q))).toBe(true);
    const expired = await send("POST", `/v1/queues/${q}/jobs/${first.job_id}/heartbeat`);
    expect(expired.status).toBe(409);
    expect((expired.body as { error: Json }).error.code).toBe("lease_expired");
    expect((await send("GET", `/v1/queues/${q}/jobs/${first.job_id}`)).body).toMatchObject({
      state: "expired",
      run: false,
    });

    const now = (await send("GET", `/v1/queues/${q}/jobs/${second.job_id}`)).body as Json;
    expect(now).toMatchObject({ action: "ACCEPT", run: true, state: "running" });
    const f1 = await send("POST", `/v1/queues/${q}/jobs/${second.job_id}/finish`);
    const f2 = await send("POST", `/v1/queues/${q}/jobs/${second.job_id}/finish`);
    expect(f1).toEqual(f2);
    expect(f1.body).toMatchObject({ state: "finished", run: false });
    expect((await submit(q, { opcodes: [op("OP_A")] })).run).toBe(true);
  });

  it("frees an overdue lease on the next request even before the alarm runs", async () => {
    const q = "overdue";
    await send("POST", `/v1/queues/${q}/filters`, { action: ["RATE_LIMIT", 1] });
    const first = await submit(q, { opcodes: [op("OP_A")] });
    await runInDurableObject(stub(q), (_instance: JobQueue, state) => {
      state.storage.sql.exec(
        "UPDATE jobs SET lease_expires = ? WHERE id = ?",
        Date.now() - 1,
        first.job_id as number,
      );
    });
    expect(await submit(q, { opcodes: [op("OP_A")] })).toMatchObject({ action: "ACCEPT", run: true });
    expect((await send("GET", `/v1/queues/${q}/jobs/${first.job_id}`)).body).toMatchObject({
      state: "expired",
      run: false,
    });
  });

  it("forgets long-ended jobs when the alarm runs", async () => {
    const q = "prune";
    const done = await submit(q, { opcodes: [op("OP_A")] });
    const recent = await submit(q, { opcodes: [op("OP_A")] });
    await send("POST", `/v1/queues/${q}/jobs/${done.job_id}/finish`);
    await send("POST", `/v1/queues/${q}/jobs/${recent.job_id}/finish`);
    await runInDurableObject(stub(q), (_instance: JobQueue, state) => {
      state.storage.sql.exec("UPDATE jobs SET updated_at = 0 WHERE id = ?", done.job_id as number);
    });
    expect(await runDurableObjectAlarm(stub(q))).toBe(true);
    expect((await send("GET", `/v1/queues/${q}/jobs/${done.job_id}`)).status).toBe(404);
    expect((await send("GET", `/v1/queues/${q}/jobs/${recent.job_id}`)).body).toMatchObject({
      state: "finished",
    });
  });

  it("runs a scheduling pass over held jobs in the given order", async () => {
    const q = "pass";
    const limit = (await send("POST", `/v1/queues/${q}/filters`, { action: ["RATE_LIMIT", 2] }))
      .body as string;
    const running = [await submit(q, { opcodes: [op("OP_A")] }), await submit(q, { opcodes: [op("OP_A")] })];
    const held = [
      await submit(q, { opcodes: [op("OP_A")] }),
      await submit(q, { opcodes: [op("OP_A")] }),
      await submit(q, { opcodes: [op("OP_A")] }),
    ];
    expect(held.every((j) => j.action === "RATE_LIMITED")).toBe(true);
    for (const r of running) await send("POST", `/v1/queues/${q}/jobs/${r.job_id}/finish`);
    const order = [held[2].job_id, held[0].job_id, held[1].job_id] as number[];
    const pass = (await send("POST", `/v1/queues/${q}/schedule`, { queued: order })).body as {
      jobs: Json[];
      started: number[];
      cacheable: boolean;
    };
    expect(pass.cacheable).toBe(false);
    expect(pass.started).toEqual([order[0], order[1]]);
    expect(pass.jobs.map((j) => [j.job_id, j.action, j.rule])).toEqual([
      [order[0], "ACCEPT", limit],
      [order[1], "ACCEPT", limit],
      [order[2], "RATE_LIMITED", limit],
    ]);
    expect(pass).toMatchObject({
      rejected: [],
      held: [order[2]],
      not_held: { running: [], finished: [], cancelled: [], expired: [] },
      unknown: [],
    });
  });

  // Issue 25, item 1: `started` lists exactly the jobs this pass moved from held to running.
  it("never reports a job that was already running as started, and sorts every id named by what the pass did", async () => {
    const q = `sched-${crypto.randomUUID()}`;
    const limit = (
      await send("POST", `/v1/queues/${q}/filters`, {
        priority: 1,
        predicates: [["opcode", ["=", "OP_ID", "OP_X"]]],
        action: ["RATE_LIMIT", 1],
      })
    ).body as string;
    const one = await submit(q, { opcodes: [op("OP_X")] });
    const two = await submit(q, { opcodes: [op("OP_X")] });
    expect([one.action, one.state, two.action, two.state]).toEqual([
      "ACCEPT",
      "running",
      "RATE_LIMITED",
      "queued",
    ]);
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    let pass: Json;
    try {
      pass = (await send("POST", `/v1/queues/${q}/schedule`, { queued: [1, 2] })).body as Json;
    } finally {
      spy.mockRestore();
    }
    expect(pass).toMatchObject({
      cacheable: false,
      started: [],
      rejected: [],
      held: [2],
      not_held: { running: [1], finished: [], cancelled: [], expired: [] },
      unknown: [],
    });
    expect((pass.jobs as Json[]).map((j) => [j.job_id, j.action, j.state, j.rule])).toEqual([
      [1, "ACCEPT", "running", limit],
      [2, "RATE_LIMITED", "queued", limit],
    ]);
    // The lease of job 1 is the one its submission took: the pass did not start it again.
    expect((pass.jobs as Json[])[0].lease).toEqual(one.lease);
    const logged = lines.map((l) => JSON.parse(l) as Json).find((l) => l.decision_id === pass.decision_id);
    expect(logged).toMatchObject({ engine: "jobfilter", outcome: "started_0_of_1" });

    // Job 1 finishes; a pass naming it (twice), job 2 (twice), a cancelled job and unknown ids.
    const reject = (
      await send("POST", `/v1/queues/${q}/filters`, {
        priority: 0,
        predicates: [["opcode", ["=", "OP_ID", "OP_R"]]],
        action: "REJECT",
      })
    ).body as string;
    await send("POST", `/v1/queues/${q}/filters`, {
      priority: 0,
      predicates: [["opcode", ["=", "OP_ID", "OP_P"]]],
      action: "PAUSE",
    });
    const cancelled = await submit(q, { opcodes: [op("OP_R")] });
    expect(cancelled).toMatchObject({ action: "REJECT", state: "cancelled", rule: reject });
    const paused = await submit(q, { opcodes: [op("OP_P")] });
    expect(paused).toMatchObject({ action: "PAUSE", state: "queued" });
    await send("POST", `/v1/queues/${q}/jobs/1/finish`);
    const ids = [2, 1, 2, 999_999, cancelled.job_id, paused.job_id, 1, 888_888] as number[];
    const second = (await send("POST", `/v1/queues/${q}/schedule`, { queued: ids })).body as Json;
    expect(second).toMatchObject({
      started: [2],
      rejected: [],
      held: [paused.job_id],
      not_held: { running: [], finished: [1], cancelled: [cancelled.job_id], expired: [] },
      unknown: [999_999, 888_888],
    });
    expect((second.jobs as Json[]).map((j) => j.job_id)).toEqual([2, 1, cancelled.job_id, paused.job_id]);
    expect((await send("GET", `/v1/queues/${q}/jobs/2`)).body).toMatchObject({ state: "running", run: true });
    // Only job 2 took the single slot: a third job waits.
    expect(await submit(q, { opcodes: [op("OP_X")] })).toMatchObject({ action: "RATE_LIMITED" });
  });

  it("cancels held jobs a REJECT rule now applies to, and reports them as rejected", async () => {
    const q = `sched-${crypto.randomUUID()}`;
    const pause = (await send("POST", `/v1/queues/${q}/filters`, { action: "PAUSE" })).body as string;
    const held = await submit(q, { opcodes: [op("OP_A")] });
    expect(held).toMatchObject({ state: "queued" });
    await send("PUT", `/v1/queues/${q}/filters/${pause}`, { action: "REJECT" });
    const pass = (await send("POST", `/v1/queues/${q}/schedule`, { queued: [held.job_id] })).body as Json;
    expect(pass).toMatchObject({ started: [], rejected: [held.job_id], held: [], unknown: [] });
    expect((pass.jobs as Json[])[0]).toMatchObject({ action: "REJECT", state: "cancelled" });
  });

  it("honours ad-hoc reason buckets across submissions", async () => {
    const q = "adhoc";
    const reason = [["gnt:user", "rate-limit:2:evacuation", 1_700_000_000_000_000_000]];
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(await submit(q, { opcodes: [op("OP_NODE_EVACUATE", { reason })] }));
    expect(answers.map((a) => a.action)).toEqual(["ACCEPT", "ACCEPT", "ADHOC_RATE_LIMITED"]);
  });
});
