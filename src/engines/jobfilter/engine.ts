import type { Decision } from "../common/decision.js";
import type { EngineDefinition } from "../common/engine.js";
import { ok } from "../common/result.js";
import type { JobfilterPolicy } from "./policy.js";
import { compileFilters, compileFiltersSteps, loadFilters } from "./policy.js";
import type { QueueView } from "./schedule.js";
import { decideJob, schedulePass } from "./schedule.js";
import type { FilterRule, Job, JobDecision, PassResult } from "./types.js";
import { prepareJob } from "./evaluate.js";
import { bucketsOf } from "./adhoc.js";
import type { FilterSet } from "./filter-set.js";
import { restoreRules, storeRules, type StoredRules } from "./stored-rules.js";
import { applyingRule } from "./filter-set.js";
import { showCompact } from "./render.js";

/**
 * The jobfilter engine as the bundle sees it: filters.json holds the rules a
 * new queue starts with, stored in the bundle's JSON-safe form (integers past
 * 2^53 tagged, stored-rules.ts) and read back exactly when loaded.
 */
export const jobfilterEngine: EngineDefinition<StoredRules, JobfilterPolicy> = {
  name: "jobfilter",
  file: "filters.json",
  format: "ganeti-filters-json",
  compile: (source) => {
    const rules = compileFilters(source);
    return rules.ok ? ok(storeRules(rules.value)) : rules;
  },
  compileSteps: function* (source) {
    const rules = yield* compileFiltersSteps(source);
    if (!rules.ok) return rules;
    yield;
    return ok(storeRules(rules.value));
  },
  load: (stored) => loadFilters(restoreRules(stored)),
};

/** A decision request: the job, and the queue around it (`queue.running`/`queue.queued`, or the spec's `running`/`queuedAhead`). */
export interface JobfilterRequest {
  readonly job: Job;
  readonly queue?: { readonly running?: readonly Job[]; readonly queued?: readonly Job[] };
  readonly running?: readonly Job[];
  readonly queuedAhead?: readonly Job[];
}

/** Normalises both spellings of the queue into one view. */
export function queueOf(request: JobfilterRequest): QueueView {
  return {
    running: request.queue?.running ?? request.running ?? [],
    queued: request.queue?.queued ?? request.queuedAhead ?? [],
  };
}

/** Each action's outcome label (its lower-case name), spelled once instead of per decision. */
const OUTCOME: Readonly<Record<JobDecision["action"], string>> = {
  ACCEPT: "accept",
  PAUSE: "pause",
  REJECT: "reject",
  RATE_LIMITED: "rate_limited",
  ADHOC_RATE_LIMITED: "adhoc_rate_limited",
};

/**
 * Decides one job against a loaded policy. Never cacheable: the answer depends
 * on the queue's state. The trace (explain only) lists which rules match.
 */
export function decideJobfilter(
  policy: JobfilterPolicy,
  request: JobfilterRequest,
  ctx: { explain: boolean },
): Decision<JobDecision> {
  const verdict = decideJob(policy.set, request.job, queueOf(request));
  const decision: Decision<JobDecision> = { verdict, cacheable: false, outcome: OUTCOME[verdict.action] };
  if (!ctx.explain) return decision;
  return { ...decision, trace: traceJob(policy.set, request.job) };
}

/** One predicate of a rule as the trace shows it: the predicate as stored and whether the job satisfies it. */
export interface TracePredicate {
  predicate: FilterRule["predicates"][number];
  matches: boolean;
}

/**
 * What became of a rule when the job walked the chain, as the placement trace
 * says of its rules: `applied` (the first matching rule whose action is not
 * CONTINUE: it decided), `continued` (it matched, but CONTINUE goes on),
 * `no_match` (a predicate is false), `not_reached` (a rule after the one that
 * applied: Ganeti stops there).
 */
export type TraceResult = "applied" | "continued" | "no_match" | "not_reached";

/** One rule's line of a trace: the rule in evaluation order, each predicate's value, what became of it and why. */
export interface TraceLine {
  index: number;
  uuid: string;
  priority: number | bigint;
  watermark: number | bigint;
  action: FilterRule["action"];
  /** Whether all its predicates hold (computed for every rule, reached or not). */
  matches: boolean;
  predicates: TracePredicate[];
  result: TraceResult;
  why: string;
}

const actionText = (action: FilterRule["action"]): string =>
  Array.isArray(action) ? showCompact(action) : action;
const predicateText = (p: TracePredicate["predicate"]): string => showCompact(p);

/** The sentence saying why a rule came out as it did. */
function whyOf(
  result: TraceResult,
  predicates: TracePredicate[],
  action: FilterRule["action"],
  applied: number,
): string {
  const n = predicates.length;
  const all =
    n === 0
      ? "no predicates: it matches every job"
      : n === 1
        ? "its predicate holds"
        : `all ${n} predicates hold`;
  if (result === "applied") return `${all}; ${actionText(action)} applies`;
  if (result === "continued") return `${all}; CONTINUE goes on to the next rule`;
  const failed = predicates.findIndex((p) => !p.matches);
  const first =
    failed < 0
      ? ""
      : `predicate ${failed + 1} of ${n} is false: ${predicateText(predicates[failed].predicate)}`;
  if (result === "no_match") return first;
  return `rule ${applied} applied first` + (failed < 0 ? " (this one matches too)" : ` (here ${first})`);
}

/**
 * The explain trace of a job: every rule in evaluation order with each of its
 * predicates' values, what became of the rule (`result`) and why, plus the
 * job's reason buckets. Every predicate is evaluated on its own, also after
 * one is false and for rules after the applying one, so the trace says all
 * that would have to change; the decision itself stops where Ganeti stops.
 */
export function traceJob(
  set: FilterSet,
  job: Job,
): { rules: TraceLine[]; buckets: { key: string; limit: number }[] } {
  const prepared = prepareJob(job, set.fields);
  const applying = applyingRule(set, prepared);
  const applied = applying === null ? -1 : set.rules.indexOf(applying);
  const rules = set.rules.map((r, index): TraceLine => {
    const predicates = r.rule.predicates.map((predicate, i) => ({
      predicate,
      matches: r.predicates[i](prepared),
    }));
    const matches = predicates.every((p) => p.matches);
    const result: TraceResult =
      index === applied
        ? "applied"
        : applied >= 0 && index > applied
          ? "not_reached"
          : matches
            ? "continued"
            : "no_match";
    return {
      index,
      uuid: r.uuid,
      priority: r.rule.priority,
      watermark: r.rule.watermark,
      action: r.rule.action,
      matches,
      predicates,
      result,
      why: whyOf(result, predicates, r.rule.action, applied),
    };
  });
  return { rules, buckets: bucketsOf(prepared.reasons).map((b) => ({ key: b.key, limit: b.limit })) };
}

/** Runs one scheduling pass over queued candidates against a loaded policy. */
export function scheduleJobfilter(
  policy: JobfilterPolicy,
  running: readonly Job[],
  candidates: readonly Job[],
): PassResult[] {
  return schedulePass(policy.set, running, candidates);
}
