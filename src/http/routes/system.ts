import { Hono } from "hono";
import { z } from "zod";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import { bundleInfo, getActiveBundle } from "../../state/policy-store.js";
import { authMode, authSettings } from "../auth.js";
import type { AppEnv } from "../../env.js";
import { openApiDocument, registerOperation } from "../openapi.js";
import { statusExtras } from "../status-extras.js";

/** Liveness, status and the OpenAPI document: the routes that decide nothing. */
export const systemRoutes = new Hono<AppEnv>()
  .get("/healthz", (c) => c.json({ ok: true }))
  .get("/v1/status", async (c) => {
    const bundle = await getActiveBundle(c.env);
    const info = bundleInfo();
    const now = Date.now();
    return c.json({
      revision: bundle.revision,
      bundle: {
        source: info.source,
        created_at: info.createdAt,
        age_seconds: Math.max(0, Math.round((now - Date.parse(info.createdAt)) / 1000)),
        activated_at: new Date(info.activatedAt).toISOString(),
      },
      auth: authMode(c.env),
      auth_routes: authSettings(c.env).routes,
      engines: ENGINE_NAMES.filter((n) => bundle.has(n)),
      ...(await statusExtras(c.env, bundle)),
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
  response: z.object({ ok: z.literal(true) }),
});
registerOperation({
  operationId: "status",
  method: "get",
  path: "/v1/status",
  summary: "Active revision, bundle source and age, auth mode, engines loaded",
  tag: "system",
  auth: "none",
  response: z.object({
    revision: z.string(),
    bundle: z.object({
      source: z.enum(["embedded", "kv"]),
      created_at: z.string(),
      age_seconds: z.number(),
      activated_at: z.string(),
    }),
    auth: z.enum(["enabled", "disabled"]),
    auth_routes: z
      .object({ admin: RouteAuth, decision: RouteAuth, agent: RouteAuth })
      .describe("how each route class is guarded: `token`, `open` (no token configured, or OPEN_ROUTES), `closed` (no accepted token is set)"),
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
  }),
});
registerOperation({
  operationId: "openApiDocument",
  method: "get",
  path: "/v1/openapi.json",
  summary: "This document",
  tag: "system",
  auth: "none",
  response: z.looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({}), paths: z.record(z.string(), z.unknown()) }),
});
