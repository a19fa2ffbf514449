import { Hono, type Context } from "hono";
import * as z from "zod";
import {
  parseRuleBody,
  parseUuid,
  readRapiJson,
  type FilterRule,
  type FloatLiterals,
} from "../../engines/jobfilter/index.js";
import { checkJsonShape, describeJsonShape } from "../../engines/common/json-shape.js";
import { authSettings, constantTimeEqual, misconfigured, ROLES, type Role } from "../auth.js";
import { depthRefused, readText } from "../body.js";
import { idempotencyKey, idempotencyRequest, keyReusedMessage } from "../idempotency.js";
import type { AppEnv } from "../../env.js";
import { ApiError, clipText } from "../errors.js";
import { BULK_QUERY, IDEMPOTENCY_HEADER, registerOperation } from "../openapi.js";
import { admit, isObjectOverloaded, overloaded, RETRY_AFTER_SECONDS } from "../overload.js";
import { jobSchemas } from "../schemas/jobs.js";
import { json, queueParam, queueStub } from "./jobs.js";
import { writeLog } from "../../log-line.js";

// Ganeti's RAPI (lib/server/rapi.py, lib/http/server.py, lib/http/auth.py, lib/rapi/rlib2.py) as its
// own client (lib/rapi/client.py) sees it: errors {code, message, explain}, the status's standard
// short text as the message when there is no other, HTTP Basic authentication, 501 for a method the
// resource lacks, 415 for a body that is not JSON.

/** Python's BaseHTTPRequestHandler texts per status: [message when none is given, explain]. */
const STATUS_TEXT: Record<number, readonly [string, string]> = {
  400: ["Bad Request", "Bad request syntax or unsupported method"],
  401: ["Unauthorized", "No permission -- see authorization schemes"],
  403: ["Forbidden", "Request forbidden -- authorization will not help"],
  404: ["Not Found", "Nothing matches the given URI"],
  413: ["Request Entity Too Large", "Entity is too large"],
  415: ["Unsupported Media Type", "Entity body in unsupported format"],
  422: ["Unprocessable Entity", "Unprocessable Entity"],
  500: ["Internal Server Error", "Server got itself in trouble"],
  501: ["Not Implemented", "Server does not support this operation"],
  503: ["Service Unavailable", "The server cannot process the request due to a high load"],
};

/** The realm Ganeti's RAPI daemon names in `WWW-Authenticate`. */
const REALM = 'Basic realm="Ganeti Remote API"';

type RapiStatus = 400 | 401 | 403 | 404 | 415 | 422 | 501;

class RapiError extends Error {
  constructor(
    readonly status: RapiStatus,
    message?: string,
  ) {
    super(message ?? STATUS_TEXT[status][0]);
  }
}

/** Ganeti's error body for a status; the message defaults to the status's short text. */
function rapiErrorResponse(c: Context<AppEnv>, status: number, message?: string): Response {
  const [short, explain] = STATUS_TEXT[status] ?? ["Unknown", "Unknown"];
  return json(c, { code: status, message: clipText(message ?? short), explain }, status);
}

/** The credential of an `Authorization` header: a bearer token, or a Basic password (the user name is not read). */
function credential(header: string): string | RapiError {
  const parts = header.trim().split(/\s+/);
  const scheme = (parts[0] ?? "").toLowerCase();
  if (scheme === "bearer" && parts.length === 2) return parts[1];
  if (scheme !== "basic") return new RapiError(401);
  if (parts.length < 2 || parts[1] === "")
    return new RapiError(400, "Basic authentication requires credentials");
  let decoded: string;
  try {
    decoded = atob(parts[1]);
  } catch {
    return new RapiError(401);
  }
  // Ganeti decodes the pair as ASCII and needs the colon between user and password.
  if (!/^[\x00-\x7f]*$/.test(decoded) || !decoded.includes(":")) return new RapiError(401);
  return decoded.slice(decoded.indexOf(":") + 1);
}

/**
 * Checks a Ganeti route's caller as Ganeti's RAPI does (401 with `WWW-Authenticate` for missing,
 * malformed or unknown credentials; 403 for a known token without the role) and, since Ganeti's
 * client can only send HTTP Basic, takes the token as the Basic password as well as a bearer token.
 */
function authorizeRapi(c: Context<AppEnv>, role: Role): void {
  const settings = authSettings(c.env);
  if (settings.problems.length > 0) throw misconfigured(settings);
  if (settings.routes[role] === "open") return;
  const given = credential(c.req.header("authorization") ?? "");
  if (given instanceof RapiError) throw given;
  let accepted = false;
  for (const t of settings.tokens[role]) accepted = constantTimeEqual(given, t) || accepted;
  if (accepted) return;
  let known = false;
  for (const r of ROLES) for (const t of settings.tokens[r]) known = constantTimeEqual(given, t) || known;
  throw new RapiError(known ? 403 : 401);
}

/** A request's JSON body as Ganeti's RAPI reads it: none when empty, else `application/json` only. */
async function readBody(
  c: Context<AppEnv>,
): Promise<{ value: unknown; floats?: FloatLiterals; text: string }> {
  const text = await readText(c);
  if (text === "") return { value: null, text };
  // Ganeti compares the whole header with `application/json`; parameters (`; charset=utf-8`) are allowed here.
  const type = (c.req.header("content-type") ?? "application/octet-stream")
    .split(";")[0]
    .trim()
    .toLowerCase();
  if (type !== "application/json") throw new RapiError(415);
  let parsed: { value: unknown; floats: FloatLiterals };
  try {
    parsed = readRapiJson(text);
  } catch {
    // nesting the exact reader refuses is named as the shape check names it
    const deep = depthRefused(text);
    throw new RapiError(400, deep === null ? "Unable to parse JSON data" : describeJsonShape(deep));
  }
  const violation = checkJsonShape(parsed.value);
  if (violation !== null) throw new RapiError(400, describeJsonShape(violation));
  return { ...parsed, text };
}

type Body = Awaited<ReturnType<typeof readBody>>;
type FilterHandler = (c: Context<AppEnv>, queue: string, body: Body) => Promise<Response>;

/** Wraps a filter handler: Ganeti's order of checks (auth, then the body), and its error shape for every failure. */
function rapi(handler: FilterHandler, role: Role) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    let release: (() => void) | undefined;
    try {
      authorizeRapi(c, role);
      const queue = queueParam(c);
      const body = await readBody(c);
      release = admit(c.env, `queue:${queue}`);
      return await handler(c, queue, body);
    } catch (err) {
      const e = isObjectOverloaded(err) ? overloaded("the queue has too much queued work; retry later") : err;
      if (e instanceof RapiError || e instanceof ApiError) {
        if (e.status === 401) c.header("WWW-Authenticate", REALM);
        if (e.status === 503) c.header("Retry-After", String(RETRY_AFTER_SECONDS));
        return rapiErrorResponse(c, e.status, e.message);
      }
      writeLog({ ts: new Date().toISOString(), event: "internal_error", error: String(e) }, "error");
      return rapiErrorResponse(c, 500, "internal error");
    } finally {
      release?.();
    }
  };
}

/** The answer to a method the resource does not have: Ganeti's 501, before any authentication. */
function notImplemented(c: Context<AppEnv>): Response {
  return rapiErrorResponse(
    c,
    501,
    `Method ${c.req.method} is unsupported for path ${new URL(c.req.url).pathname}`,
  );
}

/** Ganeti's 404 for any other path under `/2/`. */
export function rapiNotFound(c: Context<AppEnv>): Response {
  return rapiErrorResponse(c, 404);
}

/** A rule with its fields in the order Ganeti's RAPI answers them (rlib2's FILTER_RULE_FIELDS). */
function rapiRule(r: FilterRule) {
  return {
    watermark: r.watermark,
    priority: r.priority,
    predicates: r.predicates,
    action: r.action,
    reason_trail: r.reason_trail,
    uuid: r.uuid,
  };
}

function ruleBody(body: Body) {
  const rule = parseRuleBody(body.value, body.floats);
  if (!rule.ok) throw new RapiError(400, rule.error);
  return rule.value;
}

function uriBase(c: Context<AppEnv>, queue: string): string {
  return c.req.param("queue") === undefined ? "/2/filters" : `/v1/queues/${queue}/filters`;
}

const listFilters: FilterHandler = async (c, queue) => {
  const bulk = c.req.query("bulk");
  let isBulk = false;
  if (bulk !== undefined) {
    // Python's int(): surrounding whitespace, a sign, digits with single underscores between them.
    if (!/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(bulk))
      throw new RapiError(400, "Invalid value for the 'bulk' parameter");
    isBulk = /[1-9]/.test(bulk);
  }
  const rules = await queueStub(c.env, queue).listFilters();
  if (isBulk) return json(c, rules.map(rapiRule));
  const base = uriBase(c, queue);
  return json(
    c,
    rules.map((r) => ({ uuid: r.uuid, uri: `${base}/${r.uuid}` })),
  );
};

const addFilter: FilterHandler = async (c, queue, raw) => {
  const key = idempotencyKey(c);
  const body = ruleBody(raw);
  if (key === undefined) return json(c, await queueStub(c.env, queue).putFilter(queue, body));
  const once = await queueStub(c.env, queue).putFilterOnce(
    queue,
    body,
    await idempotencyRequest(key, "filters.add", raw.text),
  );
  if ("mismatch" in once) throw new RapiError(422, keyReusedMessage(key));
  if (once.replayed) c.header("Idempotent-Replayed", "true");
  return json(c, once.answer);
};

const getFilter: FilterHandler = async (c, queue) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  const rule = uuid === null ? null : await queueStub(c.env, queue).getFilter(uuid);
  // Ganeti's RAPI answers an unknown item with a bare 404 (baserlib.HandleItemQueryErrors).
  if (rule === null) throw new RapiError(404);
  return json(c, rapiRule(rule));
};

const replaceFilter: FilterHandler = async (c, queue, raw) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  if (uuid === null) throw new RapiError(400, "Unable to parse UUID");
  const body = ruleBody(raw);
  return json(c, await queueStub(c.env, queue).putFilter(queue, body, uuid));
};

const deleteFilter: FilterHandler = async (c, queue) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  const deleted = uuid !== null && (await queueStub(c.env, queue).deleteFilter(uuid));
  if (!deleted) throw new RapiError(404, `Filter rule with UUID ${c.req.param("uuid")} does not exist`);
  return json(c, null);
};

/** The Ganeti-compatible filter resources, for the default queue (`/2/filters`) and for named queues. */
export const filterRoutes = new Hono<AppEnv>();

for (const base of ["/2/filters", "/v1/queues/:queue/filters"]) {
  filterRoutes
    .get(base, rapi(listFilters, "decision"))
    .post(base, rapi(addFilter, "admin"))
    .all(base, notImplemented)
    .get(`${base}/:uuid`, rapi(getFilter, "decision"))
    .put(`${base}/:uuid`, rapi(replaceFilter, "admin"))
    .delete(`${base}/:uuid`, rapi(deleteFilter, "admin"))
    .all(`${base}/:uuid`, notImplemented);
}
filterRoutes.all("/2", rapiNotFound).all("/2/*", rapiNotFound);

for (const [base, param, id] of [
  ["/2/filters", "", "Filters"],
  ["/v1/queues/{queue}/filters", " of a named queue", "QueueFilters"],
] as const) {
  // Ganeti's RAPI shape for every error, and a named queue's name is checked (400) too.
  const ganeti = { errorShape: "ganeti", tag: "filters" } as const;
  registerOperation({
    ...ganeti,
    operationId: `list${id}`,
    method: "get",
    path: base,
    summary: `List filter rules${param} (?bulk=1: full rules)`,
    auth: "decision",
    query: [BULK_QUERY],
    errors: ["invalid_request"],
    response: () =>
      z.union([
        z.array(z.object({ uuid: z.string(), uri: z.string() })),
        z.array(jobSchemas().FilterRuleJson),
      ]),
  });
  registerOperation({
    ...ganeti,
    operationId: `add${id.slice(0, -1)}`,
    method: "post",
    path: base,
    summary: `Add a filter rule${param}; answers its uuid`,
    auth: "admin",
    request: () => jobSchemas().FilterBody,
    response: () => z.string(),
    headers: [IDEMPOTENCY_HEADER],
  });
  registerOperation({
    ...ganeti,
    operationId: `get${id.slice(0, -1)}`,
    method: "get",
    path: `${base}/{uuid}`,
    summary: `One filter rule${param}`,
    auth: "decision",
    errors: ["invalid_request", "not_found"],
    response: () => jobSchemas().FilterRuleJson,
  });
  registerOperation({
    ...ganeti,
    operationId: `replace${id.slice(0, -1)}`,
    method: "put",
    path: `${base}/{uuid}`,
    summary: `Replace or create a filter rule${param}`,
    auth: "admin",
    request: () => jobSchemas().FilterBody,
    response: () => z.string(),
  });
  registerOperation({
    ...ganeti,
    operationId: `delete${id.slice(0, -1)}`,
    method: "delete",
    path: `${base}/{uuid}`,
    summary: `Delete a filter rule${param}`,
    auth: "admin",
    errors: ["invalid_request", "not_found"],
    response: () => z.null(),
  });
}
