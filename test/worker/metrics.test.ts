/**
 * `GET /metrics` and `/v1/status`'s figures in workerd, through the Worker: a
 * scrape parses with the strict exposition reader (test/support/prometheus-text.ts),
 * and after a known sequence of decisions — several engines, a verdict-cache hit
 * and bypass, a spent work budget answered with a verdict and one answered 422,
 * Durable Object calls — every counter has moved by exactly what that sequence
 * adds, in the isolate's own scrape (`?scope=isolate`): this file's requests
 * are the only ones its isolate serves while the counts are compared, whereas
 * the deployment's counters (test/worker/metrics-deployment.test.ts) also get
 * what other test files' isolates flush. Budget and auth variants go
 * through `app.fetch` with changed variables, in the same isolate and so into
 * the same counters.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";
import { runScheduled } from "../../src/cron/index.js";
import { findSample, parseExposition, type ParsedFamily } from "../support/prometheus-text.js";
import { BASE, listUrl, publishLimits, setList, uniqueId } from "./fakes.js";

type Scrape = Map<string, ParsedFamily>;
const testEnv = env as unknown as Env;

async function scrape(scope: "deployment" | "isolate" = "deployment"): Promise<Scrape> {
  const res = await SELF.fetch(`${BASE}/metrics${scope === "isolate" ? "?scope=isolate" : ""}`);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(text);
}

/** A series' value in a scrape; absent counts as 0 (a series appears on first use), `present` demands it. */
function value(s: Scrape, name: string, labels: Record<string, string> = {}, present = false): number {
  const v = findSample(s, name, labels);
  if (present) expect(v, `${name} ${JSON.stringify(labels)} is not in the scrape`).toBeDefined();
  return v ?? 0;
}

/** Every counter series of two scrapes and how much it moved. */
function deltas(before: Scrape, after: Scrape): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name, family] of after) {
    if (family.type !== "counter" && family.type !== "histogram") continue;
    if (name.startsWith("arbiter_cidr_list")) continue;
    for (const s of family.samples) {
      const d = s.value - value(before, s.name, s.labels);
      if (d !== 0) out.set(`${s.name}${JSON.stringify(s.labels)}`, d);
    }
  }
  return out;
}

async function post(path: string, body: unknown): Promise<Response> {
  return SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A request through the app with some variables changed (same isolate, same counters). */
async function withVars(
  vars: Partial<Env>,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const ctx = createExecutionContext();
  const req = new Request(BASE + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const res = await app.fetch(req, { ...testEnv, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

interface Status {
  revision: string;
  bundle: { age_seconds: number };
  metrics: {
    scope: string;
    uptime_seconds: number;
    decisions: Record<string, number>;
    cache: { hits: number; misses: number; bypasses: number; hit_ratio: number | null };
    budget_exceeded: number;
    revision_age_seconds: number;
  };
}

async function status(): Promise<Status> {
  return (await (await SELF.fetch(`${BASE}/v1/status`)).json()) as Status;
}

const match = (owner: string) => ({
  job: `[ Requirements = TARGET.Memory >= 1024; Rank = TARGET.Memory; Owner = "${owner}" ]`,
  machines: [
    '[ Name = "slot1"; Memory = 2048; Requirements = true ]',
    '[ Name = "slot2"; Memory = 512; Requirements = true ]',
  ],
});

describe("GET /metrics", () => {
  it("counts a known sequence of decisions exactly in the isolate's scrape, and /v1/status shows the same figures", async () => {
    const before = await scrape("isolate");
    const statusBefore = await status();
    const histogramCount = (s: Scrape, engine: string) =>
      value(s, "arbiter_decision_io_wait_seconds_count", { engine }, true);

    // placement: a miss, the same request again (a hit), and with explain (a bypass)
    const place = { user: uniqueId("metrics"), groups: ["dev_app"], tags: { namespace: "newapp" } };
    const p1 = await post("/v1/place", place);
    const placed = ((await p1.json()) as { rejected: boolean }).rejected ? "rejected" : "placed";
    expect(p1.headers.get("x-arbiter-cache")).toBe("miss");
    const p2 = await post("/v1/place", place);
    expect(p2.headers.get("x-arbiter-cache")).toBe("hit");
    await p2.text();
    const p3 = await post("/v1/place?explain=true", place);
    expect(p3.headers.get("x-arbiter-cache")).toBe("bypass");
    await p3.text();

    // limits: one decision (its outcome read from the verdict)
    const l1 = await post("/v1/limits/decide", {
      requester: "203.0.113.7",
      task: {
        schema: 1,
        test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } },
      },
    });
    expect(l1.status).toBe(200);
    expect(l1.headers.get("x-arbiter-cache")).toBe("miss");
    const limitsOutcome = ((await l1.json()) as { allowed: boolean }).allowed ? "allowed" : "denied";

    // match: one ordinary decision, and one whose work budget (16 units: enough to read the ads, which is
    // charged, not to decide) runs out (a verdict saying so). The shared expression cache keeps a text
    // from its second sighting on, and reading a text it lacks is charged by the character: an analysis
    // of the same ads (not a decision) first makes the match the texts' second sighting, so that the
    // budgeted one finds them kept.
    const seen = await post("/v1/match/analyze", match(uniqueId("owner")));
    expect(seen.status).toBe(200);
    await seen.text();
    const m1 = await post("/v1/match", match(uniqueId("owner")));
    expect(m1.headers.get("x-arbiter-cache")).toBe("miss");
    const matchOutcome = ((await m1.json()) as { best: unknown }).best === null ? "no_match" : "matched";
    const m2 = await withVars({ DECISION_BUDGET: "16" }, "POST", "/v1/match", match(uniqueId("owner")));
    expect(m2.status).toBe(200);
    expect(((await m2.json()) as { log: string[] }).log.join("\n")).toContain("budget_exceeded");

    // jobfilter: a submission (one JobQueue call), a filter rule (another), then a submission whose
    // regex filter spends the work budget (a search over 600,000 characters costs one unit each, past
    // the default 400,000): 422 budget_exceeded (a third call, answered with that failure)
    const queue = uniqueId("metrics-q");
    const j1 = await post(`/v1/queues/${queue}/jobs`, { opcodes: [{ OP_ID: "OP_TEST" }] });
    expect(j1.status).toBe(200);
    const jobOutcome = ((await j1.json()) as { action: string }).action.toLowerCase();
    const rule = await post(`/v1/queues/${queue}/filters`, {
      predicates: [["reason", ["=~", "reason", "a*[^a]"]]],
      action: "REJECT",
    });
    expect(rule.status, await rule.text()).toBe(200);
    const j2 = await post(`/v1/queues/${queue}/jobs`, {
      opcodes: [{ OP_ID: "OP_TEST", reason: [["user", "a".repeat(600_000), 1]] }],
    });
    expect(j2.status).toBe(422);
    expect(((await j2.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");

    // customs: an allocation in an empty pool (one HostPool call)
    const h1 = await post("/v1/hosts/allocate", {
      client: "metrics-client",
      net: 4242,
      fromAddress: "10.42.0.9",
      user: "alice",
    });
    expect(h1.status).toBe(200);
    expect(((await h1.json()) as { host: string | null }).host).toBeNull();

    // a HEAD is counted as its GET route; no route: the request's own method, HEAD included
    expect((await SELF.fetch(`${BASE}/v1/status`, { method: "HEAD" })).status).toBe(200);
    expect((await SELF.fetch(`${BASE}/v1/nowhere`, { method: "HEAD" })).status).toBe(404);
    expect((await post("/v1/nowhere", {})).status).toBe(404);

    const after = await scrape("isolate");
    const d = (name: string, labels: Record<string, string>) => `${name}${JSON.stringify(labels)}`;
    const http = (method: string, route: string, status_class: string) =>
      d("arbiter_http_requests_total", { method, route, status_class });
    const want = new Map<string, number>([
      [d("arbiter_decisions_total", { engine: "placement", outcome: placed }), 3],
      [d("arbiter_decisions_total", { engine: "limits", outcome: limitsOutcome }), 1],
      [d("arbiter_decisions_total", { engine: "match", outcome: matchOutcome }), 1],
      [d("arbiter_decisions_total", { engine: "match", outcome: "budget_exceeded" }), 1],
      [d("arbiter_decisions_total", { engine: "jobfilter", outcome: jobOutcome }), 1],
      [d("arbiter_decisions_total", { engine: "jobfilter", outcome: "budget_exceeded" }), 1],
      [d("arbiter_decisions_total", { engine: "customs", outcome: "no_host" }), 1],
      [d("arbiter_verdict_cache_requests_total", { engine: "placement", result: "miss" }), 1],
      [d("arbiter_verdict_cache_requests_total", { engine: "placement", result: "hit" }), 1],
      [d("arbiter_verdict_cache_requests_total", { engine: "placement", result: "bypass" }), 1],
      [d("arbiter_verdict_cache_requests_total", { engine: "limits", result: "miss" }), 1],
      [d("arbiter_verdict_cache_requests_total", { engine: "match", result: "miss" }), 2],
      [d("arbiter_budget_exceeded_total", { engine: "match" }), 1],
      [d("arbiter_budget_exceeded_total", { engine: "jobfilter" }), 1],
      [d("arbiter_object_calls_total", { class: "JobQueue", method: "submit", result: "ok" }), 2],
      [d("arbiter_object_calls_total", { class: "JobQueue", method: "putFilter", result: "ok" }), 1],
      [d("arbiter_object_calls_total", { class: "HostPool", method: "allocate", result: "ok" }), 1],
      [d("arbiter_object_call_duration_seconds_count", { class: "JobQueue", method: "submit" }), 2],
      [d("arbiter_object_call_duration_seconds_count", { class: "JobQueue", method: "putFilter" }), 1],
      [d("arbiter_object_call_duration_seconds_count", { class: "HostPool", method: "allocate" }), 1],
      [d("arbiter_decision_io_wait_seconds_count", { engine: "placement" }), 3],
      [d("arbiter_decision_io_wait_seconds_count", { engine: "limits" }), 1],
      [d("arbiter_decision_io_wait_seconds_count", { engine: "match" }), 2],
      [d("arbiter_decision_io_wait_seconds_count", { engine: "jobfilter" }), 2],
      [d("arbiter_decision_io_wait_seconds_count", { engine: "customs" }), 1],
      // every answer by route template and status class, the first scrape and status included
      [http("GET", "/metrics", "2xx"), 1],
      [http("GET", "/v1/status", "2xx"), 2],
      [http("POST", "/v1/place", "2xx"), 3],
      [http("POST", "/v1/limits/decide", "2xx"), 1],
      [http("POST", "/v1/match", "2xx"), 2],
      [http("POST", "/v1/match/analyze", "2xx"), 1],
      [http("POST", "/v1/queues/{queue}/jobs", "2xx"), 1],
      [http("POST", "/v1/queues/{queue}/jobs", "4xx"), 1],
      [http("POST", "/v1/queues/{queue}/filters", "2xx"), 1],
      [http("POST", "/v1/hosts/allocate", "2xx"), 1],
      [http("HEAD", "unmatched", "4xx"), 1],
      [http("POST", "unmatched", "4xx"), 1],
    ]);
    // Histogram buckets and sums move with the counts; compare everything else exactly.
    const moved = new Map([...deltas(before, after)].filter(([k]) => !/_bucket\{|_sum\{/.test(k)));
    expect(Object.fromEntries(moved)).toEqual(Object.fromEntries(want));
    // Each histogram's +Inf bucket moved with its count.
    for (const engine of ["placement", "limits", "match", "jobfilter", "customs"]) {
      const inf = (s: Scrape) =>
        value(s, "arbiter_decision_io_wait_seconds_bucket", { engine, le: "+Inf" }, true);
      expect(inf(after) - inf(before)).toBe(histogramCount(after, engine) - histogramCount(before, engine));
    }

    const statusAfter = await status();
    const m = statusAfter.metrics;
    expect(m.scope).toBe("isolate");
    expect(m.decisions.total - statusBefore.metrics.decisions.total).toBe(9);
    for (const [engine, n] of Object.entries({
      placement: 3,
      limits: 1,
      match: 2,
      jobfilter: 2,
      customs: 1,
    })) {
      expect(m.decisions[engine] - statusBefore.metrics.decisions[engine], engine).toBe(n);
      expect(m.decisions[engine]).toBe(
        after
          .get("arbiter_decisions_total")
          ?.samples.filter((s) => s.labels.engine === engine)
          .reduce((sum, s) => sum + s.value, 0),
      );
    }
    expect(m.cache.hits - statusBefore.metrics.cache.hits).toBe(1);
    expect(m.cache.misses - statusBefore.metrics.cache.misses).toBe(4);
    expect(m.cache.bypasses - statusBefore.metrics.cache.bypasses).toBe(1);
    expect(m.cache.hit_ratio).toBe(m.cache.hits / (m.cache.hits + m.cache.misses));
    expect(m.budget_exceeded - statusBefore.metrics.budget_exceeded).toBe(2);
    expect(m.revision_age_seconds).toBe(statusAfter.bundle.age_seconds);
    expect(m.uptime_seconds).toBeGreaterThanOrEqual(statusBefore.metrics.uptime_seconds);
  });

  it("names the active revision on an info gauge, with its age", async () => {
    const s = await scrape();
    const st = await status();
    expect(
      value(s, "arbiter_policy_info", { revision: st.revision, source: "embedded" }) +
        value(s, "arbiter_policy_info", { revision: st.revision, source: "kv" }),
    ).toBe(1);
    expect(s.get("arbiter_policy_info")?.samples).toHaveLength(1);
    // the same figure, read by two requests answered at different moments: the scrape's walk of the
    // deployment's objects between them can cross a second (it does in most runs on a loaded machine
    // since request schemas are compiled when an isolate starts, docs/performance.md, wt/floor)
    const age = value(s, "arbiter_policy_age_seconds", {}, true);
    expect(st.bundle.age_seconds - age).toBeGreaterThanOrEqual(0);
    expect(st.bundle.age_seconds - age).toBeLessThanOrEqual(1);
    expect(s.get("arbiter_isolate_info")?.samples).toHaveLength(1);
  });

  it("needs the admin token when auth is on (401 without a token, 403 with a decision token)", async () => {
    const vars = { ADMIN_TOKEN: "adm-metrics", DECISION_TOKENS: "dec-metrics" };
    const none = await withVars(vars, "GET", "/metrics");
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const decision = await withVars(vars, "GET", "/metrics", undefined, "dec-metrics");
    expect(decision.status).toBe(403);
    expect(((await decision.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    const admin = await withVars(vars, "GET", "/metrics", undefined, "adm-metrics");
    expect(admin.status).toBe(200);
    expect(parseExposition(await admin.text()).has("arbiter_decisions_total")).toBe(true);
  });

  it("shows each downloaded CIDR list's entries and refresh results, from KV", async () => {
    const id = uniqueId("metrics-list");
    const source = listUrl(id);
    await setList(id, { body: "198.51.100.0/24\n203.0.113.5\n" });
    await publishLimits({
      schema: 1,
      identifiers: [
        { name: "everybody", description: "all", type: "always", data: {} },
        {
          name: "listed",
          description: "l",
          type: "ip-cidr-list-url",
          data: { source, update: "PT1H", retry: "PT10M" },
        },
      ],
      classifiers: [{ name: "default", description: "d", identifiers: ["everybody"] }],
      limits: [{ name: "always", description: "a", type: "pass-fail", data: { pass: true } }],
      applications: [{ apply: [{ require: "all", limits: ["always"] }] }],
    });
    const before = await scrape();
    expect(value(before, "arbiter_cidr_list_entries", { source }, true)).toBe(0);
    expect(
      findSample(before, "arbiter_cidr_list_last_success_timestamp_seconds", { source }),
    ).toBeUndefined();

    const t0 = Date.UTC(2026, 5, 1, 12, 0, 0);
    const tick = (at: number) => runScheduled(testEnv, { scheduledTime: at, cron: "*/5 * * * *" });
    expect((await tick(t0)).sources[0].action).toBe("fetched");
    await setList(id, { status: 503, body: "down" });
    expect((await tick(t0 + 61 * 60_000)).sources[0].action).toBe("failed");
    expect((await tick(t0 + 72 * 60_000)).sources[0].action).toBe("failed");

    const after = await scrape();
    expect(value(after, "arbiter_cidr_list_entries", { source }, true)).toBe(2);
    expect(value(after, "arbiter_cidr_list_refreshes_total", { source, result: "success" }, true)).toBe(1);
    expect(value(after, "arbiter_cidr_list_refreshes_total", { source, result: "failure" }, true)).toBe(2);
    expect(value(after, "arbiter_cidr_list_last_success_timestamp_seconds", { source }, true)).toBe(
      t0 / 1000,
    );
  });
});

describe("the Analytics Engine binding (METRICS)", () => {
  /** A dataset that keeps what it is given: the edge of the world, since workerd's local dataset stores nothing. */
  class RecordingDataset implements AnalyticsEngineDataset {
    readonly points: AnalyticsEngineDataPoint[] = [];
    writeDataPoint(point?: AnalyticsEngineDataPoint): void {
      if (point) this.points.push(point);
    }
  }

  it("gets one data point per decision: engine, outcome, cache, revision, wait and budget", async () => {
    const dataset = new RecordingDataset();
    const place = { user: uniqueId("ae"), groups: ["dev_app"], tags: { namespace: "newapp" } };
    const first = await withVars({ METRICS: dataset }, "POST", "/v1/place", place);
    const revision = ((await first.json()) as { revision: string }).revision;
    await (await withVars({ METRICS: dataset }, "POST", "/v1/place", place)).text();
    const queue = uniqueId("ae-q");
    const job = await withVars({ METRICS: dataset }, "POST", `/v1/queues/${queue}/jobs`, {
      opcodes: [{ OP_ID: "OP_TEST" }],
    });
    const action = ((await job.json()) as { action: string }).action.toLowerCase();
    // the ads' texts seen twice (an analysis, not a decision, then the budgeted match) are kept by the
    // shared expression cache, so reading them fits the 16 units and the evaluation runs out
    await (
      await withVars({ METRICS: dataset }, "POST", "/v1/match/analyze", match(uniqueId("ae-owner")))
    ).text();
    await (
      await withVars({ METRICS: dataset }, "POST", "/v1/match/analyze", match(uniqueId("ae-owner")))
    ).text();
    const budget = await withVars(
      { METRICS: dataset, DECISION_BUDGET: "16" },
      "POST",
      "/v1/match",
      match(uniqueId("ae-owner")),
    );
    expect(budget.status).toBe(200);
    await withVars({ METRICS: dataset }, "GET", "/v1/status");

    expect(dataset.points).toHaveLength(4);
    expect(dataset.points.map((p) => [p.indexes, p.blobs, p.doubles?.length, p.doubles?.[1]])).toEqual([
      [["placement"], ["placement", "placed", "miss", revision], 2, 0],
      [["placement"], ["placement", "placed", "hit", revision], 2, 0],
      [["jobfilter"], ["jobfilter", action, "none", revision], 2, 0],
      [["match"], ["match", "budget_exceeded", "miss", revision], 2, 1],
    ]);
    for (const p of dataset.points) expect(p.doubles?.[0]).toBeGreaterThanOrEqual(0);
  });

  it("never fails a decision when the dataset refuses a point, and counts the refusal", async () => {
    const refusing: AnalyticsEngineDataset = {
      writeDataPoint() {
        throw new Error("too many blobs");
      },
    };
    const before = value(await scrape(), "arbiter_analytics_write_errors_total", {}, true);
    const res = await withVars({ METRICS: refusing }, "POST", "/v1/place", {
      user: uniqueId("ae-refused"),
      groups: [],
      tags: {},
    });
    expect(res.status).toBe(200);
    expect(value(await scrape(), "arbiter_analytics_write_errors_total", {}, true) - before).toBe(1);
  });
});
