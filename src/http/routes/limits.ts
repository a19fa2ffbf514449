import { Hono } from "hono";
import type { Decision } from "../../engines/common/decision.js";
import { DEFAULT_FETCH_BUDGET, type CidrSet, type LimitsContext } from "../../engines/limits/context.js";
import { decideLimits } from "../../engines/limits/index.js";
import { cidrListsFor, policySources, type LimitsPolicy } from "../../state/cidr-lists.js";
import { decisionRoute, type RouteContext } from "../decision.js";
import { resolverFor } from "../dns.js";
import { numberVar, type AppEnv } from "../../env.js";
import { fetcherForIsolate } from "../url-fetch.js";
import { EXPLAIN_QUERY, registerOperation } from "../openapi.js";
import { LimitsRequest, LimitsVerdict, toEngineRequest } from "../schemas/limits.js";

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
 * because the verdict cache is keyed by the body, which does not name it.
 */
export async function decide(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  ctx: RouteContext,
): Promise<Decision<EngineVerdict>> {
  const substituted = request.requester === undefined && ctx.connectingIp !== null;
  const requester = request.requester ?? ctx.connectingIp ?? undefined;
  const sources = policy ? policySources(policy) : [];
  const context: LimitsContext = {
    now: ctx.now,
    explain: ctx.explain,
    dns: resolverFor(ctx.env.DOH_URL),
    cidrList: sources.length > 0 ? await cidrListsFor(ctx.env, sources, ctx.now) : noLists,
    localAddresses: localAddresses(ctx.env.LOCAL_ADDRESSES),
    budget: ctx.budget,
    fetcher: fetcherForIsolate(),
    fetchBudget: numberVar(ctx.env.URL_FETCH_BUDGET, DEFAULT_FETCH_BUDGET),
  };
  const decision = await decideLimits(policy, toEngineRequest(request, requester), context);
  return substituted && decision.cacheable ? { ...decision, cacheable: false } : decision;
}

/** A captured limits request names the requester the decision used: the connecting address when the body has none. */
export function withRequester(request: Record<string, unknown>, connectingIp: string | null): Record<string, unknown> | undefined {
  return request.requester === undefined && connectingIp !== null ? { ...request, requester: connectingIp } : undefined;
}

/** POST /v1/limits/decide: may this pScheduler task (or this run of it) proceed. */
export const limitsRoutes = new Hono<AppEnv>().post(
  "/v1/limits/decide",
  decisionRoute({ engine: "limits", schema: LimitsRequest, decide, acceptsMissingPolicy: true, amend: withRequester }),
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
  response: LimitsVerdict,
  query: [EXPLAIN_QUERY],
});
