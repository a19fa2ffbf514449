import { Hono, type Context } from "hono";
import * as z from "zod";
import type { Decision } from "../../engines/common/decision.js";
import { DEFAULT_FETCH_BUDGET, type CidrSet, type LimitsContext } from "../../engines/limits/context.js";
import { decideLimits, decideLimitsNow } from "../../engines/limits/index.js";
import { cidrListsFor, policySources, type LimitsPolicy } from "../../state/cidr-lists.js";
import { decisionRoute, type RouteContext } from "../decision.js";
import { resolverFor } from "../dns.js";
import { numberVar, type AppEnv } from "../../env.js";
import { MAX_BODY_BYTES } from "../body.js";
import { ApiError } from "../errors.js";
import { fetcherForIsolate } from "../url-fetch.js";
import { EXPLAIN_QUERY, registerOperation } from "../openapi.js";
import { LimitsRequest, LimitsRequestFast, limitsVerdictSchema, toEngineRequest } from "../schemas/limits.js";

type EngineVerdict = Awaited<ReturnType<typeof decideLimits>> extends Decision<infer V> ? V : never;

const noLists = (): CidrSet | undefined => undefined;

let localCache: { text: string; list: readonly string[] } | undefined;

/** Splits LOCAL_ADDRESSES (comma-separated addresses and CIDRs) once per distinct value. */
export function localAddresses(text: string | undefined): readonly string[] {
  const value = text ?? "";
  if (localCache?.text !== value) {
    const list = value
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a.length > 0);
    localCache = { text: value, list };
  }
  return localCache.list;
}

/**
 * Decides one limits request in the Worker: fills the requester from the
 * connecting address when the body has none, and hands the engine the
 * isolate's DNS-over-HTTPS resolver, the stored CIDR lists, the local
 * addresses and the url-fetch fetcher with its per-decision budget. A verdict about the connecting address is never cacheable,
 * because the verdict cache is keyed by the body, which does not name it. Without a promise
 * when the decision waits for nothing (no stored list to read, no DNS lookup, no URL fetch), so
 * that the route does not await it (as for every other engine).
 */
export function decide(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  ctx: Pick<RouteContext, "env" | "now" | "explain" | "connectingIp" | "budget">,
): Decision<EngineVerdict> | Promise<Decision<EngineVerdict>> {
  const substituted = request.requester === undefined && ctx.connectingIp !== null;
  const requester = request.requester ?? ctx.connectingIp ?? undefined;
  const sources = policy ? policySources(policy) : [];
  if (sources.length > 0)
    return cidrListsFor(ctx.env, sources, ctx.now).then((lists) =>
      decideWith(policy, request, requester, substituted, ctx, lists),
    );
  return decideWith(policy, request, requester, substituted, ctx, noLists);
}

/** {@link decide} once the stored CIDR lists (if any) are at hand. */
function decideWith(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  requester: string | undefined,
  substituted: boolean,
  ctx: Pick<RouteContext, "env" | "now" | "explain" | "connectingIp" | "budget">,
  cidrList: LimitsContext["cidrList"],
): Decision<EngineVerdict> | Promise<Decision<EngineVerdict>> {
  const context: LimitsContext = {
    now: ctx.now,
    explain: ctx.explain,
    dns: resolverFor(ctx.env.DOH_URL),
    cidrList,
    localAddresses: localAddresses(ctx.env.LOCAL_ADDRESSES),
    budget: ctx.budget,
    fetcher: fetcherForIsolate(),
    fetchBudget: numberVar(ctx.env.URL_FETCH_BUDGET, DEFAULT_FETCH_BUDGET),
  };
  const decided = decideLimitsNow(policy, toEngineRequest(request, requester), context);
  if (!substituted) return decided;
  return decided instanceof Promise ? decided.then(notCacheable) : notCacheable(decided);
}

/** A decision about the connecting address: never cacheable. */
function notCacheable(decision: Decision<EngineVerdict>): Decision<EngineVerdict> {
  return decision.cacheable ? { ...decision, cacheable: false } : decision;
}

/** A captured limits request names the requester the decision used: the connecting address when the body has none. */
export function withRequester(
  request: Record<string, unknown>,
  connectingIp: string | null,
): Record<string, unknown> | undefined {
  return request.requester === undefined && connectingIp !== null
    ? { ...request, requester: connectingIp }
    : undefined;
}

/**
 * The request of `GET /v1/limits/url-fetch` as JSON text: the `task`
 * parameter's JSON as sent (so number spellings and key order reach the
 * engine as they would in a body), and the `requester` and `server`
 * parameters when given. Other parameters are ignored: a url-fetch limit's
 * params-transform may add its own.
 */
export async function urlFetchRequest(c: Context<AppEnv>): Promise<string> {
  const task = c.req.query("task");
  if (task === undefined || task.trim() === "") {
    const message =
      "the `task` parameter is missing: pScheduler's url-fetch limit sends it with a params-transform (`.params.task = (.run | tojson)`)";
    throw new ApiError("invalid_request", message, [{ code: "missing", message, at: "/task" }]);
  }
  if (task.length > MAX_BODY_BYTES)
    throw new ApiError("payload_too_large", `the \`task\` parameter exceeds ${MAX_BODY_BYTES} bytes`);
  try {
    JSON.parse(task);
  } catch (e) {
    const message = `the \`task\` parameter is not JSON: ${(e as Error).message}`;
    throw new ApiError("invalid_request", message, [{ code: "invalid_json", message, at: "/task" }]);
  }
  let text = `{"task":${task}`;
  for (const name of ["requester", "server"]) {
    const value = c.req.query(name);
    if (value !== undefined && value.trim() !== "")
      text += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
  }
  return `${text}}`;
}

/** A limits verdict in the shape pScheduler's url-fetch limit reads: passed, and the diagnostics as the message. */
function urlFetchAnswer(verdict: Record<string, unknown>): { passed: boolean; message: string } {
  return { passed: verdict.allowed === true, message: String(verdict.diagnostics ?? "") };
}

/** What both limits routes decide with (bench/ladder/ builds its rungs from it). */
export const limitsDecision = {
  engine: "limits" as const,
  schema: LimitsRequest,
  fastSchema: LimitsRequestFast,
  decide,
  acceptsMissingPolicy: true,
  // the connecting address stands in for the requester only when the body names none
  readsConnectingIp: (request: LimitsRequest) => request.requester === undefined,
  amend: withRequester,
};

/**
 * POST /v1/limits/decide: may this pScheduler task (or this run of it) proceed.
 * GET /v1/limits/url-fetch: the same decision, asked and answered as
 * pScheduler's url-fetch limit asks a web service.
 */
export const limitsRoutes = new Hono<AppEnv>()
  .post("/v1/limits/decide", decisionRoute(limitsDecision))
  .get(
    "/v1/limits/url-fetch",
    decisionRoute({ ...limitsDecision, readRequest: urlFetchRequest, answer: urlFetchAnswer }),
  );

registerOperation({
  operationId: "decideLimits",
  method: "post",
  path: "/v1/limits/decide",
  summary:
    "Decide whether a pScheduler task or run is within the limits (a denial is 200 with allowed false)",
  tag: "limits",
  auth: "decision",
  request: LimitsRequest,
  response: limitsVerdictSchema,
  query: [EXPLAIN_QUERY],
  errors: ["answer_too_deep"],
});
registerOperation({
  operationId: "urlFetchLimits",
  method: "get",
  path: "/v1/limits/url-fetch",
  summary:
    "The limits decision as pScheduler's `url-fetch` limit asks a web service: the task (JSON) and requester as query parameters, `{passed, message}` back (docs/integrations/pscheduler.md)",
  tag: "limits",
  auth: "decision",
  query: [
    {
      name: "task",
      description:
        "the pScheduler task, JSON-encoded (`.params.task = (.run | tojson)` in the limit's params-transform)",
      schema: { type: "string" },
    },
    {
      name: "requester",
      description: 'the requester\'s address (`hint("requester")`); without it, the connecting address',
      schema: { type: "string" },
    },
    {
      name: "server",
      description: 'the pScheduler server\'s address (`hint("server")`), as `server` in a decide request',
      schema: { type: "string" },
    },
  ],
  errors: ["invalid_request", "invalid_json", "payload_too_large", "budget_exceeded", "answer_too_deep"],
  response: () =>
    z
      .object({
        passed: z.boolean().describe("the limits' verdict (`allowed`)"),
        message: z.string().describe("Arbiter's diagnostics, pScheduler's own text line by line"),
      })
      .strict(),
});
