import { decideMatch } from "../engines/classad/index.js";
import { MatchRequest } from "../http/schemas/match.js";
import type { PolicyEvaluator } from "./evaluator.js";

/** `arbiter eval match --policy pool.conf`: /v1/match requests in, verdicts out. */
export const matchEvaluator: PolicyEvaluator<typeof MatchRequest, Parameters<typeof decideMatch>[0]> = {
  engine: "match",
  schema: MatchRequest,
  decide: (policy, request, ctx) =>
    decideMatch(policy, request, { now: ctx.now, explain: ctx.explain, random: Math.random }),
};
