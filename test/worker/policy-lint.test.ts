import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

const BASE = "http://arbiter.test";

interface Answer {
  engine: string;
  findings: { code: string; severity: string; message: string; at: string }[];
  counts: { warning: number; info: number };
}

const shadowed = `partitions:
  - name: default
    placementrules:
      - name: fixed
        value: root.default
      - name: user
        create: true
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: default
`;

const lint = (engine: string, body: string) =>
  SELF.fetch(`${BASE}/v1/policies/${engine}/lint`, { method: "POST", body });

describe("POST /v1/policies/{engine}/lint", () => {
  it("answers the findings of a policy with their codes and places, storing nothing", async () => {
    const keysBefore = (await env.POLICIES.list()).keys.map((k) => k.name).sort();
    const res = await lint("placement", shadowed);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer;
    expect(body.engine).toBe("placement");
    expect(body.findings).toEqual([
      {
        code: "placement_unreachable_rule",
        severity: "warning",
        message: expect.stringContaining(
          "rule 2 (`user`) is never reached: rule 1 (`fixed root.default`) places every application in root.default first",
        ) as string,
        at: "6:9",
      },
    ]);
    expect(body.counts).toEqual({ warning: 1, info: 0 });
    expect((await env.POLICIES.list()).keys.map((k) => k.name).sort()).toEqual(keysBefore);
  });

  it("lints every engine's shipped policy without a warning", async () => {
    for (const engine of ["limits", "placement", "match", "customs", "jobfilter"]) {
      const source = await (await SELF.fetch(`${BASE}/v1/policies/${engine}`)).text();
      const res = await lint(engine, source);
      expect(res.status, engine).toBe(200);
      expect(((await res.json()) as Answer).counts.warning, engine).toBe(0);
    }
  });

  it("answers an invalid policy with the 422 validation gives, errors placed", async () => {
    const res = await lint("customs", '{\n  "defaults": {"maxLoad": 2\n}\n');
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { code: string; details: { message: string; at: string }[] };
    };
    expect(body.error.code).toBe("policy_invalid");
    expect(body.error.details[0]).toMatchObject({
      message: "not valid JSON: Expecting ',' delimiter",
      at: "4:1",
    });
  });

  it("answers an unknown engine with 404 and asks for the admin token when one is set", async () => {
    expect((await lint("pool", "x")).status).toBe(404);
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/v1/policies/placement/lint`, { method: "POST", body: shadowed }),
      { ...(env as unknown as Env), ADMIN_TOKEN: "secret-admin" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(401);
  });
});
