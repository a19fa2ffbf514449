/**
 * Issue 24, item 8: decisions whose answer would carry a value a policy's jq
 * script built nested thousands of levels deep (the limits rewriter's task,
 * its change messages, the prioritizer's notes), as hostile rows: sent through
 * the Worker by `test/hostile/deep-answers.test.ts` and measured by
 * `npm run bench:hostile`. The depth is `max(n, 8,000)` levels. Pure data.
 */
import type { HostileRequest, HostileRow } from "./rows.js";

/** jq building a value nested `n` arrays deep. */
function deep(n: number): string {
  return `(reduce range(${n}) as $i (0; [.]))`;
}

/** A limits policy (schema 3) with this rewriter and prioritizer, whose one jq limit passes. */
function limitsPolicy(rewrite: string, priority = "."): string {
  return JSON.stringify({
    schema: 3,
    identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
    classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
    rewrite: { script: rewrite },
    priority: { script: priority },
    limits: [{ name: "j", description: "j", type: "jq", data: { script: "true" } }],
    applications: [{ apply: [{ require: "all", limits: ["j"] }] }],
  });
}

const TASK = { test: { type: "rtt", spec: {} } };

/** The playground decision under `policy` (the rewriter's answer is the verdict's `task`), with the trace. */
function playground(policy: string, prioritize = false): HostileRequest {
  return {
    method: "POST",
    path: "/v1/playground/limits",
    body: { policy, request: { requester: "192.0.2.1", task: TASK, prioritize } },
  };
}

/** A denial whose diagnostics are exactly `text` followed by the depth of the named field. */
function deniedTooDeep(prefix: string, field: string) {
  return (status: number, body: unknown): string | null => {
    const v = (body ?? {}) as { allowed?: boolean; diagnostics?: string };
    if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`;
    if (v.allowed !== false) return "allowed is not false";
    const want = `${prefix}\`${field}\` is nested more than 100 levels deep (the limit is 100)`;
    return v.diagnostics === want ? null : `diagnostics: ${v.diagnostics?.slice(0, 300)}`;
  };
}

const D = (n: number) => Math.max(n, 8000);

export const DEEP_ROWS: HostileRow[] = [
  {
    name: "`/v1/playground/limits`: the rewriter puts a value nested 8,000+ deep in the task",
    request: (n) => playground(limitsPolicy(`.test.spec.x = ${deep(D(n))}`)),
    check: deniedTooDeep("Error while rewriting: the rewritten task: ", "test.spec.x[0][0][0][0][0]…"),
  },
  {
    name: "`/v1/playground/limits`: the rewriter answers an invalid task nested 8,000+ deep",
    request: (n) => playground(limitsPolicy(`.test = ${deep(D(n))}`)),
    check: deniedTooDeep("Error while rewriting: the rewritten task: ", "test[0][0][0][0][0][0][0]…"),
  },
  {
    name: "`/v1/playground/limits`: a change message nested 8,000+ deep",
    request: (n) =>
      playground(
        limitsPolicy(`.__REWRITER_PRIVATE__.changed = true | .__REWRITER_PRIVATE__.diags = [${deep(D(n))}]`),
      ),
    check: deniedTooDeep(
      "Error while rewriting: the rewritten task: ",
      "__REWRITER_PRIVATE__.diags[0][0][0][0][0][0]…",
    ),
  },
  {
    name: "`/v1/playground/limits`: a priority note nested 8,000+ deep",
    request: (n) => playground(limitsPolicy(".", `.__PRIORITIZER_PRIVATE__.diags = [${deep(D(n))}]`), true),
    check: deniedTooDeep(
      "Error determining priority: the prioritizer's result: ",
      "__PRIORITIZER_PRIVATE__.diags[0][0][0][0][0][0]…",
    ),
  },
];
