import { Hono } from "hono";
import * as z from "zod";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import { bundleInfo, getActiveBundle } from "../../state/policy-store.js";
import { authorize, authSettings } from "../auth.js";
import type { AppEnv } from "../../env.js";
import { openApiDocument, registerOperation } from "../openapi.js";
import { statusExtras } from "../status-extras.js";
import { isolateMetrics } from "../metrics.js";

/** Liveness, status and the OpenAPI document: the routes that decide nothing. */
export const systemRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/v1/status", async (c) => {
    // With auth on, a caller without a token learns only whether the service is up and guarded;
    // the revision, counts and lists are for the metrics (or admin) token.
    const settings = authSettings(c.env);
    if (settings.mode !== "disabled" && c.req.header("authorization") === undefined) {
      return c.json(
        settings.mode === "misconfigured"
          ? { ok: false, auth: settings.mode, auth_problems: settings.problems }
          : { ok: true, auth: settings.mode },
      );
    }
    authorize(c, "metrics");
    const bundle = await getActiveBundle(c.env);
    const info = bundleInfo();
    const now = Date.now();
    const ageSeconds = Math.max(0, Math.round((now - Date.parse(info.createdAt)) / 1000));
    return c.json({
      ok: true,
      revision: bundle.revision,
      bundle: {
        source: info.source,
        created_at: info.createdAt,
        age_seconds: ageSeconds,
        activated_at: new Date(info.activatedAt).toISOString(),
      },
      auth: settings.mode,
      auth_routes: settings.routes,
      engines: ENGINE_NAMES.filter((n) => bundle.has(n)),
      ...(await statusExtras(c.env, bundle)),
      metrics: {
        scope: "isolate" as const,
        ...isolateMetrics.headline(now),
        revision_age_seconds: ageSeconds,
      },
    });
  })
  .get("/v1/openapi.json", (c) => c.json(openApiDocument(new URL(c.req.url).origin)));

const RouteAuth = z.enum(["token", "open", "closed"]);

registerOperation({
  operationId: "health",
  method: "get",
  path: "/healthz",
  summary: "Liveness check",
  tag: "system",
  auth: "none",
  response: () => z.object({ ok: z.literal(true) }),
});
registerOperation({
  operationId: "status",
  method: "get",
  path: "/v1/status",
  summary:
    "Active revision, bundle source and age, auth mode, engines loaded, headline figures; with auth on, only `ok` and the auth mode unless the metrics or admin token is sent",
  tag: "system",
  auth: "none",
  response: () =>
    z.union([
      z
        .object({
          ok: z.boolean().describe("false while auth is misconfigured"),
          auth: z.enum(["enabled", "misconfigured"]),
          auth_problems: z
            .array(z.string())
            .optional()
            .describe("what is set wrong, naming each variable, never its value"),
        })
        .describe("the answer without a token while auth is on"),
      z.object({
        ok: z.literal(true),
        revision: z.string(),
        bundle: z.object({
          source: z.enum(["embedded", "kv"]),
          created_at: z.string(),
          age_seconds: z.number(),
          activated_at: z.string(),
        }),
        auth: z.enum(["enabled", "disabled"]),
        auth_routes: z
          .object({ admin: RouteAuth, decision: RouteAuth, agent: RouteAuth, metrics: RouteAuth })
          .describe(
            "how each route class is guarded: `token`, `open` (no token configured, or OPEN_ROUTES), `closed` (no accepted token is set)",
          ),
        engines: z.array(z.string()),
        cidr_lists: z
          .array(
            z.object({
              source: z.string(),
              last_success: z.string().nullable(),
              last_failure: z.string().nullable(),
              last_error: z.string().nullable(),
              count: z.number().int(),
              next_due: z.string().nullable(),
            }),
          )
          .describe("each `ip-cidr-list-url` source of the active limits policy and its download status"),
        metrics: z
          .object({
            scope: z
              .literal("isolate")
              .describe(
                "the figures are this isolate's, like GET /metrics's counters (docs/operations.md, Metrics)",
              ),
            uptime_seconds: z.number().int().describe("seconds since this isolate handled its first request"),
            decisions: z
              .object({
                total: z.number().int(),
                ...Object.fromEntries(ENGINE_NAMES.map((n) => [n, z.number().int()])),
              })
              .describe("decisions answered, in all and by engine (arbiter_decisions_total)"),
            cache: z
              .object({
                hits: z.number().int(),
                misses: z.number().int(),
                bypasses: z.number().int(),
                hit_ratio: z.number().nullable().describe("hits / (hits + misses); null before any lookup"),
              })
              .describe("the verdict cache of stateless decisions (arbiter_verdict_cache_requests_total)"),
            budget_exceeded: z
              .number()
              .int()
              .describe("decisions that spent their work budget (arbiter_budget_exceeded_total)"),
            revision_age_seconds: z
              .number()
              .int()
              .describe("seconds since the active bundle was compiled (bundle.age_seconds)"),
          })
          .describe("headline figures for the playground and dashboards"),
      }),
    ]),
});
registerOperation({
  operationId: "openApiDocument",
  method: "get",
  path: "/v1/openapi.json",
  summary: "This document",
  tag: "system",
  auth: "none",
  response: () =>
    z.looseObject({
      openapi: z.literal("3.1.0"),
      info: z.looseObject({}),
      paths: z.record(z.string(), z.unknown()),
    }),
});
