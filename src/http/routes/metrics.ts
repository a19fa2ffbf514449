import { Hono } from "hono";
import type { AppEnv } from "../../env.js";
import {
  cidrListFamilies,
  counterFamilies,
  EXPOSITION_CONTENT_TYPE,
  identityFamilies,
  isolateFamilies,
  policyFamilies,
  renderExposition,
  stateFamilies,
  type MetricFamily,
} from "../../metrics/index.js";
import { deploymentCounts, hasShards, isolateFlusher } from "../../state/isolate-metrics.js";
import { ApiError } from "../errors.js";
import { stateFigures } from "../metrics-state.js";
import { cidrListCounts, type LimitsPolicy } from "../../state/cidr-lists.js";
import { bundleInfo, getActiveBundle } from "../../state/policy-store.js";
import { authorize } from "../auth.js";
import { isolateMetrics } from "../metrics.js";
import { registerOperation } from "../openapi.js";

/** The counters of the scrape: the deployment's (this isolate's flushed first, then every shard summed), or this isolate's alone. */
async function counters(env: AppEnv["Bindings"], scope: string): Promise<MetricFamily[]> {
  if (scope === "isolate" || !hasShards(env)) return isolateFamilies(isolateMetrics);
  await isolateFlusher.flush(env, Date.now());
  const [total, state] = await Promise.all([deploymentCounts(env), stateFigures(env)]);
  return [
    ...identityFamilies(isolateMetrics),
    ...counterFamilies(total, "deployment"),
    ...stateFamilies(state.queues, state.pools, state.coverage),
  ];
}

/**
 * `GET /metrics`: the Prometheus text format (0.0.4), rendered on each scrape
 * from the deployment's counters (the metrics shards' sums; `?scope=isolate`:
 * this isolate's own), the job queues' and host pools' objects, the active
 * bundle and the stored CIDR list records. The metrics token (or the admin
 * token) when auth is on.
 */
export const metricsRoutes = new Hono<AppEnv>().get("/metrics", async (c) => {
  authorize(c, "metrics");
  const scope = c.req.query("scope") ?? "deployment";
  if (scope !== "deployment" && scope !== "isolate")
    throw new ApiError(
      "invalid_request",
      `\`scope\` must be \`deployment\` or \`isolate\`, not \`${scope}\``,
    );
  const bundle = await getActiveBundle(c.env);
  const limits = bundle.policy<LimitsPolicy>("limits");
  const lists = limits ? await cidrListCounts(c.env, limits) : [];
  const info = bundleInfo();
  const now = Date.now();
  const text = renderExposition([
    ...(await counters(c.env, scope)),
    ...policyFamilies({
      revision: bundle.revision,
      source: info.source,
      createdAt: Date.parse(info.createdAt),
      activatedAt: info.activatedAt,
      now,
    }),
    ...cidrListFamilies(
      lists.map((l) => ({
        source: l.source,
        count: l.count,
        successes: l.successes,
        failures: l.failures,
        lastSuccess: l.last_success === null ? null : Date.parse(l.last_success),
      })),
    ),
  ]);
  return c.body(text, 200, { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" });
});

/** A shortened deployment scrape, for the OpenAPI document. */
const EXAMPLE = `# HELP arbiter_decisions_total The deployment's (every isolate's, summed in the metrics shards) decisions answered, by engine and outcome (…).
# TYPE arbiter_decisions_total counter
arbiter_decisions_total{engine="placement",outcome="placed"} 18234
arbiter_decisions_total{engine="placement",outcome="rejected"} 112
# HELP arbiter_http_requests_total The deployment's (every isolate's, summed in the metrics shards) HTTP answers, by method, route template (…) and status class.
# TYPE arbiter_http_requests_total counter
arbiter_http_requests_total{method="POST",route="/v1/place",status_class="2xx"} 18346
arbiter_http_requests_total{method="GET",route="/v1/queues/{queue}/jobs/{id}",status_class="4xx"} 3
# HELP arbiter_shadow_comparisons_total The deployment's (…) decisions evaluated again under the staged candidate policy, by engine and result (agreed, differing); compared is their sum.
# TYPE arbiter_shadow_comparisons_total counter
arbiter_shadow_comparisons_total{engine="placement",result="agreed"} 951
arbiter_shadow_comparisons_total{engine="placement",result="differing"} 4
# HELP arbiter_idempotent_replays_total The deployment's (…) answers replayed for a reused Idempotency-Key (Idempotent-Replayed: true), by route template.
# TYPE arbiter_idempotent_replays_total counter
arbiter_idempotent_replays_total{route="/v1/queues/{queue}/jobs"} 2
# HELP arbiter_queue_jobs Jobs in each job queue now, by state: running (holding a slot under a lease) and queued (held). (…)
# TYPE arbiter_queue_jobs gauge
arbiter_queue_jobs{queue="batch",state="queued"} 5
arbiter_queue_jobs{queue="batch",state="running"} 2
# HELP arbiter_lease_expiries_total Leases of each job queue that ran out without a heartbeat (…).
# TYPE arbiter_lease_expiries_total counter
arbiter_lease_expiries_total{queue="batch"} 1
# HELP arbiter_pool_hosts Hosts in each customs host pool (network number) now, by state: available (…) or unavailable (…).
# TYPE arbiter_pool_hosts gauge
arbiter_pool_hosts{net="7",state="available"} 3
arbiter_pool_hosts{net="7",state="unavailable"} 1
`;

registerOperation({
  operationId: "metrics",
  method: "get",
  path: "/metrics",
  summary:
    "Prometheus text format 0.0.4: the deployment's counters (decisions, verdict cache, budgets, Durable Object calls, HTTP answers by route template and status class, shadow comparisons, idempotent replays; every isolate's counts, flushed to the metrics shards at most METRICS_FLUSH_SECONDS ago), each job queue's running and queued jobs and lease expiries, each host pool's available and unavailable hosts, the active revision and its age, CIDR list refreshes; `?scope=isolate`: the answering isolate's own counters instead (docs/operations.md, Metrics)",
  tag: "system",
  auth: "metrics",
  responseText: "text/plain",
  example: EXAMPLE,
  query: [
    {
      name: "scope",
      description:
        "`deployment` (default): counters summed over every isolate, plus the queue and pool gauges; `isolate`: the answering isolate's own counters since its first request",
      schema: { type: "string", enum: ["deployment", "isolate"] },
    },
  ],
  errors: ["invalid_request"],
});
