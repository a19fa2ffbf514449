import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isJsonObject } from "../engines/common/json.js";
import type { PolicyError } from "../engines/common/result.js";
import {
  compileCustomsPolicy,
  decideCustoms,
  DEFAULT_POLICY_DATA,
  loadCustomsPolicy,
  type CustomsPolicy,
} from "../engines/customs/index.js";
import type { LineEvaluator } from "./evaluator.js";

const policyFile = fileURLToPath(new URL("../../policies/customs.json", import.meta.url));

let basePolicy: CustomsPolicy | undefined;

/** The policy lines without their own use: policies/customs.json, or the spec's defaults when it is absent. */
function defaultPolicy(): CustomsPolicy | { error: object } {
  if (basePolicy) return basePolicy;
  let text: string;
  try {
    text = readFileSync(policyFile, "utf8");
  } catch {
    return (basePolicy = loadCustomsPolicy(DEFAULT_POLICY_DATA));
  }
  const compiled = compileCustomsPolicy(text);
  if (!compiled.ok) return errorBody("policy_invalid", compiled.error);
  return (basePolicy = loadCustomsPolicy(compiled.value));
}

function errorBody(code: string, errors: PolicyError[]): { error: object } {
  return { error: { code, message: errors[0]?.message ?? "invalid", details: errors } };
}

/**
 * `arbiter eval customs`: one pure host selection per line,
 * `{"hosts": [...], "request": {...}, "now"?, "last"?}` → `{"host", "ratings"}`;
 * a line `{"policy": <customs.json text or object>, "input": ...}` carries its own pool defaults.
 */
export const customsEvaluator: LineEvaluator = {
  evaluateLine(line: unknown): object {
    let policy = defaultPolicy();
    let input = line;
    if (isJsonObject(line) && "policy" in line && "input" in line) {
      const text = typeof line.policy === "string" ? line.policy : JSON.stringify(line.policy);
      const compiled = compileCustomsPolicy(text);
      if (!compiled.ok) return errorBody("policy_invalid", compiled.error);
      policy = loadCustomsPolicy(compiled.value);
      input = line.input;
    }
    if ("error" in policy) return policy;
    return customsAnswer(policy, input);
  },
};

/** One pure host selection as `arbiter eval customs` answers it: `{"host", "ratings"}`, or the `invalid_request` error. */
export function customsAnswer(policy: CustomsPolicy, input: unknown, now?: number): object {
  const decided = decideCustoms(policy, input, now);
  return decided.ok ? decided.value : errorBody("invalid_request", decided.error);
}
