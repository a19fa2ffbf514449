import type { Context } from "hono";
import { engineOfKind, errorView, viewOf, type DecisionKind, type View } from "../bundle/compare/index.js";
import { BudgetExceeded, decisionBudget } from "../engines/common/budget.js";
import type { Decision } from "../engines/common/decision.js";
import type { AppEnv } from "../env.js";
import { candidateNow, type LiveCandidate } from "../state/policy-store.js";
import { recordComparison } from "../state/shadow-batch.js";
import { afterAnswer, errorText } from "./capture.js";
import type { RouteContext } from "./decision.js";
import { ApiError } from "./errors.js";
import { shadowSample } from "./routes/candidate.js";
import { writeLog } from "../log-line.js";

/** What the candidate is asked: the same request, under the same context, after the answer. */
export interface ShadowJob<P, R> {
  kind: DecisionKind;
  /** The validated request (for answers from the verdict cache, parsed and validated only now). */
  request: () => R;
  /** The request as a plain value, for the report's examples. */
  requestValue: () => unknown;
  /** The active verdict: the engine's verdict, or the cached answer's JSON text. */
  active: object | string;
  /** The route's own decide function. */
  decide: (policy: P, request: R, ctx: RouteContext) => Decision<object> | Promise<Decision<object>>;
  /** The primary decision's context (clock, connecting address, environment); budget and bundle are the candidate's own. */
  ctx: Omit<RouteContext, "budget" | "bundle" | "revision">;
  /** Engines deciding without a policy (limits) take null. */
  acceptsMissingPolicy?: boolean;
}

/** The candidate, if one is staged for this kind's engine and this decision falls in the sample. */
export function sampledCandidate(c: Context<AppEnv>, kind: DecisionKind): LiveCandidate | null {
  const candidate = candidateNow();
  if (candidate === null || !candidate.record.staged.includes(engineOfKind(kind))) return null;
  const sample = shadowSample(c.env.SHADOW_SAMPLE);
  return sample >= 1 || Math.random() < sample ? candidate : null;
}

/** The candidate's verdict view, or the view of the error its decision ended in. */
async function candidateView<P, R>(
  job: ShadowJob<P, R>,
  candidate: LiveCandidate,
  request: R,
): Promise<View> {
  const engine = engineOfKind(job.kind);
  const policy = candidate.loaded.policy<P>(engine) ?? (job.acceptsMissingPolicy ? (null as P) : undefined);
  if (policy === undefined) return errorView("service_unavailable");
  const budget = decisionBudget(job.ctx.env.DECISION_BUDGET);
  const ctx: RouteContext = {
    ...job.ctx,
    explain: false,
    budget,
    bundle: candidate.loaded,
    revision: candidate.loaded.revision,
  };
  try {
    const decision = await budget.run(() => job.decide(policy, request, ctx));
    return viewOf(job.kind, decision.verdict);
  } catch (e) {
    if (e instanceof BudgetExceeded) return errorView("budget_exceeded");
    if (e instanceof ApiError) return errorView(e.code);
    writeLog(
      { ts: new Date().toISOString(), event: "shadow_decision_failed", kind: job.kind, error: errorText(e) },
      "error",
    );
    return errorView("internal_error");
  }
}

/**
 * Evaluates a decision again under the staged candidate, after the answer is
 * sent (ctx.waitUntil): never on the response path, never changing the answer,
 * never reading or writing the verdict cache. The two verdicts' compared fields
 * make an outcome pair (or agree); the pair, with a masked example while the
 * report still keeps examples of it, goes to the isolate's batch for the
 * coordinator. The caller has drawn the candidate with `sampledCandidate`:
 * decisions outside SHADOW_SAMPLE, and engines it did not stage, cost that check only.
 */
export function shadowDecision<P, R>(
  c: Context<AppEnv>,
  candidate: LiveCandidate,
  job: ShadowJob<P, R>,
): void {
  const env = c.env;
  afterAnswer(c, async () => {
    const request = job.request();
    const active = viewOf(
      job.kind,
      typeof job.active === "string" ? (JSON.parse(job.active) as object) : job.active,
    );
    const shadow = await candidateView(job, candidate, request);
    await recordComparison(env, candidate, job.kind, job.requestValue(), active, shadow);
  });
}
