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
    throw new ApiError("invalid_request", `\`scope\` must be \`deployment\` or \`isolate\`, not \`${scope}\``);
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

registerOperation({
  operationId: "metrics",
  method: "get",
  path: "/metrics",
  summary:
    "Prometheus text format 0.0.4: this isolate's decision, cache, budget and Durable Object counters; the active revision and its age; CIDR list refreshes (docs/operations.md, Metrics)",
  tag: "system",
  auth: "metrics",
  responseText: "text/plain",
});
