import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

// Issue 17, item 5: a flood of requests at one Durable Object is answered, every one of them:
// what the object cannot take in time is shed at once with 503 `overloaded` and `Retry-After`.

const BASE = "http://arbiter.test";
const limited = { ...(env as unknown as Env), OBJECT_MAX_PENDING: "16" };

async function call(method: string, path: string, body?: unknown, vars: Env = limited): Promise<Response> {
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers: { "content-type": "application/json" } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await app.fetch(new Request(BASE + path, init), vars, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

async function flood(count: number, send: () => Promise<Response>) {
  const answers = await Promise.all(
    Array.from({ length: count }, async () => {
      const res = await send();
      return {
        status: res.status,
        retryAfter: res.headers.get("retry-after"),
        body: (await res.json()) as Record<string, unknown>,
      };
    }),
  );
  const by = (s: number) => answers.filter((a) => a.status === s);
  return { answers, ok: by(200), shed: by(503) };
}

describe("load shedding at one Durable Object", () => {
  it("answers every one of 400 simultaneous GETs at one queue: 200, or 503 overloaded with Retry-After", async () => {
    const q = `flood-${crypto.randomUUID().slice(0, 8)}`;
    expect(
      (await call("POST", `/v1/queues/${q}/jobs`, { id: 1, opcodes: [{ OP_ID: "OP_TEST_DELAY" }] })).status,
    ).toBe(200);
    const { answers, ok, shed } = await flood(400, () => call("GET", `/v1/queues/${q}/jobs/1`));
    expect(ok.length + shed.length).toBe(answers.length);
    expect(ok.length).toBeGreaterThanOrEqual(16);
    expect(shed.length).toBeGreaterThan(0);
    for (const a of shed) {
      expect(a.retryAfter).toBe("1");
      expect((a.body.error as { code: string }).code).toBe("overloaded");
    }
    // Every admitted request let the next one in: the queue takes requests again at once.
    expect((await call("GET", `/v1/queues/${q}/jobs/1`)).status).toBe(200);
  });

  it("sheds the Ganeti filter routes in Ganeti's error shape", async () => {
    const q = `flood-${crypto.randomUUID().slice(0, 8)}`;
    const { shed, ok } = await flood(200, () => call("GET", `/v1/queues/${q}/filters`));
    expect(ok.length).toBeGreaterThan(0);
    expect(shed.length).toBeGreaterThan(0);
    expect(shed[0].retryAfter).toBe("1");
    expect(shed[0].body).toMatchObject({
      code: 503,
      explain: "The server cannot process the request due to a high load",
    });
  });

  it("sheds a host pool's requests per network", async () => {
    const { shed, ok } = await flood(200, () => call("GET", "/v1/hosts?net=77"));
    expect(ok.length).toBeGreaterThan(0);
    expect(shed.length).toBeGreaterThan(0);
    expect((await call("GET", "/v1/hosts?net=78")).status).toBe(200);
  });

  it("sheds nothing under the default bound at this size", async () => {
    const q = `flood-${crypto.randomUUID().slice(0, 8)}`;
    expect(
      (await call("POST", `/v1/queues/${q}/jobs`, { id: 1, opcodes: [{ OP_ID: "OP_TEST_DELAY" }] })).status,
    ).toBe(200);
    const { ok } = await flood(200, () =>
      call("GET", `/v1/queues/${q}/jobs/1`, undefined, env as unknown as Env),
    );
    expect(ok).toHaveLength(200);
  });
});
