import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { getPath as honoPath } from "hono/utils/url";
import type { AppEnv, Env } from "../env.js";
import type { HttpSeries } from "../metrics/index.js";
import { ApiError, errorBody } from "./errors.js";
import { noteRequest } from "./metrics.js";
import { countAnswer, httpSeriesOf } from "./http-metrics.js";
import { RequestScope, requestIdOf } from "./request-id.js";
import { listOperations } from "./openapi.js";
import { isObjectOverloaded, overloaded, RETRY_AFTER_SECONDS } from "./overload.js";
import { hostRoutes } from "./routes/hosts.js";
import { jobRoutes } from "./routes/jobs.js";
import { queueRoutes } from "./routes/queues.js";
import { filterRoutes } from "./routes/rapi-filters.js";
import { limitsRoutes } from "./routes/limits.js";
import { matchRoutes } from "./routes/match.js";
import { metricsRoutes } from "./routes/metrics.js";
import { placementRoutes } from "./routes/placement.js";
import { playgroundRoutes } from "./routes/playground.js";
import { schemaRoutes } from "./routes/schemas.js";
import { policyRoutes } from "./routes/policies.js";
import { candidateRoutes } from "./routes/candidate.js";
import { systemRoutes } from "./routes/system.js";
import { writeLog } from "../log-line.js";

/**
 * The method Hono's dispatch of the request being answered gave the router (`request.method`, read
 * by Hono): the router keeps its first match's method while `capturingMethod` is set, so the Worker's
 * fetch need not read `request.method` again for the request's metrics series (in workerd a call into
 * the runtime, about 1,840 instructions; docs/performance.md, wt/floor7). Undefined when the dispatch
 * did not reach the router before returning.
 */
let capturingMethod = false;
let matchedMethod: string | undefined;

/** Methods whose match on a fixed path is kept (any other method token is matched afresh each time, so it keeps nothing). */
const KEPT_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * Hono's trie router, with the match of each route path that has no parameter or
 * wildcard (every decision route's) kept after its first request, per method. Hono's
 * default router tries its regular-expression router first, which cannot hold this
 * API (a parameter beside fixed names: `/v1/policies/:engine` and
 * `/v1/policies/history`), and falls back to the trie; the trie splits the path and
 * walks it on every match, and each request is matched twice (its metrics series, then
 * the dispatch). A match depends only on the method and path and the routes added,
 * so a kept one is dropped whenever a route is added.
 */
class KeptMatchRouter<T> implements Router<T> {
  readonly name = "TrieRouter";
  readonly #trie = new TrieRouter<T>();
  /** For each fixed route path, its matches by method. */
  readonly #kept = new Map<string, Map<string, Result<T>>>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    for (const byMethod of this.#kept.values()) byMethod.clear();
    if (!/[:*]/.test(path) && !this.#kept.has(path)) this.#kept.set(path, new Map());
  }

  match(method: string, path: string): Result<T> {
    if (capturingMethod) {
      capturingMethod = false;
      matchedMethod = method;
    }
    const byMethod = this.#kept.get(path);
    if (byMethod === undefined) return this.#trie.match(method, path);
    let result = byMethod.get(method);
    if (result === undefined) {
      result = this.#trie.match(method, path);
      if (KEPT_METHODS.has(method)) byMethod.set(method, result);
    }
    return result;
  }
}

/** The whole HTTP API: one error envelope, one request id per request, routes per concern. */
/** The request being handed to Hono's dispatch, and its URL text read once: Hono's path is read from it. */
let dispatchingRequest: Request | undefined;
let dispatchingUrl = "";

export const app = new Hono<AppEnv>({
  router: new KeptMatchRouter(),
  // Hono's own path reading, of the URL text read before dispatch (Hono reads the path first thing, synchronously)
  getPath: (request) =>
    honoPath(request === dispatchingRequest ? ({ url: dispatchingUrl } as Request) : request),
});

/** Sets a header on an answer, copying the answer first when its headers are immutable (a fetched Response). */
function withHeader(response: Response, name: string, value: string): Response {
  try {
    response.headers.set(name, value);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    copy.headers.set(name, value);
    return copy;
  }
}

// The request id is given around Hono's dispatch rather than by a `*` middleware, so a
// route with one handler takes Hono's single-handler path instead of composing a chain
// per request (docs/performance.md, the HTTP floor).
// The request's id and the answer's mark live in a scope object Hono holds as the execution
// context, not on the runtime's own Request and Response (src/http/request-id.ts says why).
const dispatch = app.fetch;
app.fetch = (request, env, ctx) => {
  noteRequest();
  const url = request.url;
  const headers = request.headers;
  const scope = new RequestScope(
    headers.get("x-request-id")?.slice(0, 64) || crypto.randomUUID(),
    ctx,
    url,
    headers,
  );
  dispatchingRequest = request;
  dispatchingUrl = url;
  capturingMethod = true;
  matchedMethod = undefined;
  let answer: Response | Promise<Response>;
  try {
    answer = dispatch(request, env, scope as unknown as ExecutionContext);
  } finally {
    dispatchingRequest = undefined;
    capturingMethod = false;
  }
  // Hono matches a HEAD request as GET: a GET (or no match) is read from the request itself
  const method = matchedMethod !== undefined && matchedMethod !== "GET" ? matchedMethod : request.method;
  const series = httpSeriesOf(app, method, url);
  // not an async function: one reaction on Hono's promise, not an async frame awaiting it (and none for an answer made at once)
  if (!(answer instanceof Promise)) return answered(answer, scope, series, env, ctx);
  return answer.then((response) => answered(response, scope, series, env, ctx));
};

/** A request's answer on its way out: counted, and given the request's id when it was made without it. */
function answered(
  response: Response,
  scope: RequestScope,
  series: HttpSeries,
  env: unknown,
  ctx: { waitUntil(promise: Promise<unknown>): void } | undefined,
): Response {
  const carries = scope.answered === response;
  countAnswer(series, response, carries, env as Env | undefined, ctx);
  return carries ? response : withHeader(response, "X-Request-Id", scope.requestId);
}

app.onError((error, c) => {
  const requestId = requestIdOf(c);
  if (isObjectOverloaded(error))
    error = overloaded("the Durable Object has too much queued work; retry later");
  if (error instanceof ApiError && error.code === "overloaded")
    c.header("Retry-After", String(RETRY_AFTER_SECONDS));
  if (error instanceof ApiError) {
    return c.json(
      errorBody(error.code, error.message, requestId, error.details, error.fields),
      error.status as 400,
    );
  }
  if (error instanceof HTTPException) {
    const code =
      error.status === 413 ? "payload_too_large" : error.status === 401 ? "unauthorized" : "invalid_request";
    return c.json(errorBody(code, error.message || code, requestId), error.status);
  }
  writeLog(
    { ts: new Date().toISOString(), event: "internal_error", request_id: requestId, error: String(error) },
    "error",
  );
  return c.json(errorBody("internal_error", "internal error", requestId), 500);
});

app.notFound((c) => {
  const path = new URL(c.req.url).pathname;
  const allowed = allowedMethods(path);
  if (allowed.length > 0) {
    c.header("Allow", allowed.join(", "));
    return c.json(
      errorBody(
        "method_not_allowed",
        `${c.req.method} is not allowed on ${path}; use ${allowed.join(" or ")}`,
        requestIdOf(c),
      ),
      405,
    );
  }
  return c.json(errorBody("not_found", `no route for ${c.req.method} ${path}`, requestIdOf(c)), 404);
});

app.route("/", systemRoutes);
app.route("/", metricsRoutes);
app.route("/", policyRoutes);
app.route("/", candidateRoutes);
app.route("/", placementRoutes);
app.route("/", limitsRoutes);
app.route("/", matchRoutes);
app.route("/", filterRoutes);
app.route("/", jobRoutes);
app.route("/", queueRoutes);
app.route("/", hostRoutes);
app.route("/", playgroundRoutes);
app.route("/", schemaRoutes);

let routeShapes: { pattern: RegExp; method: string }[] | undefined;

/** The methods the documented routes accept on a path, to tell 405 from 404. */
function allowedMethods(path: string): string[] {
  routeShapes ??= listOperations().map((op) => ({
    pattern: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`),
    method: op.method.toUpperCase(),
  }));
  return [...new Set(routeShapes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}
