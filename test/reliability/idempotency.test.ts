import { env, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import { IDEMPOTENCY_TTL_MS, IdempotencyTable } from "../../src/state/idempotency.js";
import type { HostPool } from "../../src/state/host-pool.js";
import type { JobQueue } from "../../src/state/job-queue.js";

// Issue 17, item 4: a retried submission, allocation or filter creation never happens twice.

const BASE = "http://arbiter.test";
const e = env as unknown as Env;

async function post(
  path: string,
  body: unknown,
  key?: string,
): Promise<{ status: number; body: Record<string, unknown>; replayed: boolean }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== undefined) headers["idempotency-key"] = key;
  const res = await SELF.fetch(BASE + path, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    replayed: res.headers.get("idempotent-replayed") === "true",
  };
}

function queueStub(name: string): DurableObjectStub<JobQueue> {
  return e.JOB_QUEUE.get(e.JOB_QUEUE.idFromName(name)) as unknown as DurableObjectStub<JobQueue>;
}

async function jobCount(queue: string): Promise<number> {
  return runInDurableObject(
    queueStub(queue),
    (_q: JobQueue, state) => state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs").one().n,
  );
}

const job = (tag: string) => ({ opcodes: [{ OP_ID: "OP_TEST_DELAY", tag }] });

describe("Idempotency-Key on job submissions", () => {
  it("answers a retry with the first answer and creates one job", async () => {
    const q = `idem-${crypto.randomUUID().slice(0, 8)}`;
    const first = await post(`/v1/queues/${q}/jobs`, job("a"), "key-1");
    expect(first.status).toBe(200);
    expect(first.replayed).toBe(false);
    const again = await post(
      `/v1/queues/${q}/jobs`,
      `{ "opcodes": [ {"OP_ID": "OP_TEST_DELAY", "tag": "a"} ] }`,
      "key-1",
    );
    expect(again.status).toBe(200);
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(first.body);
    expect(await jobCount(q)).toBe(1);
    const other = await post(`/v1/queues/${q}/jobs`, job("a"), "key-2");
    expect(other.body.job_id).toBe((first.body.job_id as number) + 1);
    expect(await jobCount(q)).toBe(2);
  });

  it("refuses the same key with a different body with 422 and writes nothing", async () => {
    const q = `idem-${crypto.randomUUID().slice(0, 8)}`;
    expect((await post(`/v1/queues/${q}/jobs`, job("a"), "k")).status).toBe(200);
    const reused = await post(`/v1/queues/${q}/jobs`, job("b"), "k");
    expect(reused.status).toBe(422);
    expect((reused.body.error as { code: string }).code).toBe("idempotency_key_reused");
    expect(await jobCount(q)).toBe(1);
  });

  it("gives 20 simultaneous retries of one key one job and one answer", async () => {
    const q = `idem-${crypto.randomUUID().slice(0, 8)}`;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => post(`/v1/queues/${q}/jobs`, job("burst"), "same")),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.decision_id)).size).toBe(1);
    expect(answers.filter((a) => !a.replayed)).toHaveLength(1);
    expect(await jobCount(q)).toBe(1);
  });

  it("answers a retry of a refused submission with the same refusal", async () => {
    const q = `idem-${crypto.randomUUID().slice(0, 8)}`;
    expect((await post(`/v1/queues/${q}/jobs`, { id: 5, ...job("x") })).status).toBe(200);
    const refused = await post(`/v1/queues/${q}/jobs`, { id: 5, ...job("x") }, "dup");
    expect(refused.status).toBe(409);
    const again = await post(`/v1/queues/${q}/jobs`, { id: 5, ...job("x") }, "dup");
    expect(again.status).toBe(409);
    expect(again.replayed).toBe(true);
    expect((again.body.error as { message: string }).message).toBe(
      (refused.body.error as { message: string }).message,
    );
  });

  it("refuses a malformed key with 400", async () => {
    for (const key of ["has space", "x".repeat(256), "é"]) {
      const res = await post(`/v1/queues/idem-bad/jobs`, job("a"), key);
      expect(res.status, key).toBe(400);
      expect((res.body.error as { code: string }).code).toBe("invalid_request");
    }
  });

  it("forgets a key after the documented time", async () => {
    await runInDurableObject(queueStub(`idem-ttl`), (_q: JobQueue, state) => {
      const table = new IdempotencyTable(state.storage.sql);
      const idem = { key: "old", fingerprint: "f" };
      table.remember(idem, { status: 200, answer: "x" }, 1_000);
      expect(table.lookup(idem, 1_000 + IDEMPOTENCY_TTL_MS - 1)).toEqual({
        seen: true,
        replay: { status: 200, answer: "x" },
      });
      expect(table.lookup(idem, 1_000 + IDEMPOTENCY_TTL_MS)).toEqual({ seen: false });
      // A later write forgets expired keys.
      table.remember(
        { key: "new", fingerprint: "g" },
        { status: 200, answer: "y" },
        1_000 + IDEMPOTENCY_TTL_MS,
      );
      expect(table.lookup(idem, 0)).toEqual({ seen: false });
    });
  });
});

describe("Idempotency-Key on allocations", () => {
  const report = (name: string, net: number) =>
    SELF.fetch(`${BASE}/v1/hosts/${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        address: `10.${net}.0.${name.length}`,
        net,
        load: 0,
        idleSeconds: 3600,
        swapFreePct: 90,
        jobs: 0,
      }),
    });

  it("gives a retried allocation the first permit, not a second one", async () => {
    const net = 180;
    expect((await report("ws0", net)).status).toBe(200);
    expect((await report("host1", net)).status).toBe(200);
    const request = { client: "ws0", net, fromAddress: `10.${net}.0.200`, user: "alice" };
    const first = await post("/v1/hosts/allocate", request, "alloc-1");
    expect(first.status).toBe(200);
    expect(first.body.host).not.toBeNull();
    const again = await post("/v1/hosts/allocate", request, "alloc-1");
    expect(again.replayed).toBe(true);
    expect(again.body).toEqual(first.body);
    const stub = e.HOST_POOL.get(
      e.HOST_POOL.idFromName(String(net)),
    ) as unknown as DurableObjectStub<HostPool>;
    const permits = await runInDurableObject(
      stub,
      (_p: HostPool, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM permits").one().n,
    );
    expect(permits).toBe(1);
    const reused = await post("/v1/hosts/allocate", { ...request, user: "bob" }, "alloc-1");
    expect(reused.status).toBe(422);
    expect((reused.body.error as { code: string }).code).toBe("idempotency_key_reused");
  });
});

describe("Idempotency-Key on POST /2/filters", () => {
  it("answers a retried rule creation with the first uuid, and a reused key in Ganeti's error shape", async () => {
    const q = `idem-${crypto.randomUUID().slice(0, 8)}`;
    const rule = { action: "PAUSE", predicates: [["opcode", ["=", "OP_ID", "OP_TEST_DELAY"]]] };
    const first = await SELF.fetch(`${BASE}/v1/queues/${q}/filters`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "f1" },
      body: JSON.stringify(rule),
    });
    const uuid = (await first.json()) as string;
    const again = await SELF.fetch(`${BASE}/v1/queues/${q}/filters`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "f1" },
      body: JSON.stringify(rule),
    });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toBe(uuid);
    const list = (await (await SELF.fetch(`${BASE}/v1/queues/${q}/filters`)).json()) as unknown[];
    expect(list).toHaveLength(1);
    const reused = await SELF.fetch(`${BASE}/v1/queues/${q}/filters`, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": "f1" },
      body: JSON.stringify({ action: "REJECT" }),
    });
    expect(reused.status).toBe(422);
    expect(await reused.json()).toEqual({
      code: 422,
      message: expect.stringContaining("Idempotency-Key") as unknown,
      explain: "Unprocessable Entity",
    });
  });
});
