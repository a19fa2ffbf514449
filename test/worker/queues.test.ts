import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env.js";

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
