/**
 * Issue 28, the playground's jq pane: `POST /v1/playground/jq` runs a jq 1.7.1 program
 * on the posted input in the Worker as `arbiter jq` does (test/playground/jq-route.test.ts
 * compares the two case by case), under the decision budget and the admin token.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

const BASE = "http://arbiter.test";

async function run(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch(`${BASE}/v1/playground/jq`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("POST /v1/playground/jq", () => {
  it("runs `.a + 1` and answers what arbiter jq prints, its exit status and its command line", async () => {
    expect(await run({ program: ".a + 1", input: '{"a": 1}' })).toEqual({
      status: 200,
      body: { stdout: "2\n", stderr: "", exit_status: 0, truncated: false, argv: ["--", ".a + 1"] },
    });
  });

  it("answers jq's own errors with 200: the message on standard error and jq's exit status", async () => {
    const r = await run({ program: ".a", input: "[1]" });
    expect(r).toMatchObject({
      status: 200,
      body: {
        stdout: "",
        stderr: 'jq: error (at <stdin>:0): Cannot index array with string "a"\n',
        exit_status: 5,
      },
    });
    const c = await run({ program: ".a |", input: "1" });
    expect(c.body.exit_status).toBe(3);
    expect(c.body.stderr).toMatch(/^jq: error: syntax error/);
  });

  it("stops a program that would run forever at the decision budget: 422 budget_exceeded", async () => {
    const r = await run({ program: "def f: f + 1; f", input: "0" });
    expect(r.status).toBe(422);
    expect((r.body.error as { code: string }).code).toBe("budget_exceeded");
    const loop = await run({ program: "[range(1e9)] | length", null_input: true });
    expect(loop.status).toBe(422);
  });

  it("refuses an unknown field or a wrong type with 400, naming the field", async () => {
    const r = await run({ program: ".", flags: "-c" });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain("flags");
    const t = await run({ program: ".", compact: "yes" });
    expect(t.status).toBe(400);
    expect(JSON.stringify(t.body)).toContain("compact");
  });

  it("needs the admin token once any token is set", async () => {
    const call = async (token?: string) => {
      const ctx = createExecutionContext();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      const req = new Request(`${BASE}/v1/playground/jq`, {
        method: "POST",
        headers,
        body: JSON.stringify({ program: "." }),
      });
      const res = await app.fetch(
        req,
        { ...(env as unknown as Env), ADMIN_TOKEN: "adm", DECISION_TOKENS: "dec" },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res.status;
    };
    expect(await call()).toBe(401);
    expect(await call("dec")).toBe(403);
    expect(await call("adm")).toBe(200);
  });
});
