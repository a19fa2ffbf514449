import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { app } from "../../src/http/app.js";
import { authStartupLine } from "../../src/http/auth.js";
import type { Env } from "../../src/env.js";

// Issue 17, item 3: auth fails closed once any token is configured.

const BASE = "http://arbiter.test";

async function call(
  vars: Partial<Env>,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const ctx = createExecutionContext();
  const init: RequestInit = { method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  const res = await app.fetch(new Request(BASE + path, init), { ...(env as unknown as Env), ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const rogue = (net: number) => ({
  address: "10.9.0.1",
  net,
  load: 0,
  idleSeconds: 3600,
  swapFreePct: 90,
  freeProcs: 500,
  jobs: 0,
});

describe("auth fails closed", () => {
  const noAgentSecret = { ADMIN_TOKEN: "adm", DECISION_TOKENS: "dec" };

  it("refuses a host report without a token when only ADMIN_TOKEN and DECISION_TOKENS are set", async () => {
    const net = 170;
    const stranger = await call(noAgentSecret, "PUT", "/v1/hosts/rogue", rogue(net));
    expect(stranger.status).toBe(401);
    expect((await call(noAgentSecret, "PUT", "/v1/hosts/rogue", rogue(net), "dec")).status).toBe(403);
    expect((await call(noAgentSecret, "PUT", "/v1/hosts/rogue", rogue(net), "adm")).status).toBe(200);
    const list = (await (
      await call(noAgentSecret, "GET", `/v1/hosts?net=${net}`, undefined, "dec")
    ).json()) as { hosts: { name: string }[] };
    expect(list.hosts.map((h) => h.name)).toEqual(["rogue"]);
  });

  it("refuses to release a permit without a token", async () => {
    const res = await call(noAgentSecret, "POST", "/v1/hosts/rogue/permits/1/finish?net=170");
    expect(res.status).toBe(401);
  });

  it("guards decision routes when only AGENT_TOKENS is set, and admin routes by nobody's token", async () => {
    const vars = { AGENT_TOKENS: "agent-1" };
    expect((await call(vars, "POST", "/v1/place", { user: "bob" })).status).toBe(401);
    expect((await call(vars, "GET", "/v1/policies")).status).toBe(401);
    expect((await call(vars, "GET", "/v1/policies", undefined, "agent-1")).status).toBe(403);
  });

  it("opens only the route classes OPEN_ROUTES names", async () => {
    const vars = { ...noAgentSecret, OPEN_ROUTES: "agent" };
    expect((await call(vars, "PUT", "/v1/hosts/open1", rogue(171))).status).toBe(200);
    expect((await call(vars, "POST", "/v1/place", { user: "bob" })).status).toBe(401);
    expect((await call(vars, "GET", "/v1/policies")).status).toBe(401);
    const status = (await (await call(vars, "GET", "/v1/status", undefined, "adm")).json()) as {
      auth: string;
      auth_routes: Record<string, string>;
    };
    expect(status.auth).toBe("enabled");
    expect(status.auth_routes).toEqual({
      admin: "token",
      decision: "token",
      agent: "open",
      metrics: "token",
    });
  });

  it("reports each route class in /v1/status", async () => {
    const status = async (vars: Partial<Env>, token?: string) =>
      ((await (await call(vars, "GET", "/v1/status", undefined, token)).json()) as { auth_routes: unknown })
        .auth_routes;
    expect(await status(noAgentSecret, "adm")).toEqual({
      admin: "token",
      decision: "token",
      agent: "token",
      metrics: "token",
    });
    expect(await status({ DECISION_TOKENS: "dec", METRICS_TOKEN: "mon" }, "mon")).toEqual({
      admin: "closed",
      decision: "token",
      agent: "closed",
      metrics: "token",
    });
    expect(await status({})).toEqual({ admin: "open", decision: "open", agent: "open", metrics: "open" });
  });

  it("stays open without any secret and says so at startup, naming no token", async () => {
    expect((await call({}, "PUT", "/v1/hosts/dev1", rogue(172))).status).toBe(200);
    const open = JSON.parse(authStartupLine({} as Env)) as { mode: string; warning?: string };
    expect(open.mode).toBe("disabled");
    expect(open.warning).toContain("every route is open");
    const closed = authStartupLine({ ADMIN_TOKEN: "s3cret-admin", DECISION_TOKENS: "s3cret-dec" } as Env);
    expect(closed).not.toContain("s3cret");
    expect((JSON.parse(closed) as { warning?: string }).warning).toBeUndefined();
  });

  it("logs the startup line when the Worker module loads", async () => {
    const spy = vi.spyOn(console, "log");
    try {
      vi.resetModules();
      await import("../../src/worker.js");
      expect(spy.mock.calls.some((c) => String(c[0]).includes('"event":"auth"'))).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});

// Issue 25, item 3: a secret that is set but holds no token is a configuration error, never "no auth".
describe("a blank secret or an OPEN_ROUTES it cannot honour", () => {
  const guarded: [string, string, unknown?][] = [
    ["GET", "/v1/policies"],
    ["POST", "/v1/place", { user: "bob" }],
    ["PUT", "/v1/hosts/blank1?net=173", rogue(173)],
    ["GET", "/metrics"],
    ["GET", "/2/filters"],
    ["POST", "/v1/playground/placement", { policy: "", request: {} }],
  ];

  for (const [name, value] of [
    ["ADMIN_TOKEN", ""],
    ["ADMIN_TOKEN", " "],
    ["ADMIN_TOKEN", ","],
    ["DECISION_TOKENS", " , "],
    ["AGENT_TOKENS", ""],
    ["METRICS_TOKEN", "\t"],
  ] as const) {
    it(`refuses every guarded route with 503 auth_misconfigured when ${name}=${JSON.stringify(value)}`, async () => {
      // Alone, and beside another secret that does hold a token (whose holder is refused too).
      const other = name === "ADMIN_TOKEN" ? "AGENT_TOKENS" : "ADMIN_TOKEN";
      for (const vars of [{ [name]: value }, { [other]: "ok-token", [name]: value }]) {
        for (const [method, path, body] of guarded) {
          for (const token of [undefined, "ok-token"]) {
            const res = await call(vars, method, path, body, token);
            expect(res.status, `${method} ${path}`).toBe(503);
            const text = await res.text();
            expect(text, `${method} ${path}`).toContain(name);
            if (!path.startsWith("/2/"))
              expect((JSON.parse(text) as { error: { code: string } }).error.code).toBe("auth_misconfigured");
          }
        }
        const status = (await (await call(vars, "GET", "/v1/status")).json()) as Record<string, unknown>;
        expect(status).toEqual({
          ok: false,
          auth: "misconfigured",
          auth_problems: [expect.stringContaining(name)],
        });
      }
    });
  }

  it("says so in the startup log, one JSON object naming the variable and not its value", () => {
    const line = authStartupLine({ ADMIN_TOKEN: " ", DECISION_TOKENS: "dec-visible" } as Env);
    expect(line).not.toContain("\n");
    const parsed = JSON.parse(line) as { mode: string; error: string; problems: string[] };
    expect(parsed.mode).toBe("misconfigured");
    expect(parsed.error).toBe("auth_misconfigured");
    expect(parsed.problems).toEqual([expect.stringContaining("ADMIN_TOKEN")]);
    expect(line).not.toContain("dec-visible");
  });

  it("refuses OPEN_ROUTES=admin and unknown classes instead of ignoring them", async () => {
    for (const open of ["admin", "decision,admin", "metrics", "everything"]) {
      const vars = { ADMIN_TOKEN: "adm", DECISION_TOKENS: "dec", OPEN_ROUTES: open };
      expect((await call(vars, "GET", "/v1/policies", undefined, "adm")).status, open).toBe(503);
      const res = await call(vars, "POST", "/v1/place", { user: "bob" }, "dec");
      expect(res.status, open).toBe(503);
      expect(((await res.json()) as { error: { code: string; message: string } }).error.message).toContain(
        "OPEN_ROUTES",
      );
      const line = JSON.parse(authStartupLine(vars as Env)) as { mode: string; problems: string[] };
      expect(line.mode).toBe("misconfigured");
    }
  });

  it("keeps local-development mode only for the complete absence of every secret", async () => {
    expect((await call({}, "GET", "/v1/policies")).status).toBe(200);
    const status = (await (await call({}, "GET", "/v1/status")).json()) as { auth: string };
    expect(status.auth).toBe("disabled");
    expect((await call({ OPEN_ROUTES: "decision" }, "GET", "/v1/policies")).status).toBe(200);
  });

  it("works again once the secret holds a token", async () => {
    expect((await call({ ADMIN_TOKEN: "" }, "GET", "/v1/policies", undefined, "adm")).status).toBe(503);
    expect((await call({ ADMIN_TOKEN: "adm" }, "GET", "/v1/policies", undefined, "adm")).status).toBe(200);
  });
});

// Issue 25, item 6: a read-only monitoring role, and a status that says little without a token.
describe("METRICS_TOKEN", () => {
  const vars = { ADMIN_TOKEN: "adm-m", DECISION_TOKENS: "dec-m", METRICS_TOKEN: "prom-1, prom-2" };

  it("opens GET /metrics and the full /v1/status, as the admin token does", async () => {
    for (const token of ["prom-1", "prom-2", "adm-m"]) {
      const metrics = await call(vars, "GET", "/metrics", undefined, token);
      expect(metrics.status, token).toBe(200);
      expect(await metrics.text()).toContain("arbiter_");
      const status = (await (await call(vars, "GET", "/v1/status", undefined, token)).json()) as Record<
        string,
        unknown
      >;
      expect(status.ok).toBe(true);
      expect(typeof status.revision).toBe("string");
      expect(status.metrics).toBeDefined();
    }
    expect((await call(vars, "GET", "/metrics", undefined, "dec-m")).status).toBe(403);
    expect((await call(vars, "GET", "/metrics")).status).toBe(401);
    expect((await call(vars, "GET", "/v1/status", undefined, "dec-m")).status).toBe(403);
  });

  it("opens nothing else", async () => {
    const routes: [string, string, unknown?][] = [
      ["GET", "/v1/policies"],
      ["PUT", "/v1/policies/customs", {}],
      ["POST", "/v1/place", { user: "bob" }],
      ["GET", "/v1/hosts?net=174"],
      ["PUT", "/v1/hosts/mon1?net=174", rogue(174)],
      ["GET", "/v1/candidate"],
      ["GET", "/v1/queues/metrics-only/filters"],
      ["POST", "/v1/playground/placement", { policy: "", request: {} }],
    ];
    for (const [method, path, body] of routes)
      expect((await call(vars, method, path, body, "prom-1")).status, `${method} ${path}`).toBe(403);
    expect((await call(vars, "GET", "/2/filters", undefined, "prom-1")).status).toBe(403);
  });

  it("leaves /metrics to the admin token when unset", async () => {
    const adminOnly = { ADMIN_TOKEN: "adm-m" };
    expect((await call(adminOnly, "GET", "/metrics", undefined, "adm-m")).status).toBe(200);
    expect((await call(adminOnly, "GET", "/metrics", undefined, "prom-1")).status).toBe(403);
  });

  it("shows only ok and the auth mode on /v1/status without a token", async () => {
    const res = await call(vars, "GET", "/v1/status");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, auth: "enabled" });
  });
});
