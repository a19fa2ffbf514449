import { Hono } from "hono";
import type { AppEnv } from "../../env.js";
import {
  cidrListFamilies,
  EXPOSITION_CONTENT_TYPE,
  isolateFamilies,
  policyFamilies,
  renderExposition,
} from "../../metrics/index.js";
import { cidrListCounts, type LimitsPolicy } from "../../state/cidr-lists.js";
import { bundleInfo, getActiveBundle } from "../../state/policy-store.js";
import { authorize } from "../auth.js";
import { isolateMetrics } from "../metrics.js";
import { registerOperation } from "../openapi.js";

/**
 * `GET /metrics`: the Prometheus text format (0.0.4), rendered on each scrape
 * from this isolate's counters, the active bundle and the stored CIDR list
 * records. The metrics token (or the admin token) when auth is on.
 */
export const metricsRoutes = new Hono<AppEnv>().get("/metrics", async (c) => {
  authorize(c, "metrics");
  const bundle = await getActiveBundle(c.env);
  const limits = bundle.policy<LimitsPolicy>("limits");
  const lists = limits ? await cidrListCounts(c.env, limits) : [];
  const info = bundleInfo();
  const now = Date.now();
  const text = renderExposition([
    ...isolateFamilies(isolateMetrics),
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
