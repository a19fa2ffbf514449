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

  it("opens only the route classes OPEN_ROUTES names, never admin", async () => {
    const vars = { ...noAgentSecret, OPEN_ROUTES: "agent, admin" };
    expect((await call(vars, "PUT", "/v1/hosts/open1", rogue(171))).status).toBe(200);
    expect((await call(vars, "POST", "/v1/place", { user: "bob" })).status).toBe(401);
    expect((await call(vars, "GET", "/v1/policies")).status).toBe(401);
    const status = (await (await call(vars, "GET", "/v1/status")).json()) as {
      auth: string;
      auth_routes: Record<string, string>;
    };
    expect(status.auth).toBe("enabled");
    expect(status.auth_routes).toEqual({ admin: "token", decision: "token", agent: "open" });
  });

  it("reports each route class in /v1/status", async () => {
    const status = async (vars: Partial<Env>) =>
      ((await (await call(vars, "GET", "/v1/status")).json()) as { auth_routes: unknown }).auth_routes;
    expect(await status(noAgentSecret)).toEqual({ admin: "token", decision: "token", agent: "token" });
    expect(await status({ DECISION_TOKENS: "dec" })).toEqual({
      admin: "closed",
      decision: "token",
      agent: "closed",
    });
    expect(await status({})).toEqual({ admin: "open", decision: "open", agent: "open" });
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
