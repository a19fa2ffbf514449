/**
 * The deployment's counters in workerd, with real MetricsShard Durable
 * Objects: counts flushed by separate isolates' registries (each its own
 * flusher, as each isolate has one) are summed by the scrape, a batch is
 * applied once however often it is resent, totals survive a restart of the
 * shard object, and after known traffic through the Worker the new series —
 * HTTP answers by route template and status class, idempotent replays,
 * per-queue jobs and lease expiries, per-pool hosts — carry the right values.
 * Shared series (a route's answers) also get what other test files' isolates
 * flush to the same shards, so their deployment figures are checked to have
 * grown by at least the known traffic and the isolate's own scrape exactly;
 * series of this file's own queue and pool are exact in the deployment scrape.
 */
import { env, runDurableObjectAlarm, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import {
  counterFamilies,
  MetricsRegistry,
  registryCounts,
  renderExposition,
} from "../../src/metrics/index.js";
import {
  CountFlusher,
  deploymentCounts,
  flushIntervalMs,
  shardCount,
  shardStub,
} from "../../src/state/isolate-metrics.js";
import { MetricsShard } from "../../src/state/metrics-shard.js";
import type { JobQueue } from "../../src/state/job-queue.js";
import { findSample, parseExposition, type ParsedFamily } from "../support/prometheus-text.js";
import { BASE, uniqueId } from "./fakes.js";

type Scrape = Map<string, ParsedFamily>;
const testEnv = env as unknown as Env;

async function scrape(scope: "deployment" | "isolate" = "deployment"): Promise<Scrape> {
  const res = await SELF.fetch(`${BASE}/metrics${scope === "isolate" ? "?scope=isolate" : ""}`);
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return parseExposition(text);
}

const value = (s: Scrape, name: string, labels: Record<string, string> = {}) =>
  findSample(s, name, labels) ?? 0;

async function send(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return SELF.fetch(BASE + path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The deployment's counters under a shard prefix of the test's own, rendered and read back. */
async function totals(prefix: string): Promise<Scrape> {
  return parseExposition(
    renderExposition(counterFamilies(await deploymentCounts(testEnv, prefix), "deployment")),
  );
}

describe("the deployment's counters (MetricsShard)", () => {
  it("sums the counts two isolates flushed to different shards, and sends each increment once", async () => {
    const prefix = `${uniqueId("shards")}-`;
    const a = new MetricsRegistry();
    const b = new MetricsRegistry();
    a.start(1, () => "isolate-a");
    b.start(1, () => "isolate-b");
    const fa = new CountFlusher(a, prefix, 0);
    const fb = new CountFlusher(b, prefix, shardCount(testEnv) - 1);
    for (let i = 0; i < 3; i++) a.decision("placement", "placed", "miss", 2, false);
    a.httpAnswer(a.httpSeries("POST", "/v1/place"), 200);
    a.shadowComparison("placement", true);
    for (let i = 0; i < 2; i++) b.decision("placement", "placed", "hit", 0, false);
    b.decision("match", "budget_exceeded", "miss", 7, true);
    b.httpAnswer(b.httpSeries("POST", "/v1/place"), 200);
    b.httpAnswer(b.httpSeries("POST", "/v1/place"), 503);
    b.shadowComparison("placement", false);
    b.replay("/v1/queues/{queue}/jobs");
    b.objectCall("JobQueue", "submit", 3, true);
    await Promise.all([fa.flush(testEnv, 1000), fb.flush(testEnv, 1000)]);

    let t = await totals(prefix);
    expect(value(t, "arbiter_decisions_total", { engine: "placement", outcome: "placed" })).toBe(5);
    expect(value(t, "arbiter_decisions_total", { engine: "match", outcome: "budget_exceeded" })).toBe(1);
    expect(value(t, "arbiter_verdict_cache_requests_total", { engine: "placement", result: "miss" })).toBe(3);
    expect(value(t, "arbiter_verdict_cache_requests_total", { engine: "placement", result: "hit" })).toBe(2);
    expect(value(t, "arbiter_budget_exceeded_total", { engine: "match" })).toBe(1);
    expect(value(t, "arbiter_decision_io_wait_seconds_count", { engine: "placement" })).toBe(5);
    expect(value(t, "arbiter_decision_io_wait_seconds_sum", { engine: "placement" })).toBe(0.006);
    expect(value(t, "arbiter_decision_io_wait_seconds_bucket", { engine: "placement", le: "0" })).toBe(2);
    const http = (status_class: string) =>
      value(t, "arbiter_http_requests_total", { method: "POST", route: "/v1/place", status_class });
    expect([http("2xx"), http("5xx")]).toEqual([2, 1]);
    expect(value(t, "arbiter_shadow_comparisons_total", { engine: "placement", result: "agreed" })).toBe(1);
    expect(value(t, "arbiter_shadow_comparisons_total", { engine: "placement", result: "differing" })).toBe(
      1,
    );
    expect(value(t, "arbiter_idempotent_replays_total", { route: "/v1/queues/{queue}/jobs" })).toBe(1);
    expect(
      value(t, "arbiter_object_calls_total", { class: "JobQueue", method: "submit", result: "ok" }),
    ).toBe(1);

    // A second flush sends only what moved since the first.
    a.decision("placement", "placed", "miss", 0, false);
    await fa.flush(testEnv, 2000);
    await fb.flush(testEnv, 2000);
    t = await totals(prefix);
    expect(value(t, "arbiter_decisions_total", { engine: "placement", outcome: "placed" })).toBe(6);
    expect(value(t, "arbiter_decision_io_wait_seconds_count", { engine: "placement" })).toBe(6);

    // A resent batch (its answer lost) is applied once.
    const shard = shardStub(testEnv, 0, prefix);
    const batch: [string, number][] = [[JSON.stringify(["decision", "limits", "allowed"]), 4]];
    expect(await shard.add("isolate-c", 1, batch, 3000)).toEqual({ applied: true, dropped: 0 });
    expect(await shard.add("isolate-c", 1, batch, 3001)).toEqual({ applied: false, dropped: 0 });
    t = await totals(prefix);
    expect(value(t, "arbiter_decisions_total", { engine: "limits", outcome: "allowed" })).toBe(4);
  });

  it("holds, after flushes between a mix of counts, exactly what a fresh count of the registry gives", async () => {
    const prefix = `${uniqueId("fresh")}-`;
    const r = new MetricsRegistry();
    r.start(1, () => "isolate-fresh");
    const flusher = new CountFlusher(r, prefix, 0);
    const engines = ["limits", "placement", "match", "customs", "jobfilter"];
    const caches = ["hit", "miss", "bypass", undefined] as const;
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 30 * round + 7; i++) {
        const e = engines[(i + round) % 5];
        r.decision(
          e,
          ["allowed", "placed", "invented", "budget_exceeded"][i % 4],
          caches[i % 4],
          [0, 2, 40, 20000][(i * 3) % 4],
          i % 9 === 0,
        );
        if (i % 5 === round) r.objectCall("JobQueue", ["submit", "status"][i % 2], i * 7, i % 3 !== 0);
        r.httpAnswer(
          r.httpSeries(i % 2 ? "GET" : "POST", "/v1/place"),
          [200, 404, 503, 302][(i + round) % 4],
        );
        r.shadowComparison(e, i % 3 !== 0);
        if (i % 11 === 0) r.replay("/v1/hosts/{name}");
        if (i % 13 === round) r.analyticsErrors++;
      }
      await flusher.flush(testEnv, 1000 + round);
    }
    const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : 1);
    const held = ((await shardStub(testEnv, 0, prefix).read()) as unknown as [string, number][]).sort(byKey);
    expect(held).toEqual([...registryCounts(r)].sort(byKey));
    expect(renderExposition(counterFamilies(await deploymentCounts(testEnv, prefix), "deployment"))).toBe(
      renderExposition(counterFamilies(r, "deployment")),
    );
  });

  it("keeps its totals across a restart of the shard object (they are in its SQLite storage)", async () => {
    const prefix = `${uniqueId("restart")}-`;
    const r = new MetricsRegistry();
    for (let i = 0; i < 7; i++) r.decision("customs", "allocated", undefined, 1, false);
    await new CountFlusher(r, prefix, 1).flush(testEnv, 1000);
    const stub = shardStub(testEnv, 1, prefix);
    const before = await stub.read();
    expect(before.length).toBeGreaterThan(0);
    const after = await runInDurableObject(stub, (_instance: MetricsShard, state: DurableObjectState) => {
      // A new instance over the same storage, as after an eviction or a restart: nothing kept in memory.
      const restarted = new MetricsShard(state, testEnv);
      restarted.add("isolate-after", 1, [[JSON.stringify(["decision", "customs", "allocated"]), 1]], 2000);
      return restarted.read();
    });
    const allocated = (entries: [string, number][]) =>
      entries.find(([k]) => k === JSON.stringify(["decision", "customs", "allocated"]))?.[1];
    expect(allocated(before as unknown as [string, number][])).toBe(7);
    expect(allocated(after)).toBe(8);
    const t = await totals(prefix);
    expect(value(t, "arbiter_decisions_total", { engine: "customs", outcome: "allocated" })).toBe(8);
  });

  it("flushes after the interval or 1,000 answered requests, whichever comes first, and not before (docs/operations.md's loss bound)", async () => {
    const flusher = new CountFlusher(new MetricsRegistry(), `${uniqueId("cadence")}-`, 0);
    const started: Promise<unknown>[] = [];
    const ctx = { waitUntil: (p: Promise<unknown>) => void started.push(p) };
    flusher.afterRequest(testEnv, ctx); // its first request: an interval has passed since none
    expect(started).toHaveLength(1);
    await started[0];
    for (let i = 1; i < 1000; i++) flusher.afterRequest(testEnv, ctx);
    expect(started).toHaveLength(1);
    flusher.afterRequest(testEnv, ctx);
    expect(started).toHaveLength(2);
    await started[1];
    // the interval's variable, read once per text it takes
    expect(flushIntervalMs({ ...testEnv, METRICS_FLUSH_SECONDS: "2" })).toBe(2000);
    expect(flushIntervalMs({ ...testEnv, METRICS_FLUSH_SECONDS: "2" })).toBe(2000);
    expect(flushIntervalMs({ ...testEnv, METRICS_FLUSH_SECONDS: "999" })).toBe(300_000);
    expect(flushIntervalMs({ ...testEnv, METRICS_FLUSH_SECONDS: "0" })).toBe(1000);
    expect(flushIntervalMs({ ...testEnv, METRICS_FLUSH_SECONDS: undefined })).toBe(10_000);
  });

  it("applies at most SHARD_MAX_BATCH entries of a batch, and skips entries that are not positive counts", async () => {
    const stub = shardStub(testEnv, 2, `${uniqueId("bad")}-`);
    const answer = await stub.add(
      "isolate-x",
      1,
      [
        [JSON.stringify(["decision", "limits", "denied"]), -3],
        [JSON.stringify(["decision", "limits", "denied"]), Number.NaN],
        [JSON.stringify(["decision", "limits", "denied"]), 2],
      ],
      1,
    );
    expect(answer.applied).toBe(true);
    expect(await stub.read()).toEqual([[JSON.stringify(["decision", "limits", "denied"]), 2]]);
    const huge = Array.from({ length: 20_001 }, (_, i): [string, number] => [`k${i}`, 1]);
    // one entry past the batch bound, and one new key past the 20,000 a shard keeps (it already had one)
    expect(await stub.add("isolate-x", 2, huge, 2)).toEqual({ applied: true, dropped: 2 });
    expect((await stub.read()).length).toBe(20_000);
  });
});

describe("GET /metrics after known traffic", () => {
  it("shows the new series with the values the traffic makes", async () => {
    const q = uniqueId("mq");
    const net = 4000 + Math.floor(Math.random() * 50_000);
    const dep0 = await scrape();
    const iso0 = await scrape("isolate");

    // A queue with one slot: a running job, a held one, then the running job's lease runs out.
    expect((await send("POST", `/v1/queues/${q}/filters`, { action: ["RATE_LIMIT", 1] })).status).toBe(200);
    const key = { "idempotency-key": uniqueId("key") };
    const first = await send("POST", `/v1/queues/${q}/jobs`, { opcodes: [{ OP_ID: "OP_A" }] }, key);
    const firstBody = (await first.json()) as { job_id: number; state: string };
    expect(firstBody.state).toBe("running");
    const replay = await send("POST", `/v1/queues/${q}/jobs`, { opcodes: [{ OP_ID: "OP_A" }] }, key);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    await replay.text();
    const second = await send("POST", `/v1/queues/${q}/jobs`, { opcodes: [{ OP_ID: "OP_A" }] });
    expect(((await second.json()) as { state: string }).state).toBe("queued");
    const missing = await send("GET", `/v1/queues/${q}/jobs/999999`);
    expect(missing.status).toBe(404);
    await missing.text();

    let s = await scrape();
    expect(value(s, "arbiter_queue_jobs", { queue: q, state: "running" })).toBe(1);
    expect(value(s, "arbiter_queue_jobs", { queue: q, state: "queued" })).toBe(1);
    expect(findSample(s, "arbiter_lease_expiries_total", { queue: q })).toBe(0);

    const queueStub = testEnv.JOB_QUEUE.get(testEnv.JOB_QUEUE.idFromName(q)) as DurableObjectStub<JobQueue>;
    await runInDurableObject(queueStub, (_i: JobQueue, state) => {
      state.storage.sql.exec(
        "UPDATE jobs SET lease_expires = ? WHERE id = ?",
        Date.now() - 1,
        firstBody.job_id,
      );
    });
    expect(await runDurableObjectAlarm(queueStub)).toBe(true);

    // A pool of one available and one unavailable (loaded) host.
    const idle = (name: string, extra: Record<string, unknown> = {}) => ({
      address: `10.9.0.${name.length}`,
      net,
      load: 0,
      swapFreePct: 50,
      jobs: 0,
      idleSeconds: 2000,
      ...extra,
    });
    expect((await send("PUT", "/v1/hosts/ok-host", idle("ok-host"))).status).toBe(200);
    expect((await send("PUT", "/v1/hosts/busy-host", idle("busy-host", { load: 3 }))).status).toBe(200);

    s = await scrape();
    const iso = await scrape("isolate");
    expect(value(s, "arbiter_lease_expiries_total", { queue: q })).toBe(1);
    // the expired job's slot went to the held one (the alarm frees the slot; the next pass starts it) or it stays held
    expect(
      value(s, "arbiter_queue_jobs", { queue: q, state: "running" }) +
        value(s, "arbiter_queue_jobs", { queue: q, state: "queued" }),
    ).toBe(1);
    expect(value(s, "arbiter_pool_hosts", { net: String(net), state: "available" })).toBe(1);
    expect(value(s, "arbiter_pool_hosts", { net: String(net), state: "unavailable" })).toBe(1);
    expect(s.get("arbiter_scrape_state_objects")?.samples.length).toBe(2);

    const http = (x: Scrape, method: string, route: string, status_class: string) =>
      value(x, "arbiter_http_requests_total", { method, route, status_class });
    const known: [string, string, string, number][] = [
      ["POST", "/v1/queues/{queue}/filters", "2xx", 1],
      ["POST", "/v1/queues/{queue}/jobs", "2xx", 3],
      ["GET", "/v1/queues/{queue}/jobs/{id}", "4xx", 1],
      ["PUT", "/v1/hosts/{name}", "2xx", 2],
      ["GET", "/metrics", "2xx", 3],
    ];
    for (const [method, route, cls, n] of known) {
      expect(
        http(iso, method, route, cls) - http(iso0, method, route, cls),
        `${method} ${route} ${cls}`,
      ).toBe(n);
      expect(
        http(s, method, route, cls) - http(dep0, method, route, cls),
        `${method} ${route} ${cls}`,
      ).toBeGreaterThanOrEqual(n);
    }
    const replays = (x: Scrape) =>
      value(x, "arbiter_idempotent_replays_total", { route: "/v1/queues/{queue}/jobs" });
    expect(replays(iso) - replays(iso0)).toBe(1);
    expect(replays(s) - replays(dep0)).toBeGreaterThanOrEqual(1);
    // The deployment's counters include at least what this isolate counted.
    expect(replays(s)).toBeGreaterThanOrEqual(replays(iso));
  });

  it("refuses an unknown scope, naming the parameter", async () => {
    const res = await send("GET", "/metrics?scope=everything");
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("`scope`");
  });
});

describe("the OpenAPI document's /metrics example", () => {
  it("is a scrape the strict reader accepts, with the new series", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json()) as {
      paths: Record<
        string,
        { get: { responses: { "200": { content: Record<string, { example?: string }> } } } }
      >;
    };
    const example = doc.paths["/metrics"].get.responses["200"].content["text/plain"].example;
    expect(typeof example).toBe("string");
    const f = parseExposition(example as string);
    for (const name of [
      "arbiter_http_requests_total",
      "arbiter_shadow_comparisons_total",
      "arbiter_idempotent_replays_total",
      "arbiter_queue_jobs",
      "arbiter_lease_expiries_total",
      "arbiter_pool_hosts",
    ])
      expect(f.has(name), name).toBe(true);
  });
});
