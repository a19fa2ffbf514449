import { Hono, type Context } from "hono";
import {
  analysisText,
  analyzeMatch,
  ClassAdRequestError,
  decideAdCheck,
  decideMatch,
} from "../../engines/classad/index.js";
import { BudgetExceeded, decisionBudget } from "../../engines/common/budget.js";
import { shapeVerdict } from "../../engines/common/decision.js";
import { writeLog } from "../../log-line.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { answerJson } from "../answer-json.js";
import { authorize } from "../auth.js";
import { parseJsonText, readJsonText, validate } from "../body.js";
import { decideWithin, decisionRoute, elapsedMs, newDecisionId, type RouteContext } from "../decision.js";
import type { AppEnv } from "../../env.js";
import { ApiError } from "../errors.js";
import { EXPLAIN_QUERY, registerOperation, type QueryParam } from "../openapi.js";
import { AdCheckRequest, MatchRequest } from "../schemas/match.js";
import { matchVerdictSchemas } from "../schemas/match-verdicts.js";

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
export function decideMatchRequest(
  policy: MatchPolicy,
  request: MatchRequest,
  ctx: Pick<RouteContext, "now" | "explain">,
) {
  return badAdAsRequestError(() => decideMatch(policy, request, evalContext(ctx.now, ctx.explain)));
}

/** `?format=text`: the analysis as text laid out like `condor_q -better-analyze`'s report. */
const FORMAT_QUERY: QueryParam = {
  name: "format",
  description:
    "`text` answers the analysis as text laid out like `condor_q -better-analyze` (text/plain); `json` (the default) as JSON",
  schema: { type: "string", enum: ["json", "text"] },
};

/**
 * `POST /v1/match/analyze`: the match request analysed under the active pool
 * policy (src/engines/classad/analyze.ts), as JSON or, with `?format=text`,
 * as text. Not a decision: never cached, logged as `match_analysis`.
 */
async function analyzeRoute(c: Context<AppEnv>): Promise<Response> {
  const started = Date.now();
  authorize(c, "decision");
  const format = c.req.query("format") ?? "json";
  if (format !== "json" && format !== "text") {
    const message = `\`format\` is \`json\` or \`text\`, not \`${format.slice(0, 40)}\``;
    throw new ApiError("invalid_request", message, [{ code: "invalid_format", message, at: "?format" }]);
  }
  const request = validate(MatchRequest, parseJsonText(await readJsonText(c)));
  const bundle = await getActiveBundle(c.env);
  const policy = bundle.policy<MatchPolicy>("match");
  if (policy === undefined) throw new ApiError("service_unavailable", "no `match` policy is loaded");
  const now = Date.now();
  const budget = decisionBudget(c.env.DECISION_BUDGET);
  const decision = await decideWithin(budget, () =>
    badAdAsRequestError(() => analyzeMatch(policy, request, evalContext(now, false))),
  );
  const body = shapeVerdict(decision, newDecisionId(), bundle.revision, false);
  writeLog({
    ts: new Date(now).toISOString(),
    event: "match_analysis",
    decision_id: body.decision_id,
    revision: bundle.revision,
    outcome: decision.outcome,
    ms: elapsedMs(started),
  });
  if (format === "text")
    return c.body(analysisText(decision.verdict), 200, { "content-type": "text/plain; charset=utf-8" });
  return c.body(answerJson(body), 200, { "content-type": "application/json" });
}

/**
 * The playground's match decision: the verdict with its trace, and in the
 * trace the analysis of the same request under the same posted policy
 * (`analysis`, the body /v1/match/analyze answers; null when the work budget
 * ran out before it was done).
 */
export function decideMatchWithAnalysis(
  policy: MatchPolicy,
  request: MatchRequest,
  ctx: Pick<RouteContext, "now" | "explain">,
) {
  const decision = decideMatchRequest(policy, request, ctx);
  let analysis: object | null = null;
  try {
    analysis = analyzeMatch(policy, request, evalContext(ctx.now, false)).verdict;
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
  }
  return { ...decision, trace: { ...(decision.trace as object), analysis } };
}

/** What `POST /v1/match` decides with (bench/ladder/ builds its rungs from it). */
export const matchDecision = { engine: "match" as const, schema: MatchRequest, decide: decideMatchRequest };

/** HTCondor pool-wide policy: matchmaking under NEGOTIATOR_PE_*, its analysis and the collector-side ad check. */
export const matchRoutes = new Hono<AppEnv>()
  .post("/v1/match", decisionRoute(matchDecision))
  .post("/v1/match/analyze", analyzeRoute)
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
  response: () => matchVerdictSchemas().MatchVerdict,
  query: [EXPLAIN_QUERY],
  // reading the ads is charged to the work budget before any evaluation could report it
  errors: ["budget_exceeded"],
});
registerOperation({
  operationId: "analyzeMatch",
  method: "post",
  path: "/v1/match/analyze",
  summary:
    "Why a job matches the machines it does, as condor_q -better-analyze tells it: how the machines split, each condition of the job's Requirements and the machines it matches, the machines' own blocking conditions, suggestions",
  tag: "match",
  auth: "decision",
  request: MatchRequest,
  response: () => matchVerdictSchemas().MatchAnalysisVerdict,
  alsoText: "text/plain",
  query: [FORMAT_QUERY],
  example: {
    decision_id: "3442a180-e0a2-4b45-921d-363e48635270",
    revision: "a5250a4ffe8532837becb05b0191ebb973e960077897d6598aaa7e1fb6fc6b44",
    cacheable: true,
    job: { id: "#0", discarded: false },
    machines: { total: 2, discarded_by_policy: 0, rejected_by_job: 1, rejecting_job: 0, matching: 1 },
    requirements: [{ origin: "Requirements", expr: "TARGET.Memory >= RequestMemory" }],
    job_attributes: [{ name: "RequestMemory", expr: "1024" }],
    clauses: [
      {
        index: 0,
        origin: "Requirements",
        expr: "TARGET.Memory >= RequestMemory",
        matches: 1,
        values: [
          {
            expr: "TARGET.Memory",
            min: 512,
            max: 2048,
            values: [
              { value: "2048", machines: 1 },
              { value: "512", machines: 1 },
            ],
            distinct: 2,
          },
          { expr: "RequestMemory", value: "1024" },
        ],
      },
    ],
    machine_side: [],
    suggestions: [
      {
        kind: "modify",
        clause: 0,
        message: "modify RequestMemory to 512 to match 1 more machine",
        attribute: "RequestMemory",
        from: "1024",
        to: "512",
        more: 1,
      },
    ],
  },
  errors: ["budget_exceeded", "answer_too_deep"],
});
registerOperation({
  operationId: "checkAd",
  method: "post",
  path: "/v1/ads/check",
  summary: "Would the pool-wide policy discard this schedd, startd or job ad",
  tag: "match",
  auth: "decision",
  request: AdCheckRequest,
  response: () => matchVerdictSchemas().AdCheckVerdict,
  query: [EXPLAIN_QUERY],
  errors: ["budget_exceeded"],
});
