import { engineOfKind, errorView, viewOf, type DecisionKind, type View } from "../bundle/compare/index.js";
import type { LoadedBundle } from "../bundle/index.js";
import { decideAdCheck } from "../engines/classad/index.js";
import { BudgetExceeded, decisionBudget } from "../engines/common/budget.js";
import { fieldName } from "../http/body.js";
import { AdCheckRequest } from "../http/schemas/match.js";
import { limitsEvaluator } from "./eval-limits.js";
import { jobfilterEvaluator } from "./eval-jobfilter.js";
import { matchEvaluator } from "./eval-match.js";
import { placementEvaluator } from "./eval-placement.js";
import type { PolicyEvaluator } from "./evaluator.js";

/** `POST /v1/ads/check` offline: the same schema and decide function as the route. */
const adCheckEvaluator: PolicyEvaluator<typeof AdCheckRequest, Parameters<typeof decideAdCheck>[0]> = {
  engine: "match",
  schema: AdCheckRequest,
  decide: (policy, request, ctx) =>
    decideAdCheck(policy, request, { now: ctx.now, explain: false, random: Math.random }),
};

/** The evaluator of each kind of decision; jobfilter lines carry their queue (`arbiter eval jobfilter`'s input). */
const EVALUATORS: Record<DecisionKind, PolicyEvaluator> = {
  limits: limitsEvaluator as PolicyEvaluator,
  placement: placementEvaluator as PolicyEvaluator,
  match: matchEvaluator as PolicyEvaluator,
  "ads-check": adCheckEvaluator as PolicyEvaluator,
  jobfilter: jobfilterEvaluator as PolicyEvaluator,
};

/** Why a request could not be decided under a policy folder (a skip reason), or its verdict's view. */
export type Decided = { ok: true; view: View } | { ok: false; skip: string };

/**
 * Decides one request of a kind under a compiled policy folder, as the API
 * route would at time `now`, and returns the verdict's compared view. A
 * request the route would refuse (schema, an ad that does not read) and a
 * folder without the engine's policy are skips, not verdicts; a spent work
 * budget is the error view the shadow report gives it.
 */
export async function decideUnder(
  bundle: LoadedBundle,
  kind: DecisionKind,
  request: unknown,
  now: number,
): Promise<Decided> {
  const evaluator = EVALUATORS[kind];
  const engine = engineOfKind(kind);
  const policy = bundle.policy(engine);
  if (policy === undefined) return { ok: false, skip: `no ${engine} policy in the folder` };
  const checked = evaluator.schema.safeParse(request);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return {
      ok: false,
      skip: `the request is not a ${kind} request: \`${fieldName(issue.path)}\`: ${issue.message}`,
    };
  }
  const budget = decisionBudget(process.env.DECISION_BUDGET);
  try {
    const decision = await budget.run(() =>
      evaluator.decide(policy, checked.data, { now, explain: false, budget }),
    );
    return { ok: true, view: viewOf(kind, decision.verdict) };
  } catch (e) {
    if (e instanceof BudgetExceeded) return { ok: true, view: errorView("budget_exceeded") };
    if ((e as { code?: unknown }).code === "invalid_request")
      return { ok: false, skip: `the request is refused: ${(e as Error).message}` };
    throw e;
  }
}
