import { compileBundle, ENGINES } from "../bundle/index.js";
import { BudgetExceeded, decisionBudget } from "../engines/common/budget.js";
import { shapeVerdict } from "../engines/common/decision.js";
import type { EngineName } from "../engines/common/engine.js";
import { fieldName, pointer } from "../http/body.js";
import type { PolicyEvaluator } from "./evaluator.js";

/** A compiled, loaded policy with the revision a bundle of it alone would have. */
export interface ReadyPolicy {
  policy: unknown;
  revision: string;
}

/** A policy ready to decide, or the `policy_invalid` answer (with every error) that stands for it. */
export type PolicyOutcome =
  | { ok: true; ready: ReadyPolicy }
  | {
      ok: false;
      error: {
        error: { code: string; message: string; details: { code: string; message: string; at: string }[] };
      };
    };

/** Compiles one engine's source as a bundle of its own and loads it, as `arbiter eval` and `arbiter test` both use policies. */
export async function preparePolicy(engine: EngineName, source: string): Promise<PolicyOutcome> {
  const bundle = await compileBundle({ [engine]: source }, new Date(0).toISOString());
  if (!bundle.ok) {
    const details = bundle.error.map((e) => ({ code: e.code, message: e.message, at: e.at }));
    return {
      ok: false,
      error: { error: { code: "policy_invalid", message: details[0]?.message ?? "invalid policy", details } },
    };
  }
  const entry = bundle.value.engines[engine];
  return {
    ok: true,
    ready: { policy: ENGINES[engine].load(entry?.compiled), revision: bundle.value.revision },
  };
}

/**
 * The answer to one request, exactly as `arbiter eval` prints it: the verdict in
 * the API's envelope, or `{"error": {"code": "invalid_request", ...}}` for a
 * request the schema or the engine refuses, or `budget_exceeded` for a decision
 * past DECISION_BUDGET. `arbiter test` matches these answers.
 */
export async function answerRequest(
  evaluator: PolicyEvaluator,
  ready: ReadyPolicy,
  input: unknown,
  now: number,
): Promise<object> {
  const checked = evaluator.schema.safeParse(input);
  if (!checked.success) {
    const details = checked.error.issues.map((i) => ({
      code: i.code,
      message: `\`${fieldName(i.path)}\`: ${i.message}`,
      at: pointer(i.path),
    }));
    return { error: { code: "invalid_request", message: details[0]?.message, details } };
  }
  let decision;
  const budget = decisionBudget(process.env.DECISION_BUDGET);
  try {
    decision = await budget.run(() =>
      evaluator.decide(ready.policy, checked.data, { now, explain: false, budget }),
    );
  } catch (e) {
    // Engines reject request content their schema cannot see (an ad that does not parse) by a typed error,
    // and a decision that spends its work budget where its engine has no verdict for it is `budget_exceeded`.
    if (e instanceof BudgetExceeded) return { error: { code: "budget_exceeded", message: e.message } };
    if ((e as { code?: unknown }).code !== "invalid_request") throw e;
    return { error: { code: "invalid_request", message: (e as Error).message } };
  }
  return shapeVerdict(decision, crypto.randomUUID(), ready.revision, false);
}
