/**
 * What of a verdict is compared when two policies decide the same request: per
 * kind of decision, the fields its caller acts on, in order of weight. Envelope
 * fields (decision_id, revision, cacheable), traces and explanatory texts
 * (limits diagnostics, the match log) are left out: they change with any edit of
 * a policy and say nothing about what the caller will do.
 */
import type { EngineName } from "../../engines/common/engine.js";
import { canonicalJson } from "../canonical.js";

/** The decisions shadow evaluation and replay compare; `ads-check` is the match engine's `/v1/ads/check`. */
export const DECISION_KINDS = ["limits", "placement", "match", "ads-check", "jobfilter"] as const;

/** One kind of decision. */
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** The engine a kind of decision belongs to. */
export function engineOfKind(kind: DecisionKind): EngineName {
  return kind === "ads-check" ? "match" : kind;
}

/** The compared fields of one verdict, in order; or the error a decision ended in. */
export type View = Record<string, unknown>;

type Verdict = Record<string, unknown>;

const count = (machines: unknown): number =>
  Array.isArray(machines) ? machines.filter((m) => (m as { match?: unknown })?.match === true).length : 0;

const VIEWS: Record<DecisionKind, (v: Verdict) => View> = {
  limits: (v) => ({ allowed: v.allowed ?? null, priority: v.priority ?? null, task: v.task ?? null }),
  placement: (v) => ({ rejected: v.rejected ?? null, queue: v.queue ?? null, create: v.create ?? null }),
  match: (v) => ({
    job_discarded: (v.job as Verdict | undefined)?.discarded ?? null,
    schedd_discarded: (v.schedd as Verdict | undefined)?.discarded ?? null,
    best: v.best ?? null,
    // a best-N verdict lists N machines at most: its counts say how many matched
    matched:
      typeof (v.counts as Verdict | undefined)?.matched === "number"
        ? (v.counts as Verdict).matched
        : count(v.machines),
  }),
  "ads-check": (v) => ({ discarded: v.discarded ?? null }),
  jobfilter: (v) => ({ action: v.action ?? null }),
};

/** The compared view of a verdict (the engine's answer, with or without its envelope). */
export function viewOf(kind: DecisionKind, verdict: object): View {
  return VIEWS[kind](verdict as Verdict);
}

/** The view of a decision that ended in an error instead of a verdict (a spent work budget, an ad that does not read). */
export function errorView(code: string): View {
  return { error: code };
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "[…]";
  if (typeof value === "object") return "{…}";
  return String(value);
}

/**
 * The outcome pair two views fall in, or null when they agree: the first field
 * that differs, with both values, as `allowed true → false`. Objects and arrays
 * show as `{…}` and `[…]`, so a pair's name stays short; a decision that ended in
 * an error pairs as `error none → budget_exceeded`.
 */
export function pairOf(active: View, candidate: View): string | null {
  if ("error" in active || "error" in candidate) {
    if (active.error === candidate.error) return null;
    return `error ${shown(active.error ?? "none")} → ${shown(candidate.error ?? "none")}`;
  }
  for (const field of Object.keys(active)) {
    const a = active[field];
    const b = candidate[field];
    if (a === b) continue;
    if (
      typeof a === "object" &&
      typeof b === "object" &&
      a !== null &&
      b !== null &&
      canonicalJson(a) === canonicalJson(b)
    )
      continue;
    return `${field} ${shown(a)} → ${shown(b)}`;
  }
  return null;
}
