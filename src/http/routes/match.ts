import { Hono } from "hono";
import { ClassAdRequestError, decideAdCheck, decideMatch } from "../../engines/classad/index.js";
import { decisionRoute, type RouteContext } from "../decision.js";
import type { AppEnv } from "../../env.js";
import { ApiError } from "../errors.js";
import { EXPLAIN_QUERY, registerOperation } from "../openapi.js";
import { AdCheckRequest, MatchRequest } from "../schemas/match.js";
import { AdCheckVerdict, MatchVerdict } from "../schemas/match-verdicts.js";

type MatchPolicy = Parameters<typeof decideMatch>[0];

/** Turns an ad that does not parse into the 400 that names its field (`machines[3]`). */
export function badAdAsRequestError<T>(decide: () => T): T {
  try {
    return decide();
  } catch (e) {
    if (!(e instanceof ClassAdRequestError)) throw e;
    const at = "/" + e.field.replace(/\[(\d+)\]/g, "/$1").replace(/^\//, "");
    throw new ApiError("invalid_request", e.message, [{ code: "invalid_ad", message: e.message, at }]);
  }
}

/** The clock and the dice a ClassAd evaluation may use; verdicts that touch them are not cacheable. */
function evalContext(now: number, explain: boolean) {
  return { now, explain, random: Math.random };
}

/** Decides one match request in the Worker (the route's and the playground's decide). */
export function decideMatchRequest(policy: MatchPolicy, request: MatchRequest, ctx: Pick<RouteContext, "now" | "explain">) {
  return badAdAsRequestError(() => decideMatch(policy, request, evalContext(ctx.now, ctx.explain)));
}

/** HTCondor pool-wide policy: matchmaking under NEGOTIATOR_PE_* and the collector-side ad check. */
export const matchRoutes = new Hono<AppEnv>()
  .post(
    "/v1/match",
    decisionRoute({
      engine: "match",
      schema: MatchRequest,
      decide: decideMatchRequest,
    }),
  )
  .post(
    "/v1/ads/check",
    decisionRoute({
      engine: "match",
      kind: "ads-check",
      schema: AdCheckRequest,
      decide: (policy: MatchPolicy, request, ctx) =>
        badAdAsRequestError(() => decideAdCheck(policy, request, evalContext(ctx.now, ctx.explain))),
    }),
  );

registerOperation({
  operationId: "matchJob",
  method: "post",
  path: "/v1/match",
  summary: "Match a job against machines under the pool-wide policy",
  tag: "match",
  auth: "decision",
  request: MatchRequest,
  response: MatchVerdict,
  query: [EXPLAIN_QUERY],
  // reading the ads is charged to the work budget before any evaluation could report it
  errors: ["budget_exceeded"],
});
registerOperation({
  operationId: "checkAd",
  method: "post",
  path: "/v1/ads/check",
  summary: "Would the pool-wide policy discard this schedd, startd or job ad",
  tag: "match",
  auth: "decision",
  request: AdCheckRequest,
  response: AdCheckVerdict,
  query: [EXPLAIN_QUERY],
  errors: ["budget_exceeded"],
});
