import type { Decision } from "../common/decision.js";
import type { EngineDefinition } from "../common/engine.js";
import { ok } from "../common/result.js";
import type { JobfilterPolicy } from "./policy.js";
import { compileFilters, loadFilters } from "./policy.js";
import type { QueueView } from "./schedule.js";
import { decideJob, schedulePass } from "./schedule.js";
import type { FilterRule, Job, JobDecision, PassResult } from "./types.js";
import { prepareJob } from "./evaluate.js";
import { bucketsOf } from "./adhoc.js";
import type { FilterSet } from "./filter-set.js";
import { restoreRules, storeRules, type StoredRules } from "./stored-rules.js";

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

/** One rule's line of a trace: the rule in evaluation order and whether the job matches it. */
export interface TraceLine {
  uuid: string;
  priority: number | bigint;
  watermark: number | bigint;
  action: FilterRule["action"];
  matches: boolean;
}

/** The explain trace of a job: every rule in evaluation order with its match, plus the job's reason buckets. */
export function traceJob(set: FilterSet, job: Job): { rules: TraceLine[]; buckets: { key: string; limit: number }[] } {
  const prepared = prepareJob(job, set.fields);
  const rules = set.rules.map((r) => ({
    uuid: r.uuid,
    priority: r.rule.priority,
    watermark: r.rule.watermark,
    action: r.rule.action,
    matches: r.matches(prepared),
  }));
  return { rules, buckets: bucketsOf(prepared.reasons).map((b) => ({ key: b.key, limit: b.limit })) };
}

/** Runs one scheduling pass over queued candidates against a loaded policy. */
export function scheduleJobfilter(policy: JobfilterPolicy, running: readonly Job[], candidates: readonly Job[]): PassResult[] {
  return schedulePass(policy.set, running, candidates);
}
