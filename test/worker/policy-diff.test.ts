import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DIFF_ENGINES } from "../../src/bundle/diff.js";
import { ENGINE_NAMES } from "../../src/engines/common/engine.js";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

// Issue 29, part 2: `POST /v1/policies/{engine}/diff` answers the semantic diff of two
// sources of one engine's policy (src/bundle/diff.ts), storing nothing.

const BASE = "http://arbiter.test";

interface Report {
  engine: string;
  result: string;
  equivalent: boolean;
  compared: number;
  differing: number;
  pairs: {
    pair: string;
    count: number;
    example: { request: Record<string, unknown>; old: object; new: object };
  }[];
  coverage: { generated: number; captured: number; exhaustive: boolean; stopped: boolean; why: string[] };
  old_revision?: string;
}
interface Failure {
  error: {
    code: string;
    message: string;
    side?: string;
    details?: { code: string; message: string; at: string }[];
  };
}

const placement = (rules: string): string =>
  [
    "partitions:",
    "  - name: default",
    "    placementrules:",
    rules.trimEnd(),
    "    queues:",
    "      - name: root",
    '        submitacl: "*"',
    "        queues:",
    "          - name: a",
    "          - name: b",
    "",
  ].join("\n");
const fixed = (queue: string): string => placement(`      - name: fixed\n        value: ${queue}\n`);

const diff = (engine: string, body: unknown, headers: Record<string, string> = {}) =>
  SELF.fetch(`${BASE}/v1/policies/${engine}/diff`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("POST /v1/policies/{engine}/diff", () => {
  it("answers a pair with a known difference: the pair, its count and an example, storing nothing", async () => {
    const keysBefore = (await env.POLICIES.list()).keys.map((k) => k.name).sort();
    const res = await diff("placement", { old: fixed("a"), new: fixed("b") });
    expect(res.status).toBe(200);
    const r = (await res.json()) as Report;
    expect(r).toMatchObject({ engine: "placement", equivalent: false });
    expect(r.differing).toBe(r.compared);
    expect(r.result).toBe(`${r.compared} of ${r.compared} requests differ`);
    expect(r.pairs.map((p) => [p.pair, p.count])).toEqual([["queue root.a → root.b", r.compared]]);
    expect(r.pairs[0].example.old).toMatchObject({ queue: "root.a" });
    expect(r.pairs[0].example.new).toMatchObject({ queue: "root.b" });
    expect(r.coverage).toMatchObject({ exhaustive: true, stopped: false, captured: 0 });
    expect((await env.POLICIES.list()).keys.map((k) => k.name).sort()).toEqual(keysBefore);
  });

  it("answers an identical pair `equivalent`, and decides captured requests too", async () => {
    const captured = [
      { user: "carol", groups: ["ops"] },
      { partition: "nowhere", user: "dave" },
    ];
    const r = (await (await diff("jobfilter", { old: "[]", new: "[]" })).json()) as Report;
    expect(r).toMatchObject({ result: "equivalent", equivalent: true, differing: 0, pairs: [] });
    const p = (await (
      await diff("placement", { old: fixed("a"), new: fixed("a"), requests: captured })
    ).json()) as Report;
    expect(p).toMatchObject({ result: "equivalent", equivalent: true });
    expect(p.coverage.captured).toBe(2);
    expect(p.compared).toBe(p.coverage.generated + 2);
  });

  it("takes the active policy's source when `old` is left out", async () => {
    const active = (await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { revision: string };
    const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
    const same = (await (await diff("placement", { new: source })).json()) as Report;
    expect(same.old_revision).toBe(active.revision);
    expect(same.differing).toBe(0);
    // the shipped policy has a regex filter: searched, never proven
    expect(same.result).toBe(`no difference found over ${same.compared} requests`);
    const changed = (await (await diff("placement", { new: fixed("a") })).json()) as Report;
    expect(changed.differing).toBeGreaterThan(0);
  });

  it("answers a side that does not validate with 422 policy_invalid naming the side", async () => {
    for (const [body, side] of [
      [{ old: "partitions: 3", new: fixed("a") }, "old"],
      [
        {
          old: fixed("a"),
          new: "partitions:\n  - name: default\n    placementrules:\n      - name: nosuchrule\n",
        },
        "new",
      ],
    ] as const) {
      const res = await diff("placement", body);
      expect(res.status, side).toBe(422);
      const e = ((await res.json()) as Failure).error;
      expect(e).toMatchObject({ code: "policy_invalid", side });
      expect(e.message).toContain(`the ${side} policy does not validate`);
      expect(e.details?.length).toBeGreaterThan(0);
    }
  });

  it("answers bad bodies with a 400 naming the field", async () => {
    const cases: [unknown, string, string][] = [
      [{ old: fixed("a") }, "invalid_request", "/new"],
      [{ new: 3 }, "invalid_request", "/new"],
      [{ new: fixed("a"), requests: {} }, "invalid_request", "/requests"],
      [{ new: fixed("a"), requests: [3] }, "invalid_request", "/requests/0"],
      [{ new: fixed("a"), olds: "x" }, "invalid_request", "/olds"],
      [
        { new: fixed("a"), requests: Array.from({ length: 10_001 }, () => ({})) },
        "too_many_items",
        "/requests",
      ],
    ];
    for (const [body, code, at] of cases) {
      const res = await diff("placement", body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      const e = ((await res.json()) as Failure).error;
      expect(e.code).toBe(code);
      expect(e.details?.[0]?.at).toBe(at);
    }
    expect((await diff("placement", "{")).status).toBe(400);
    const text = await SELF.fetch(`${BASE}/v1/policies/placement/diff`, { method: "POST", body: fixed("a") });
    expect(text.status).toBe(415);
  });

  it("answers a body over the limit with 413, as lint does", async () => {
    const res = await diff("placement", { old: fixed("a"), new: "#".repeat(1024 * 1024) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as Failure).error.code).toBe("payload_too_large");
  });

  const uncovered = ENGINE_NAMES.filter((e) => !DIFF_ENGINES.includes(e));
  it.skipIf(uncovered.length === 0)(
    "answers an engine the diff does not cover with 400 engine_not_supported (skipped once every engine is covered)",
    async () => {
      for (const engine of uncovered) {
        const res = await diff(engine, { new: "x" });
        expect(res.status, engine).toBe(400);
        const e = ((await res.json()) as Failure).error;
        expect(e.code).toBe("engine_not_supported");
        expect(e.message).toContain(DIFF_ENGINES.join(", "));
      }
    },
  );

  it("answers a name that is no engine with 404 unknown_engine", async () => {
    const res = await diff("filters", { new: "[]" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Failure).error).toMatchObject({ code: "unknown_engine" });
  });

  it("bounds the work of a hostile pair: the bound stops it and the answer says so", async () => {
    // 2,000 filtered rules a side (about 250 KB each): 20,000 requests would each walk them all
    const rules = (v: string): string =>
      placement(
        Array.from(
          { length: 2000 },
          (_, i) =>
            `      - name: fixed\n        value: ${i % 2 ? "a" : "b"}\n        filter:\n          type: allow\n          users:\n            - u${i}${v}\n`,
        ).join(""),
      );
    const res = await diff("placement", { old: rules("x"), new: rules("y") });
    expect(res.status).toBe(200);
    const r = (await res.json()) as Report;
    expect(r.coverage.stopped).toBe(true);
    expect(r.equivalent).toBe(false);
    expect(r.coverage.why.join(" ")).toMatch(/work bound/);
  });

  it("is an admin route: 401 without the token, 403 with the decision token", async () => {
    const vars = {
      ...(env as unknown as Env),
      ADMIN_TOKEN: "secret-admin",
      DECISION_TOKENS: "secret-decide",
    };
    const call = async (auth?: string) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}/v1/policies/placement/diff`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(auth ? { authorization: `Bearer ${auth}` } : {}),
          },
          body: JSON.stringify({ old: fixed("a"), new: fixed("b") }),
        }),
        vars,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    expect((await call()).status).toBe(401);
    expect((await call("secret-decide")).status).toBe(403);
    expect((await call("secret-admin")).status).toBe(200);
  });
});
