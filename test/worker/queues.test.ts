import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env.js";
import type { JobQueue } from "../../src/state/job-queue.js";

const BASE = "http://arbiter.test";
const testEnv = env as unknown as Env;

type Json = Record<string, unknown>;

async function send(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const res = await SELF.fetch(BASE + path, init);
  const text = await res.text();
  return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json) };
}

const job = (id: number, OP_ID = "OP_RUN") => ({ id, opcodes: [{ OP_ID }] });

function stub(queue: string): DurableObjectStub<JobQueue> {
  return testEnv.JOB_QUEUE.get(testEnv.JOB_QUEUE.idFromName(queue)) as unknown as DurableObjectStub<JobQueue>;
}

/**
 * Runs `change` on the queue object's storage, then starts the object again over
 * that storage as the runtime does after an eviction: a new instance, whose
 * start-up (`blockConcurrencyWhile`) runs before any other call reaches it.
 */
async function changeAndRestart(queue: string, change: (sql: SqlStorage) => void): Promise<void> {
  await runInDurableObject(stub(queue), async (first: JobQueue, state) => {
    change(state.storage.sql);
    new (first.constructor as new (s: DurableObjectState, e: Env) => JobQueue)(state, testEnv);
    await state.blockConcurrencyWhile(async () => {});
  });
}

/** The jobs table as the first release created it: no submission or start times. */
const OLD_JOBS_TABLE = `CREATE TABLE jobs (
  id INTEGER PRIMARY KEY, job TEXT NOT NULL, priority INTEGER NOT NULL, state TEXT NOT NULL, action TEXT NOT NULL,
  rule TEXT, lease_id TEXT, lease_expires INTEGER, updated_at INTEGER NOT NULL)`;

/** A queue whose `OP_HOLD` jobs are held (PAUSE) and whose other jobs run. */
async function queueWithHold(q: string): Promise<void> {
  const rule = await send("POST", `/v1/queues/${q}/filters`, {
    priority: 0,
    predicates: [["opcode", ["=", "OP_ID", "OP_HOLD"]]],
    action: "PAUSE",
  });
  expect(rule.status).toBe(200);
}

describe("GET /v1/queues/{queue}/jobs", () => {
  it("lists jobs newest first, by state, a page at a time", async () => {
    const q = "qlist-a";
    await queueWithHold(q);
    for (const id of [1, 2, 3, 4, 5])
      await send("POST", `/v1/queues/${q}/jobs`, job(id, id % 2 === 0 ? "OP_HOLD" : "OP_RUN"));
    await send("POST", `/v1/queues/${q}/jobs/5/finish`);

    const all = await send("GET", `/v1/queues/${q}/jobs`);
    expect(all.status).toBe(200);
    expect((all.body.jobs as Json[]).map((j) => [j.id, j.state])).toEqual([
      [5, "finished"],
      [4, "queued"],
      [3, "running"],
      [2, "queued"],
      [1, "running"],
    ]);
    expect(all.body.cursor).toBeNull();
    const running = (all.body.jobs as Json[]).find((j) => j.id === 3) as Json;
    expect(running).toMatchObject({ action: "ACCEPT", rule: null, priority: 0 });
    expect(Date.parse(running.lease_expires_at as string)).toBeGreaterThan(Date.now());
    expect((all.body.jobs as Json[]).find((j) => j.id === 4)).toMatchObject({
      action: "PAUSE",
      lease_expires_at: null,
    });

    const held = await send("GET", `/v1/queues/${q}/jobs?state=queued`);
    expect((held.body.jobs as Json[]).map((j) => j.id)).toEqual([4, 2]);
    const ended = await send("GET", `/v1/queues/${q}/jobs?state=finished`);
    expect((ended.body.jobs as Json[]).map((j) => j.id)).toEqual([5]);

    const first = await send("GET", `/v1/queues/${q}/jobs?limit=2`);
    expect((first.body.jobs as Json[]).map((j) => j.id)).toEqual([5, 4]);
    expect(first.body.cursor).toBe("4");
    const second = await send("GET", `/v1/queues/${q}/jobs?limit=2&cursor=4`);
    expect((second.body.jobs as Json[]).map((j) => j.id)).toEqual([3, 2]);
    const third = await send("GET", `/v1/queues/${q}/jobs?limit=2&cursor=${second.body.cursor as string}`);
    expect((third.body.jobs as Json[]).map((j) => j.id)).toEqual([1]);
    expect(third.body.cursor).toBeNull();
  });

  it("shows when each job was submitted, started and ended, and when its lease runs out", async () => {
    const q = "qlist-times";
    await queueWithHold(q);
    const before = Date.now();
    await send("POST", `/v1/queues/${q}/jobs`, job(1));
    await send("POST", `/v1/queues/${q}/jobs`, job(2, "OP_HOLD"));
    await send("POST", `/v1/queues/${q}/jobs`, job(3));
    await send("POST", `/v1/queues/${q}/jobs/3/finish`);
    const after = Date.now();
    const jobs = (await send("GET", `/v1/queues/${q}/jobs`)).body.jobs as Json[];
    const at = (j: Json, field: string) => (j[field] === null ? null : Date.parse(j[field] as string));
    const [finished, held, running] = jobs;
    expect(jobs.map((j) => j.id)).toEqual([3, 2, 1]);
    for (const j of jobs) {
      expect(at(j, "submitted_at")).toBeGreaterThanOrEqual(before);
      expect(at(j, "submitted_at")).toBeLessThanOrEqual(after);
    }
    // decided at submission: a job that runs starts when submitted
    expect(at(running, "started_at")).toBe(at(running, "submitted_at"));
    expect(running).toMatchObject({ state: "running", ended_at: null });
    expect(at(running, "lease_expires_at")).toBeGreaterThan(after);
    expect(held).toMatchObject({ state: "queued", started_at: null, ended_at: null, lease_expires_at: null });
    expect(finished).toMatchObject({ state: "finished", lease_expires_at: null });
    expect(at(finished, "started_at")).toBe(at(finished, "submitted_at"));
    expect(at(finished, "ended_at")).toBeGreaterThanOrEqual(at(finished, "started_at") as number);
    expect(at(finished, "ended_at")).toBeLessThanOrEqual(after);
  });

  it("lists jobs stored before submission and start times were recorded, and records them from then on", async () => {
    const q = "qlist-old";
    const lease = Date.now() + 600_000;
    await changeAndRestart(q, (sql) => {
      sql.exec("DROP TABLE jobs");
      sql.exec(OLD_JOBS_TABLE);
      const insert =
        "INSERT INTO jobs (id, job, priority, state, action, rule, lease_id, lease_expires, updated_at) VALUES (?, ?, 0, ?, 'ACCEPT', NULL, ?, ?, ?)";
      sql.exec(insert, 1, JSON.stringify(job(1)), "finished", null, null, Date.UTC(2026, 0, 2));
      sql.exec(insert, 2, JSON.stringify(job(2)), "running", "lease-2", lease, Date.UTC(2026, 0, 3));
      sql.exec("INSERT INTO meta (key, value) VALUES ('name', ?), ('highest_job_id', '2')", q);
      sql.exec("DELETE FROM meta WHERE key = 'jobs_columns'");
    });
    // a queue made before the registry: listed once its object starts again
    expect(await testEnv.POLICIES.get(`queue:${q}`)).toBe("");
    const old = await send("GET", `/v1/queues/${q}/jobs`);
    expect(old.status).toBe(200);
    expect(old.body.jobs).toEqual([
      {
        id: 2,
        state: "running",
        action: "ACCEPT",
        rule: null,
        priority: 0,
        submitted_at: null,
        started_at: null,
        ended_at: null,
        lease_expires_at: new Date(lease).toISOString(),
      },
      {
        id: 1,
        state: "finished",
        action: "ACCEPT",
        rule: null,
        priority: 0,
        submitted_at: null,
        started_at: null,
        ended_at: "2026-01-02T00:00:00.000Z",
        lease_expires_at: null,
      },
    ]);
    // the old running job keeps working; a new job gets its times
    expect((await send("POST", `/v1/queues/${q}/jobs/2/finish`)).body).toMatchObject({ state: "finished" });
    await send("POST", `/v1/queues/${q}/jobs`, job(3));
    const now = (await send("GET", `/v1/queues/${q}/jobs?limit=1`)).body.jobs as Json[];
    expect(now[0]).toMatchObject({ id: 3, state: "running" });
    expect(typeof now[0].submitted_at).toBe("string");
    expect(now[0].started_at).toBe(now[0].submitted_at);
  });

  it("refuses bad parameters with 400 invalid_request naming the field", async () => {
    for (const [query, field] of [
      ["state=done", "`state`"],
      ["limit=0", "`limit`"],
      ["limit=501", "`limit`"],
      ["limit=x", "`limit`"],
      ["cursor=-1", "`cursor`"],
    ]) {
      const res = await send("GET", `/v1/queues/qlist-b/jobs?${query}`);
      expect(res.status, query).toBe(400);
      const error = res.body.error as Json;
      expect(error.code).toBe("invalid_request");
      expect(error.message).toContain(field);
    }
    expect((await send("GET", "/v1/queues/qlist-b/jobs?limit=500")).status).toBe(200);
  });
});

describe("DELETE /v1/queues/{queue}/jobs/{id}", () => {
  it("drops a held job and frees a running job's slot, idempotently, logging each", async () => {
    const q = "qcancel-a";
    // one slot: a second runnable job is rate-limited until the first ends
    await send("POST", `/v1/queues/${q}/filters`, { priority: 1, predicates: [], action: ["RATE_LIMIT", 1] });
    const log = vi.spyOn(console, "log");
    try {
      expect((await send("POST", `/v1/queues/${q}/jobs`, job(1))).body).toMatchObject({ state: "running" });
      expect((await send("POST", `/v1/queues/${q}/jobs`, job(2))).body).toMatchObject({
        state: "queued",
        action: "RATE_LIMITED",
      });

      const held = await send("DELETE", `/v1/queues/${q}/jobs/2`);
      expect(held).toEqual({
        status: 200,
        body: { job_id: 2, action: "RATE_LIMITED", rule: held.body.rule, run: false, state: "cancelled" },
      });
      const running = await send("DELETE", `/v1/queues/${q}/jobs/1`);
      expect(running.body).toMatchObject({ job_id: 1, state: "cancelled", run: false });

      // the slot is free again: a new job runs at once
      expect((await send("POST", `/v1/queues/${q}/jobs`, job(3))).body).toMatchObject({ state: "running" });
      // cancelling again answers the same; a cancelled job is not decided again
      expect(await send("DELETE", `/v1/queues/${q}/jobs/1`)).toEqual(running);
      expect((await send("GET", `/v1/queues/${q}/jobs/2`)).body).toMatchObject({ state: "cancelled" });

      const lines = log.mock.calls
        .map((args) => JSON.parse(String(args[0])) as Json)
        .filter((l) => l.event === "job_cancelled");
      expect(lines.map((l) => [l.queue, l.job_id, l.was])).toEqual([
        [q, 2, "queued"],
        [q, 1, "running"],
      ]);
    } finally {
      log.mockRestore();
    }
  });

  it("answers a finished job's state and 404 for an unknown id", async () => {
    const q = "qcancel-b";
    await send("POST", `/v1/queues/${q}/jobs`, job(1));
    await send("POST", `/v1/queues/${q}/jobs/1/finish`);
    expect((await send("DELETE", `/v1/queues/${q}/jobs/1`)).body).toMatchObject({
      job_id: 1,
      state: "finished",
    });
    const missing = await send("DELETE", `/v1/queues/${q}/jobs/99`);
    expect(missing.status).toBe(404);
    expect((missing.body.error as Json).code).toBe("not_found");
    expect((await send("DELETE", `/v1/queues/${q}/jobs/abc`)).status).toBe(400);
  });
});

describe("GET /v1/queues", () => {
  it("lists the registered queues with their counts and watermark", async () => {
    const q = "qdir-a";
    await queueWithHold(q);
    await send("POST", `/v1/queues/${q}/jobs`, job(7));
    await send("POST", `/v1/queues/${q}/jobs`, job(8, "OP_HOLD"));
    await send("POST", `/v1/queues/${q}/jobs`, job(9));
    await send("POST", `/v1/queues/${q}/jobs/9/finish`);
    const res = await send("GET", "/v1/queues");
    expect(res.status).toBe(200);
    const row = (res.body.queues as Json[]).find((r) => r.queue === q);
    expect(row).toEqual({ queue: q, running: 1, queued: 1, finished: 1, watermark: 9 });
    expect(await testEnv.POLICIES.get(`queue:${q}`)).toBe("");
  });

  it("lists a queue made before the registry at its next alarm", async () => {
    const q = "qdir-old";
    await send("POST", `/v1/queues/${q}/jobs`, job(1));
    await send("POST", `/v1/queues/${q}/jobs`, job(2));
    // as a queue that stored its jobs before the registry existed: not in KV, not marked registered
    await testEnv.POLICIES.delete(`queue:${q}`);
    await runInDurableObject(stub(q), (_q: JobQueue, state) => {
      state.storage.sql.exec("DELETE FROM meta WHERE key = 'registered'");
    });
    const listed = async () =>
      ((await send("GET", "/v1/queues")).body.queues as Json[]).find((r) => r.queue === q);
    expect(await listed()).toBeUndefined();
    // the lease alarm is the only thing that reaches it
    expect(await runDurableObjectAlarm(stub(q))).toBe(true);
    expect(await testEnv.POLICIES.get(`queue:${q}`)).toBe("");
    expect(await listed()).toEqual({ queue: q, running: 2, queued: 0, finished: 0, watermark: 2 });
  });

  it("does not list a queue that was only read, never given a job or filter", async () => {
    expect((await send("GET", "/v1/queues/qdir-never/jobs")).status).toBe(200);
    await changeAndRestart("qdir-never", () => undefined);
    expect((await send("GET", "/v1/queues/qdir-never/jobs/1")).status).toBe(404);
    expect(await testEnv.POLICIES.get("queue:qdir-never")).toBeNull();
  });

  it("pages through the registry", async () => {
    for (const q of ["qdir-p1", "qdir-p2", "qdir-p3"]) await send("POST", `/v1/queues/${q}/jobs`, job(1));
    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await send(
        "GET",
        `/v1/queues?limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      expect((res.body.queues as Json[]).length).toBeLessThanOrEqual(1);
      names.push(...(res.body.queues as Json[]).map((r) => r.queue as string));
      cursor = res.body.cursor as string | null;
      pages++;
    } while (cursor !== null && pages < 1000);
    expect(names).toEqual(expect.arrayContaining(["qdir-p1", "qdir-p2", "qdir-p3"]));
    expect((await send("GET", "/v1/queues?limit=101")).status).toBe(400);
  });
});
