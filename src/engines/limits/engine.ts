/**
 * The limits engine as the bundle sees it: compile (validate, normalize to
 * plain JSON) and load (build the decision-ready policy), plus the
 * `pscheduler validate-limits` form and the list sources for the refresh job.
 */
import type { EngineDefinition } from "../common/engine.js";
import type { JsonObject } from "../common/json.js";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import type { UrlSource } from "./identifiers.js";
import { buildPolicy, type LimitsPolicy } from "./policy.js";
import { parseLimitsText } from "./source.js";

export type { UrlSource } from "./identifiers.js";

/** Parses and checks a limits text, returning the first load error as pScheduler reports it. */
export function loadLimitsText(text: string): Result<LimitsPolicy, PolicyError> {
  const parsed = parseLimitsText(text);
  if (!parsed.ok) return err(parsed.error);
  const built = buildPolicy(parsed.value);
  if (!built.ok) return err(policyError(built.error.code, built.error.message, built.error.at));
  return ok(built.value);
}

/** The outcome of `pscheduler validate-limits`: the pointer and message, and the command's text. */
export type LimitsValidation =
  | { valid: true; text: string }
  | { valid: false; pointer: string; message: string; text: string };

/** Validates a limits file as `pscheduler validate-limits` does, without DNS lookups or list fetches. */
export function validateLimitsText(text: string): LimitsValidation {
  const r = loadLimitsText(text);
  if (r.ok) return { valid: true, text: "Limit configuration is valid." };
  return { valid: false, pointer: r.error.at, message: r.error.message, text: `Limit configuration is invalid:\n${r.error.message}` };
}

/** The ip-cidr-list-url sources of a loaded policy, so the scheduled job knows what to fetch. */
export function urlSources(policy: LimitsPolicy): UrlSource[] {
  return [...policy.urlSources];
}

/** The engine definition the bundle registers under `limits`. */
export const limitsEngine: EngineDefinition<JsonObject, LimitsPolicy> = {
  name: "limits",
  file: "limits.json",
  format: "pscheduler-limits",
  compile(source: string): Result<JsonObject, PolicyError[]> {
    const r = loadLimitsText(source);
    return r.ok ? ok(r.value.source) : err([r.error]);
  },
  load(data: JsonObject): LimitsPolicy {
    const built = buildPolicy(data);
    if (!built.ok) throw new Error(`limits policy data failed to load: ${built.error.message}`);
    return built.value;
  },
};
