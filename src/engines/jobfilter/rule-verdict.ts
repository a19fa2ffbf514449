import type { CompiledRule } from "./filter-set.js";
import type { JobDecision } from "./types.js";

/**
 * The verdict of a job's applying rule (null: none applies) once the ad-hoc
 * buckets let the job through; `taken` is how many of its rule's slots are in
 * use, read only for a rate limit.
 */
export function ruleVerdict(rule: CompiledRule | null, taken: number): JobDecision {
  if (rule === null) return { action: "ACCEPT", rule: null };
  switch (rule.kind) {
    case "ACCEPT":
    case "CONTINUE":
      return { action: "ACCEPT", rule: rule.uuid };
    case "PAUSE":
      return { action: "PAUSE", rule: rule.uuid };
    case "REJECT":
      return { action: "REJECT", rule: rule.uuid };
    case "RATE_LIMIT":
      return { action: taken >= rule.limit ? "RATE_LIMITED" : "ACCEPT", rule: rule.uuid };
  }
}
