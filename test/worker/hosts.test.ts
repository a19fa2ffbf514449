import {
  createExecutionContext,
  env,
  runDurableObjectAlarm,
  runInDurableObject,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_POLICY_DATA, normalizeHost, type Host } from "../../src/engines/customs/index.js";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";
import type { HostPool, PoolPolicy } from "../../src/state/host-pool.js";

const BASE = "http://arbiter.test";
/** The built-in policy opened to every address, for the tests that hand the Durable Object a policy of their own (the HTTP routes use policies/customs.json, which is not open). */
const OPEN_DATA = {
  ...DEFAULT_POLICY_DATA,
  defaults: { ...DEFAULT_POLICY_DATA.defaults, allow: ["0.0.0.0/0", "::/0"] },
};
const POLICY: PoolPolicy = { revision: "test", data: OPEN_DATA };

interface ReportBody {
  available: boolean;
  rating: number | null;
  reason?: string;
  interval: number;
  limits: Record<string, number>;
  instructions: { permit: number; signal: string; at: string; cancel?: true }[];
}
interface AllocateBody {
  decision_id: string;
  revision: string;
  cacheable: boolean;
  host: string | null;
  address: string | null;
  permit: { id: number; expires_at: string } | null;
  limits: Record<string, number> | null;
  reason?: string;
}
interface ListBody {
  net: number;
  hosts: {
    name: string;
    available: boolean;
    rating: number | null;
    reason?: string;
    down: boolean;
    jobs: number;
    pending: number;
    permits: number[];
  }[];
}

const send = (method: string, path: string, body?: unknown) =>
  SELF.fetch(BASE + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A host that is idle, lightly loaded and has swap: available under the default criteria. */
function idleHost(name: string, net: number, extra: Record<string, unknown> = {}) {
  return {
    address: `10.${net}.0.${name.length}`,
    net,
    load: 0,
    swapFreePct: 50,
    jobs: 0,
    idleSeconds: 2000,
    ...extra,
  };
}

async function report(name: string, body: unknown): Promise<ReportBody> {
  const res = await send("PUT", `/v1/hosts/${name}`, body);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as ReportBody;
}

async function allocate(request: Record<string, unknown>): Promise<AllocateBody> {
  // A client on the network the hosts of `net` are attached to (idleHost puts them in 10.<net>.0.0/24).
  const res = await send("POST", "/v1/hosts/allocate", {
    fromAddress: `10.${Number(request.net ?? 0)}.0.200`,
    user: "alice",
    ...request,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as AllocateBody;
}

async function list(net: number): Promise<ListBody> {
  const res = await send("GET", `/v1/hosts?net=${net}`);
  expect(res.status).toBe(200);
  return (await res.json()) as ListBody;
}

function stub(net: number): DurableObjectStub<HostPool> {
  const ns = (env as unknown as Env).HOST_POOL;
  return ns.get(ns.idFromName(String(net))) as unknown as DurableObjectStub<HostPool>;
}

function host(name: string, net: number, extra: Record<string, unknown> = {}): Host {
  const h = normalizeHost({ name, ...idleHost(name, net, extra) }, OPEN_DATA.defaults);
  if (!h.ok) throw new Error(JSON.stringify(h.error));
  return h.value;
}

describe("host reports and allocations", () => {
  it("rates a reported host, allocates it with a permit and limits, and counts the job until the next report", async () => {
    const net = 101;
    const r = await report("ws0", idleHost("ws0", net));
    expect(r).toMatchObject({ available: true, rating: 1100 + 25 + 128, interval: 10, instructions: [] });
    expect(r.limits).toEqual({ cpuSeconds: 0, memoryKb: 0, nice: 4, npri: 0 });
    await report("a", idleHost("a", net, { bias: 10, maxJobs: 3, cpuSeconds: 600 }));
    await report("b", idleHost("b", net));

    const first = await allocate({ client: "ws0", net });
    expect(first).toMatchObject({
      host: "a",
      cacheable: false,
      limits: { cpuSeconds: 600, memoryKb: 0, nice: 4, npri: 0 },
    });
    expect(first.address).toBe("10.101.0.1");
    expect(first.permit?.id).toBeGreaterThan(0);
    expect(Date.parse(first.permit!.expires_at)).toBeGreaterThan(Date.now());
    expect(first.decision_id).toMatch(/[0-9a-f-]{36}/);
    expect(typeof first.revision).toBe("string");

    // a now carries one more job (rating - 200), so b wins the next allocation.
    const listed = await list(net);
    const a = listed.hosts.find((h) => h.name === "a")!;
    expect(a).toMatchObject({ pending: 1, jobs: 0, rating: 1263 - 200, permits: [first.permit!.id] });
    const second = await allocate({ client: "ws0", net });
    expect(second.host).toBe("b");

    // the next report of a replaces the counted job by the reported one.
    await report("a", idleHost("a", net, { bias: 10, maxJobs: 3, cpuSeconds: 600, jobs: 1 }));
    expect((await list(net)).hosts.find((h) => h.name === "a")).toMatchObject({ pending: 0, jobs: 1 });

    const finished = await send("POST", `/v1/hosts/a/permits/${first.permit!.id}/finish?net=${net}`);
    expect(finished.status).toBe(200);
    expect((await list(net)).hosts.find((h) => h.name === "a")!.permits).toEqual([]);
    const again = await send("POST", `/v1/hosts/a/permits/${first.permit!.id}/finish?net=${net}`);
    expect(again.status).toBe(404);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("permit_not_found");
  });

  it("answers no host, with the reason, when nothing qualifies", async () => {
    const net = 102;
    await report("ws0", idleHost("ws0", net));
    await report("busy", idleHost("busy", net, { load: 3 }));
    const r = await allocate({ client: "ws0", net });
    expect(r).toMatchObject({
      host: null,
      address: null,
      permit: null,
      limits: null,
      reason: "no host available",
      cacheable: false,
    });
    expect((await list(net)).hosts.find((h) => h.name === "busy")).toMatchObject({
      available: false,
      reason: "AVAIL_LOAD",
    });
  });

  it("refuses out-of-range settings naming the field, and a body that names another host", async () => {
    const res = await send("PUT", "/v1/hosts/x", idleHost("x", 103, { maxLoad: 0.1 }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { at: string }[] };
    };
    expect(body.error.code).toBe("invalid_host_report");
    expect(body.error.message).toContain("maxLoad");
    expect(body.error.details[0].at).toBe("/maxLoad");
    for (const address of ["999.1.1.1", "not-an-ip", "10.0.0.0/8"]) {
      const bad = await send("PUT", "/v1/hosts/x", idleHost("x", 103, { address }));
      expect(bad.status, address).toBe(400);
      const badBody = (await bad.json()) as {
        error: { code: string; message: string; details: { at: string }[] };
      };
      expect(badBody.error.message).toContain(`\`${address}\` is not an IPv4 or IPv6 address`);
      expect(badBody.error.details[0].at).toBe("/address");
    }
    expect((await list(103)).hosts.map((h) => h.name)).not.toContain("x");
    const mismatch = await send("PUT", "/v1/hosts/x", { name: "y", ...idleHost("y", 103) });
    expect(mismatch.status).toBe(400);
    const badAddress = await send("POST", "/v1/hosts/allocate", {
      client: "x",
      fromAddress: "not-an-ip",
      user: "u",
    });
    expect(badAddress.status).toBe(400);
  });

  it("shows a host's effective access list", async () => {
    await report(
      "acl",
      idleHost("acl", 104, { allow: ["10.0.0.0/8", "192.168.0.0/16"], deny: ["10.9.9.9"] }),
    );
    const res = await send("GET", "/v1/hosts/acl/acl?net=104");
    // its own network, then its own allow (policies/customs.json allows nothing pool-wide); the deny takes out what overlaps 10.9.9.9
    expect(await res.json()).toEqual({ host: "acl", entries: ["10.104.0.0/24", "192.168.0.0/16"] });
    expect((await send("GET", "/v1/hosts/nobody/acl?net=104")).status).toBe(404);
  });
});

describe("down detection", () => {
  it("never allocates a host silent for longer than twice its interval", async () => {
    const net = 110;
    const now = Date.now();
    await runInDurableObject(stub(net), async (pool: HostPool) => {
      await pool.report(POLICY, host("ws0", net), now);
      await pool.report(POLICY, host("stale", net, { swapFreePct: 90 }), now - 20_001);
      await pool.report(POLICY, host("fresh", net), now - 5_000);
    });
    const r = await allocate({ client: "ws0", net });
    expect(r.host).toBe("fresh");
    const stale = (await list(net)).hosts.find((h) => h.name === "stale")!;
    expect(stale).toMatchObject({ down: true, available: false, reason: "AVAIL_DOWN", rating: null });
    // a report brings it back.
    await report("stale", idleHost("stale", net, { swapFreePct: 90 }));
    expect((await allocate({ client: "ws0", net })).host).toBe("stale");
  });
});

describe("eviction", () => {
  it("runs the whole timeline: notice at once, termination after evictSeconds, SIGKILL 15 s later, then the permit is gone", async () => {
    const net = 120;
    const t0 = 1_800_000_000_000;
    await runInDurableObject(stub(net), async (pool: HostPool, state: DurableObjectState) => {
      await pool.report(POLICY, host("ws0", net), t0);
      await pool.report(POLICY, host("a", net, { sigxcpu: true }), t0);
      const alloc = await pool.allocate(
        POLICY,
        { client: "ws0", net, fromAddress: "10.0.0.1", user: "u" },
        t0 + 1_000,
      );
      expect(alloc.host).toBe("a");
      const id = alloc.permit!.id;

      const t1 = t0 + 10_000;
      const busy = await pool.report(POLICY, host("a", net, { sigxcpu: true, idleSeconds: 3, jobs: 1 }), t1);
      expect(busy).toMatchObject({ available: false, reason: "AVAIL_IDLE" });
      expect(busy.instructions).toEqual([
        { permit: id, signal: "SIGUSR2", at: t1 },
        { permit: id, signal: "SIGXCPU", at: t1 + 120_000 },
        { permit: id, signal: "SIGKILL", at: t1 + 135_000 },
      ]);
      expect(await state.storage.getAlarm()).toBe(t1 + 120_000);

      // still busy: the same eviction, not a new one.
      const still = await pool.report(
        POLICY,
        host("a", net, { sigxcpu: true, idleSeconds: 60, jobs: 1 }),
        t1 + 60_000,
      );
      expect(still.instructions).toEqual(busy.instructions);

      // idle again after the termination was sent: too late to cancel.
      const late = await pool.report(POLICY, host("a", net, { sigxcpu: true, jobs: 1 }), t1 + 125_000);
      expect(late.instructions).toEqual(busy.instructions);
      expect(await state.storage.getAlarm()).toBe(t1 + 135_000);

      expect(await pool.tick(t1 + 134_999)).toEqual({ killed: [], lapsed: [] });
      expect(await pool.tick(t1 + 135_000)).toEqual({ killed: [id], lapsed: [] });
      expect(pool.list(POLICY, t1 + 135_000).find((h) => h.name === "a")!.permits).toEqual([]);
      const after = await pool.report(
        POLICY,
        host("a", net, { sigxcpu: true, idleSeconds: 3 }),
        t1 + 140_000,
      );
      expect(after.instructions).toEqual([]);
    });
  });

  it("cancels the pending termination when the host is idle again in time, and uses SIGTERM without SIGXCPU", async () => {
    const net = 121;
    const t0 = 1_800_000_000_000;
    await runInDurableObject(stub(net), async (pool: HostPool) => {
      await pool.report(POLICY, host("ws0", net), t0);
      await pool.report(POLICY, host("a", net, { evictSeconds: 30 }), t0);
      const id = (await pool.allocate(POLICY, { client: "ws0", net, fromAddress: "10.0.0.1", user: "u" }, t0))
        .permit!.id;
      const busy = await pool.report(
        POLICY,
        host("a", net, { evictSeconds: 30, idleSeconds: 1, jobs: 1 }),
        t0 + 5_000,
      );
      expect(busy.instructions.map((i) => [i.signal, i.at])).toEqual([
        ["SIGUSR2", t0 + 5_000],
        ["SIGTERM", t0 + 35_000],
        ["SIGKILL", t0 + 50_000],
      ]);
      const idle = await pool.report(POLICY, host("a", net, { evictSeconds: 30, jobs: 1 }), t0 + 20_000);
      expect(idle.instructions).toEqual([
        { permit: id, signal: "SIGTERM", at: t0 + 35_000, cancel: true },
        { permit: id, signal: "SIGKILL", at: t0 + 50_000, cancel: true },
      ]);
      expect(await pool.tick(t0 + 60_000)).toEqual({ killed: [], lapsed: [] });
      expect(pool.list(POLICY, t0 + 60_000).find((h) => h.name === "a")!.permits).toEqual([id]);
    });
  });

  it("does not evict when evictSeconds is 0, nor jobs issued after the report", async () => {
    const net = 122;
    const t0 = 1_800_000_000_000;
    await runInDurableObject(stub(net), async (pool: HostPool) => {
      await pool.report(POLICY, host("ws0", net), t0);
      await pool.report(POLICY, host("a", net, { evictSeconds: 0 }), t0);
      await pool.allocate(POLICY, { client: "ws0", net, fromAddress: "10.0.0.1", user: "u" }, t0);
      const busy = await pool.report(
        POLICY,
        host("a", net, { evictSeconds: 0, idleSeconds: 1, jobs: 1 }),
        t0 + 5_000,
      );
      expect(busy.instructions).toEqual([]);
    });
  });

  it("lets the Durable Object alarm kill an evicted job once its SIGKILL time has passed", async () => {
    const net = 123;
    const t = Date.now() - 200_000;
    const s = stub(net);
    const id = await runInDurableObject(s, async (pool: HostPool) => {
      await pool.report(POLICY, host("ws0", net), t);
      await pool.report(POLICY, host("a", net), t);
      const permit = (
        await pool.allocate(POLICY, { client: "ws0", net, fromAddress: "10.0.0.1", user: "u" }, t)
      ).permit!.id;
      await pool.report(POLICY, host("a", net, { idleSeconds: 1, jobs: 1 }), t + 1_000);
      return permit;
    });
    await runDurableObjectAlarm(s); // runs it unless the runtime already did
    const a = (await list(net)).hosts.find((h) => h.name === "a")!;
    expect(a.permits).not.toContain(id);
  });
});

describe("concurrency", () => {
  it("never hands one slot out twice under concurrent allocations", async () => {
    const net = 130;
    await report("ws0", idleHost("ws0", net));
    for (const name of ["a", "b", "c"]) await report(name, idleHost(name, net, { maxJobs: 2 }));
    const results = await Promise.all(Array.from({ length: 12 }, () => allocate({ client: "ws0", net })));
    const granted = results.filter((r) => r.host !== null);
    expect(granted).toHaveLength(6);
    const perHost = new Map<string, number>();
    for (const r of granted) perHost.set(r.host!, (perHost.get(r.host!) ?? 0) + 1);
    expect([...perHost.values()]).toEqual([2, 2, 2]);
    expect(new Set(granted.map((r) => r.permit!.id)).size).toBe(6);
  });

  it("gives the last free slot to exactly one of many concurrent requests", async () => {
    const net = 131;
    await report("ws0", idleHost("ws0", net));
    await report("only", idleHost("only", net, { maxJobs: 1 }));
    const results = await Promise.all(Array.from({ length: 8 }, () => allocate({ client: "ws0", net })));
    expect(results.filter((r) => r.host === "only")).toHaveLength(1);
  });
});

describe("auth and audit", () => {
  const call = async (
    method: string,
    path: string,
    body: unknown,
    token: string | undefined,
    vars: Partial<Env>,
  ) => {
    const ctx = createExecutionContext();
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await app.fetch(
      new Request(BASE + path, { method, headers, body: JSON.stringify(body) }),
      { ...(env as unknown as Env), ...vars },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    return res;
  };
  const vars = { ADMIN_TOKEN: "root", AGENT_TOKENS: "agent-1", DECISION_TOKENS: "client-1" };

  it("takes reports with an agent or admin token and allocations with a decision token", async () => {
    const net = 140;
    expect((await call("PUT", "/v1/hosts/ws0", idleHost("ws0", net), undefined, vars)).status).toBe(401);
    expect((await call("PUT", "/v1/hosts/ws0", idleHost("ws0", net), "client-1", vars)).status).toBe(403);
    expect((await call("PUT", "/v1/hosts/ws0", idleHost("ws0", net), "agent-1", vars)).status).toBe(200);
    expect((await call("PUT", "/v1/hosts/a", idleHost("a", net), "root", vars)).status).toBe(200);
    const req = { client: "ws0", net, fromAddress: `10.${net}.0.1`, user: "u" };
    expect((await call("POST", "/v1/hosts/allocate", req, "agent-1", vars)).status).toBe(403);
    const ok = await call("POST", "/v1/hosts/allocate", req, "client-1", vars);
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as AllocateBody).host).toBe("a");
  });

  it("logs each refusal by an access level 3 host", async () => {
    const net = 141;
    await report("ws0", idleHost("ws0", net));
    await report(
      "guarded",
      idleHost("guarded", net, { access: 3, users: { bob: "/bin/sh" }, shells: ["/bin/sh"] }),
    );
    const spy = vi.spyOn(console, "log");
    try {
      const r = await allocate({ client: "ws0", net, user: "mallory" });
      expect(r.host).toBeNull();
      const lines = spy.mock.calls.map((c) => String(c[0]));
      const denials = lines
        .filter((l) => l.includes('"access_denied"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(denials).toEqual([
        {
          ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
          event: "access_denied",
          user: "mallory",
          host: "guarded",
          client: "ws0",
          net,
        },
      ]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("allocation trace", () => {
  it("explains an allocation with every host's rating or why it was unavailable or excluded", async () => {
    const net = 150;
    await report("ws0", idleHost("ws0", net));
    await report("busy", idleHost("busy", net, { load: 5 }));
    await report("picky", idleHost("picky", net, { clients: ["other"] }));
    await report("good", idleHost("good", net));
    const res = await send("POST", "/v1/hosts/allocate?explain=true", {
      client: "ws0",
      net,
      fromAddress: `10.${net}.0.200`,
      user: "alice",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as AllocateBody & { trace: { ratings: Record<string, number | string> } };
    expect(body.host).toBe("good");
    expect(body.trace.ratings).toEqual({
      ws0: "excluded:self",
      busy: "unavailable:AVAIL_LOAD",
      picky: "excluded:clients",
      good: expect.any(Number),
    });
    const plain = await allocate({ client: "ws0", net });
    expect(plain).not.toHaveProperty("trace");
  });
});

describe("host pool restart", () => {
  it("selects after a restart exactly as it would have without one: layout and pending counts are rebuilt from the stored rows", async () => {
    const names = ["ws0", "a", "b", "c", "d"];
    const allocations = async (pool: HostPool, n: number) => {
      const out: (string | null)[] = [];
      for (let i = 0; i < n; i++)
        out.push(
          (
            await pool.allocate(
              POLICY,
              { client: "ws0", net: 0, fromAddress: "10.0.0.9", user: "u" },
              1_000 + i,
            )
          ).host,
        );
      return out;
    };
    const run = async (net: number, restartAfter: number | null) => {
      const s = stub(net);
      return runInDurableObject(s, async (pool: HostPool, state: DurableObjectState) => {
        for (const n of names) await pool.report(POLICY, { ...host(n, 0, { maxJobs: 2 }), net: 0 }, 1_000);
        const first = await allocations(pool, restartAfter ?? 9);
        // a new instance over the same storage: what the runtime does after evicting the object
        const after =
          restartAfter === null
            ? pool
            : new (pool.constructor as new (s: DurableObjectState, e: Env) => HostPool)(
                state,
                env as unknown as Env,
              );
        const rest = await allocations(after, 9 - (restartAfter ?? 9));
        return [...first, ...rest];
      });
    };
    const straight = await run(160, null);
    const restarted = await run(161, 4);
    expect(restarted).toEqual(straight);
    // two jobs per host (maxJobs 2), then nothing: the pending counts survived the restart
    expect(straight.filter((h) => h !== null)).toHaveLength(8);
    expect(straight[8]).toBeNull();
  });
});
