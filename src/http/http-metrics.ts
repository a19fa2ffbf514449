import type { Hono } from "hono";
import type { AppEnv, Env } from "../env.js";
import type { HttpSeries } from "../metrics/index.js";
import { isolateFlusher, isolateMetrics } from "../state/isolate-metrics.js";

/** The route label of a request no route matched (404, 405). */
export const UNMATCHED_ROUTE = "unmatched";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A route's series, found once per route object the router hands back. */
const byRoute = new WeakMap<object, HttpSeries>();

/** The path of a request URL (what the router matches), without parsing a URL object. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** A Hono route path as the OpenAPI document writes it: `/v1/queues/:queue/jobs` → `/v1/queues/{queue}/jobs`. */
export function routeTemplate(path: string): string {
  return path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");
}

type Matched = [[unknown, { path: string; method: string }], unknown][];

/**
 * The HTTP series of a request (its method and URL text): its method and the template of the route the
 * app's router matches (as dispatching does; a fixed path's match is kept by
 * the router), or `unmatched`. Each route object's series is found once and kept.
 */
export function httpSeriesOf(app: Hono<AppEnv>, requestMethod: string, url: string): HttpSeries {
  const method = requestMethod === "HEAD" ? "GET" : requestMethod;
  const matched = (app.router.match(method, pathOf(url)) as unknown as [Matched])[0];
  const route = matched.at(-1)?.[0][1];
  if (route === undefined) {
    const label = METHODS.has(requestMethod) ? requestMethod : "other";
    return isolateMetrics.httpSeries(label, UNMATCHED_ROUTE);
  }
  let series = byRoute.get(route);
  if (series === undefined) {
    series = isolateMetrics.httpSeries(method, routeTemplate(route.path));
    byRoute.set(route, series);
  }
  return series;
}

/**
 * Counts an answered request (its status class, and a replay when it says
 * `Idempotent-Replayed: true`) and lets the flusher schedule a flush of the
 * isolate's counts with `waitUntil`, after the answer.
 */
export function countAnswer(
  series: HttpSeries,
  response: Response,
  /** Whether the answer was made with its headers set, request id included (`identified`). */
  identified: boolean,
  env: Env | undefined,
  ctx: { waitUntil(p: Promise<unknown>): void } | undefined,
): void {
  // A decision answer (made with its headers set, `identified`) is a 200 that never says it is a
  // replay: neither its status nor its headers are read again here (each read is a call into the runtime).
  if (identified) isolateMetrics.httpAnswer(series, 200);
  else {
    isolateMetrics.httpAnswer(series, response.status);
    if (response.headers.get("idempotent-replayed") === "true") isolateMetrics.replayCell(series.route).n++;
  }
  if (env === undefined || ctx === undefined) return;
  isolateFlusher.afterRequest(env, ctx);
}
