import { bucketsOf } from "./adhoc.js";
import type { PreparedJob } from "./evaluate.js";
import { prepareJob } from "./evaluate.js";
import type { FilterSet } from "./filter-set.js";
import { applyingRule } from "./filter-set.js";
import type { Job, JobDecision, PassResult } from "./types.js";

/** The queue as one decision sees it: jobs holding slots and the queued jobs considered before the job. */
export interface QueueView {
  /** Running or being-manipulated jobs; both occupy slots. */
  readonly running: readonly Job[];
  /** Queued jobs ahead of the decided job in this pass, already in scheduling order. */
  readonly queued: readonly Job[];
}

/**
 * One scheduling pass, as Ganeti's scheduler runs it: slots are first filled
 * by the running jobs, then candidates are taken one at a time in order, each
 * checked against its ad-hoc reason buckets and then its applying rule, so an
 * earlier candidate's slot is no longer free for a later one.
 */
export function schedulePass(set: FilterSet, running: readonly Job[], candidates: readonly Job[]): PassResult[] {
  const slots = new Map<string, number>();
  const buckets = new Map<string, number>();
  for (const job of running) {
    const p = prepareJob(job);
    const rule = applyingRule(set, p);
    if (rule !== null && rule.kind === "RATE_LIMIT") slots.set(rule.uuid, (slots.get(rule.uuid) ?? 0) + 1);
    for (const b of bucketsOf(p.reasons)) buckets.set(b.key, (buckets.get(b.key) ?? 0) + 1);
  }
  const out: PassResult[] = [];
  for (const job of candidates) out.push({ id: job.id, ...decideCandidate(set, prepareJob(job), slots, buckets) });
  return out;
}

function decideCandidate(
  set: FilterSet,
  job: PreparedJob,
  slots: Map<string, number>,
  buckets: Map<string, number>,
): JobDecision {
  const rule = applyingRule(set, job);
  const uuid = rule === null ? null : rule.uuid;
  const mine = bucketsOf(job.reasons);
  for (const b of mine) {
    if ((buckets.get(b.key) ?? 0) + 1 > b.limit) return { action: "ADHOC_RATE_LIMITED", rule: uuid };
  }
  for (const b of mine) buckets.set(b.key, (buckets.get(b.key) ?? 0) + 1);
  if (rule === null) return { action: "ACCEPT", rule: null };
  switch (rule.kind) {
    case "ACCEPT":
    case "CONTINUE":
      return { action: "ACCEPT", rule: uuid };
    case "PAUSE":
      return { action: "PAUSE", rule: uuid };
    case "REJECT":
      return { action: "REJECT", rule: uuid };
    case "RATE_LIMIT": {
      const taken = slots.get(rule.uuid) ?? 0;
      if (taken >= rule.limit) return { action: "RATE_LIMITED", rule: uuid };
      slots.set(rule.uuid, taken + 1);
      return { action: "ACCEPT", rule: uuid };
    }
  }
}

/** The pure decision for one job: a pass over the queued jobs ahead of it, then the job itself. */
export function decideJob(set: FilterSet, job: Job, queue: QueueView): JobDecision {
  const results = schedulePass(set, queue.running, [...queue.queued, job]);
  const last = results[results.length - 1];
  return { action: last.action, rule: last.rule };
}
