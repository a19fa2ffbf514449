/**
 * Issue 16, the playground: the page at `/` and its files, served by the Worker with
 * a Content-Security-Policy that lets it load and call nothing but the Worker; and
 * `POST /v1/playground/{engine}`, which compiles a policy in memory only and decides
 * one request under it with the trace. Job and host decisions run on the queue and
 * pool the request carries: the queue and pool objects never see them, yet the answer
 * is the one those objects give when fed the same reports, rules and running jobs.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ENGINES } from "../../playground/engines.js";
import { compileBundle } from "../../src/bundle/index.js";
import { app } from "../../src/http/app.js";
import { playgroundPaths, playgroundVersion } from "../../src/http/playground/page.js";
import type { Env } from "../../src/env.js";

const BASE = "http://arbiter.test";

async function activePolicy(engine: string): Promise<string> {
  const res = await SELF.fetch(`${BASE}/v1/policies/${engine}`);
  expect(res.status).toBe(200);
  return res.text();
}

async function decide(
  engine: string,
  policy: string,
  request: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch(`${BASE}/v1/playground/${engine}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ policy, request }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const example = (engine: string) => ENGINES.find((e) => e.name === engine)?.example;

describe("GET / and the page's files", () => {
  it("serves the page as HTML under a policy that allows only the Worker itself", async () => {
    const res = await SELF.fetch(`${BASE}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    for (const directive of ["script-src", "style-src", "img-src", "connect-src"])
      expect(csp).toContain(`${directive} 'self'`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/https?:|\*|'unsafe-/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const html = await res.text();
    expect(html).toContain(`<script type="module" src="/playground/${playgroundVersion()}/app.js">`);
  });

  it("serves every file the page and its modules refer to, and refers to no other host", async () => {
    const html = await (await SELF.fetch(`${BASE}/`)).text();
    const referenced = new Set([...html.matchAll(/(?:src|href)="([^"#]+)"/g)].map((m) => m[1]));
    // The page's own modules are one bundle (app.js), which imports the editor's.
    const app = await (await SELF.fetch(`${BASE}/playground/app.js`)).text();
    expect(app).not.toMatch(/from ?"\.\/[\w.-]+"/);
    for (const m of app.matchAll(/"\.\/([\w.-]+\.js)"/g))
      referenced.add(`/playground/${playgroundVersion()}/${m[1]}`);
    for (const path of referenced) {
      expect(path, "the page names its files under its version").toMatch(
        new RegExp(`^/playground/${playgroundVersion()}/[\\w.-]+$`),
      );
      const res = await SELF.fetch(BASE + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("cache-control"), path).toBe("public, max-age=31536000, immutable");
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      expect(await res.text()).toBe(
        await (await SELF.fetch(BASE + path.replace(`/${playgroundVersion()}/`, "/"))).text(),
      );
    }
    expect([...referenced].map((p) => p.replace(/^.*\//, "")).sort()).toEqual([
      "app.js",
      "boot.js",
      "codemirror.js",
      "icon.svg",
      "style.css",
    ]);
    for (const path of playgroundPaths()) {
      const res = await SELF.fetch(BASE + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      const text = await res.text();
      // No request to another host: no absolute URL anywhere but an SVG's namespace name.
      expect(text.replace(/xmlns="http:\/\/www\.w3\.org\/2000\/svg"/g, ""), path).not.toMatch(
        /\bhttps?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}\//i,
      );
      expect(res.headers.get("cache-control"), path).toBe("no-cache");
    }
    // Another version's files are gone.
    const stale = await SELF.fetch(`${BASE}/playground/0123456789ab/app.js`);
    expect(stale.status).toBe(404);
  });

  it("answers a matching If-None-Match with 304, and an unknown file with 404", async () => {
    const first = await SELF.fetch(`${BASE}/playground/app.js`);
    const etag = first.headers.get("etag") ?? "";
    expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await SELF.fetch(`${BASE}/playground/app.js`, { headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    const missing = await SELF.fetch(`${BASE}/playground/nope.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
  });

  it("refuses other methods on / with 405", async () => {
    const res = await SELF.fetch(`${BASE}/`, { method: "POST" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("POST /v1/playground/{engine}", () => {
  it("decides each engine's example request under the active policy, with the trace, as the engine's own route would", async () => {
    for (const engine of ["limits", "placement", "match"]) {
      const got = await decide(engine, await activePolicy(engine), example(engine));
      expect(got.status, JSON.stringify(got.body)).toBe(200);
      expect(got.body.trace, engine).toBeDefined();
      const path = { limits: "/v1/limits/decide", placement: "/v1/place", match: "/v1/match" }[engine];
      const direct = await SELF.fetch(`${BASE}${path}?explain=true`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(example(engine)),
      });
      const want = (await direct.json()) as Record<string, unknown>;
      const strip = (v: Record<string, unknown>) => {
        const { decision_id: _d, revision: _r, log: _l, ...rest } = v;
        return rest;
      };
      // the match trace also carries the analysis, which is /v1/match/analyze's answer without its envelope
      const { analysis, ...trace } = got.body.trace as Record<string, unknown>;
      if (engine === "match") {
        const analyzed = await SELF.fetch(`${BASE}/v1/match/analyze`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(example(engine)),
        });
        const { cacheable: _c, ...body } = strip((await analyzed.json()) as Record<string, unknown>);
        expect(analysis).toEqual(body);
      } else expect(analysis).toBeUndefined();
      expect(strip({ ...got.body, trace }), engine).toEqual(strip(want));
    }
  });

  it("reports the revision a bundle of the posted policy alone would have, and changes nothing that is active", async () => {
    const before = (await (await SELF.fetch(`${BASE}/v1/status`)).json()) as { revision: string };
    const source = await activePolicy("placement");
    const edited = source.replace(
      "- name: user\n        create: true",
      "- name: user\n        create: false",
    );
    expect(edited).not.toBe(source);
    const got = await decide("placement", edited, example("placement"));
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.queue).toBe("root.default");
    const alone = await compileBundle({ placement: edited }, new Date(0).toISOString());
    expect(alone.ok && got.body.revision).toBe(alone.ok && alone.value.revision);
    expect(got.body.revision).not.toBe(before.revision);
    expect(await activePolicy("placement")).toBe(source);
    const after = (await (await SELF.fetch(`${BASE}/v1/status`)).json()) as { revision: string };
    expect(after.revision).toBe(before.revision);
  });

  it("answers an edited policy's verdict: a limits policy that names the requester a hacker denies it", async () => {
    const source = await activePolicy("limits");
    expect(source).toContain('"198.51.100.0/24"');
    const allowed = await decide("limits", source, example("limits"));
    expect(allowed.body.allowed).toBe(true);
    const denied = await decide(
      "limits",
      source.replace('"198.51.100.0/24"', '"203.0.113.0/24"'),
      example("limits"),
    );
    expect(denied.status).toBe(200);
    expect(denied.body.allowed).toBe(false);
    expect(denied.body.identifiers).toContain("hackers");
  });

  it("answers an invalid policy with 422 policy_invalid, each detail at line:column", async () => {
    const source = await activePolicy("placement");
    const lines = source.split("\n");
    const at = lines.findIndex((l) => l.trim() === "queues:") + 1;
    lines.splice(at, 0, "      - name: root", "        bogus: 3");
    const got = await decide("placement", lines.join("\n"), example("placement"));
    expect(got.status).toBe(422);
    const error = got.body.error as { code: string; details: { at: string }[] };
    expect(error.code).toBe("policy_invalid");
    expect(error.details.length).toBeGreaterThan(0);
    for (const d of error.details) expect(d.at).toMatch(/^\d+:\d+$/);
  });

  it("names the request field that is wrong, under /request", async () => {
    const got = await decide("placement", await activePolicy("placement"), { user: 7 });
    expect(got.status).toBe(400);
    const error = got.body.error as { code: string; details: { at: string }[] };
    expect(error.code).toBe("invalid_request");
    expect(error.details[0].at).toBe("/request/user");
  });

  it("answers an unknown engine with 404 and a body that is not an object with 400", async () => {
    expect((await decide("nope", "", {})).status).toBe(404);
    const res = await SELF.fetch(`${BASE}/v1/playground/limits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"policy": 3, "request": {}}',
    });
    expect(res.status).toBe(400);
  });

  it("decides a job on the queue the request carries, leaving the queue objects alone", async () => {
    const rules = JSON.stringify([
      { priority: 1, predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_STARTUP"]]], action: "REJECT" },
    ]);
    const job = { id: 9_161_001, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", instance_name: "web1" }] };
    const got = await decide("jobfilter", rules, { job, queue: { running: [] } });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body).toMatchObject({
      job_id: job.id,
      action: "REJECT",
      run: false,
      state: "cancelled",
      cacheable: false,
    });
    expect((got.body.trace as { rules: { matches: boolean }[] }).rules.map((r) => r.matches)).toEqual([true]);
    const open = await decide("jobfilter", "[]", { job });
    expect(open.body).toMatchObject({ action: "ACCEPT", rule: null, run: true, state: "running" });
    expect((open.body.lease as { expires_at: string }).expires_at).toMatch(/^\d{4}-/);
    const stored = await SELF.fetch(`${BASE}/v1/queues/default/jobs/${job.id}`);
    expect(stored.status).toBe(404);
  });

  it("counts the running jobs the request carries against a rate limit", async () => {
    const rules = JSON.stringify([
      {
        priority: 1,
        predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_STARTUP"]]],
        action: ["RATE_LIMIT", 1],
      },
    ]);
    const job = (id: number) => ({
      id,
      opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", instance_name: `vm${id}` }],
    });
    expect((await decide("jobfilter", rules, { job: job(2), queue: { running: [] } })).body.action).toBe(
      "ACCEPT",
    );
    expect(
      (await decide("jobfilter", rules, { job: job(2), queue: { running: [job(1)] } })).body,
    ).toMatchObject({ action: "RATE_LIMITED", run: false, state: "queued" });
    const twice = await decide("jobfilter", rules, { job: job(2), queue: { running: [job(1), job(1)] } });
    expect(twice.status).toBe(400);
    expect((twice.body.error as { details: { at: string }[] }).details[0].at).toBe(
      "/request/queue/running/1/id",
    );
    const clash = await decide("jobfilter", rules, { job: job(1), queue: { running: [job(1)] } });
    expect(clash.status).toBe(409);
  });

  it("keeps a reason timestamp past 2^53 exact", async () => {
    const job = { id: 5, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", reason: [["gnt:user", "x", 0]] }] };
    const text = JSON.stringify({ policy: "[]", request: { job } }).replace(
      '"x",0',
      '"x",1700000000123456789',
    );
    const res = await SELF.fetch(`${BASE}/v1/playground/jobfilter`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: text,
    });
    expect(res.status).toBe(200);
  });

  it("picks a host from the pool the request carries, with every host's rating, and allocates nothing", async () => {
    const got = await decide("customs", await activePolicy("customs"), example("customs"));
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const ratings = (got.body.trace as { ratings: Record<string, number | string> }).ratings;
    expect(Object.keys(ratings)).toEqual(["build1", "build2", "build3", "desk7"]);
    expect(got.body).toMatchObject({
      host: "build1",
      address: "10.0.0.11",
      cacheable: false,
      limits: { nice: 4 },
    });
    expect((got.body.permit as { id: number }).id).toBe(1);
    expect(ratings.desk7).toMatch(/^(unavailable|excluded):/);
    const strict = (await activePolicy("customs")).replace('"minIdleSeconds": 900', '"minIdleSeconds": 3600');
    const moved = await decide("customs", strict, example("customs"));
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect((moved.body.trace as { ratings: Record<string, number | string> }).ratings.build2).toBe(
      "unavailable:AVAIL_IDLE",
    );
    const pool = (await (await SELF.fetch(`${BASE}/v1/hosts?net=0`)).json()) as { hosts: { name: string }[] };
    expect(pool.hosts.map((h) => h.name)).not.toContain("build1");
  });

  it("keeps one pool per network and follows the round robin from `last`, as the host pool objects do", async () => {
    const base = structuredClone(example("customs")) as {
      hosts: Record<string, unknown>[];
      request: Record<string, unknown>;
      last?: string;
    };
    const idle = { load: 0.05, swapFreePct: 70, jobs: 0, idleSeconds: 5400 };
    base.hosts = [
      { name: "a", address: "10.0.0.1", ...idle },
      { name: "b", address: "10.0.0.2", ...idle },
      { name: "far", address: "10.1.0.1", net: 1, ...idle },
      { name: "desk7", address: "10.0.0.70", load: 0.3, swapFreePct: 50, jobs: 0, idleSeconds: 0 },
    ];
    const policy = await activePolicy("customs");
    const first = await decide("customs", policy, base);
    const ratings = (first.body.trace as { ratings: Record<string, unknown> }).ratings;
    expect(Object.keys(ratings)).toEqual(["a", "b", "desk7"]);
    expect(first.body.host).toBe("a");
    const next = await decide("customs", policy, { ...base, last: "a" });
    expect(next.body.host).toBe("b");
  });

  it("allocates as POST /v1/hosts/allocate does from a pool that the same hosts reported to", async () => {
    const policy = await activePolicy("customs");
    const request = structuredClone(example("customs")) as {
      hosts: Record<string, unknown>[];
      request: Record<string, unknown>;
    };
    // A network of its own, so the live pool holds only these reports.
    for (const h of request.hosts) h.net = 7;
    request.request.net = 7;
    for (const { name, ...report } of request.hosts) {
      const res = await SELF.fetch(`${BASE}/v1/hosts/${String(name)}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(report),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const live = await SELF.fetch(`${BASE}/v1/hosts/allocate?explain=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request.request),
    });
    expect(live.status).toBe(200);
    const got = await decide("customs", policy, request);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const strip = (v: Record<string, unknown>): Record<string, unknown> => {
      const {
        decision_id: _d,
        revision: _r,
        cacheable: _c,
        permit,
        ...rest
      } = v as Record<string, unknown> & { permit: { id: number } | null };
      return { ...rest, permit: permit && permit.id };
    };
    const want = strip((await live.json()) as Record<string, unknown>);
    expect(want.host).toBe("build1");
    expect(strip(got.body)).toEqual(want);
  });

  it("submits as POST /v1/queues/{queue}/jobs does to a queue running the same jobs under the same rules", async () => {
    // Two rules: one the job escapes, and a rate limit of one slot for every job, which the running job already holds.
    const rules = [
      {
        uuid: "00000000-0000-4000-8000-0000000000a1",
        priority: 0,
        predicates: [["opcode", ["=", "OP_ID", "OP_CLUSTER_DESTROY"]]],
        action: "REJECT",
      },
      {
        uuid: "00000000-0000-4000-8000-0000000000a2",
        priority: 1,
        predicates: [["jobid", [">", "id", 0]]],
        action: ["RATE_LIMIT", 1],
      },
    ];
    const json = { "content-type": "application/json" };
    for (const { uuid, ...rule } of rules) {
      const res = await SELF.fetch(`${BASE}/v1/queues/compare/filters/${uuid}`, {
        method: "PUT",
        headers: json,
        body: JSON.stringify(rule),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    const request = example("jobfilter") as { job: { id: number }; queue: { running: { id: number }[] } };
    expect(request.queue.running.length).toBe(1);
    const submit = (job: unknown) =>
      SELF.fetch(`${BASE}/v1/queues/compare/jobs?explain=true`, {
        method: "POST",
        headers: json,
        body: JSON.stringify(job),
      });
    for (const job of request.queue.running)
      expect(((await (await submit(job)).json()) as { state: string }).state).toBe("running");
    const live = await submit(request.job);
    expect(live.status).toBe(200);
    const got = await decide("jobfilter", JSON.stringify(rules), request);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const strip = (v: Record<string, unknown>) => {
      const { decision_id: _d, revision: _r, cacheable: _c, lease, ...rest } = v;
      return { ...rest, lease: lease === null || lease === undefined ? lease : "held" };
    };
    const want = strip((await live.json()) as Record<string, unknown>);
    expect(want).toMatchObject({ action: "RATE_LIMITED", rule: rules[1].uuid, run: false, state: "queued" });
    expect(strip(got.body)).toEqual(want);
  });

  it("names a host report's field that the engine refuses, under /request/hosts", async () => {
    const request = structuredClone(example("customs")) as { hosts: { maxLoad?: number }[] };
    request.hosts[1].maxLoad = -1;
    const got = await decide("customs", await activePolicy("customs"), request);
    expect(got.status).toBe(400);
    const error = got.body.error as { details: { at: string }[] };
    expect(error.details[0].at).toMatch(/^\/request\/hosts\/1\//);
  });

  it("needs the admin token once any token is set", async () => {
    const call = async (token?: string) => {
      const ctx = createExecutionContext();
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      const req = new Request(`${BASE}/v1/playground/jobfilter`, {
        method: "POST",
        headers,
        body: JSON.stringify({ policy: "[]", request: { job: { id: 1, opcodes: [] } } }),
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
