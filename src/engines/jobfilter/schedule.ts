import type { Bucket } from "./adhoc.js";
import { bucketsOf } from "./adhoc.js";
import type { PreparedJob } from "./evaluate.js";
import { prepareJob } from "./evaluate.js";
import type { FilterSet } from "./filter-set.js";
import { applyingRule, ruleIndex } from "./filter-set.js";
import { ruleVerdict } from "./rule-verdict.js";
import type { Job, JobDecision, PassResult } from "./types.js";

const NO_BUCKETS: readonly Bucket[] = [];

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
export function schedulePass(
  set: FilterSet,
  running: readonly Job[],
  candidates: readonly Job[],
): PassResult[] {
  const slots = new Map<string, number>();
  const buckets = new Map<string, number>();
  occupy(set, running, slots, buckets);
  const out: PassResult[] = [];
  for (const job of candidates) {
    const d = decideCandidate(set, prepareJob(job, set.fields), slots, buckets);
    out.push({ id: job.id, action: d.action, rule: d.rule });
  }
  return out;
}

/** Fills rate-limit slots and ad-hoc buckets with the jobs that already hold them. */
function occupy(
  set: FilterSet,
  running: readonly Job[],
  slots: Map<string, number>,
  buckets: Map<string, number>,
): void {
  for (const job of running) {
    const p = prepareJob(job, set.fields);
    const rule = applyingRule(set, p);
    if (rule !== null && rule.kind === "RATE_LIMIT") slots.set(rule.uuid, (slots.get(rule.uuid) ?? 0) + 1);
    if (p.reasons.length === 0) continue;
    for (const b of bucketsOf(p.reasons)) buckets.set(b.key, (buckets.get(b.key) ?? 0) + 1);
  }
}

function decideCandidate(
  set: FilterSet,
  job: PreparedJob,
  slots: Map<string, number>,
  buckets: Map<string, number>,
): JobDecision {
  const rule = applyingRule(set, job);
  const uuid = rule === null ? null : rule.uuid;
  const mine = job.reasons.length === 0 ? NO_BUCKETS : bucketsOf(job.reasons);
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

/** Whether the rule at chain position `at` is the job's applying rule: that rule first, the earlier ones only if it matches. */
function holdsRule(set: FilterSet, job: PreparedJob, at: number): boolean {
  return set.chain[at].matches(job) && ruleIndex(set, job, at) < 0;
}

function bucketsOfJob(job: PreparedJob): readonly Bucket[] {
  return job.reasons.length === 0 ? NO_BUCKETS : bucketsOf(job.reasons);
}

/** Whether one more job with these buckets stays within every bucket's limit. */
function fits(buckets: Map<string, number>, mine: readonly Bucket[]): boolean {
  for (const b of mine) if ((buckets.get(b.key) ?? 0) + 1 > b.limit) return false;
  return true;
}

function addBuckets(buckets: Map<string, number>, mine: readonly Bucket[]): void {
  for (const b of mine) buckets.set(b.key, (buckets.get(b.key) ?? 0) + 1);
}

/**
 * The pure decision for one job: the same answer as a pass over the queued jobs
 * ahead of it and then the job, computing only what that answer depends on.
 * A job without ad-hoc buckets whose rule is not a rate limit is decided by its
 * rule alone. Otherwise every job's buckets count, but slots matter only for
 * the job's own rate-limit rule, which another job holds only when that rule is
 * its applying rule; so their rules are searched no further than it.
 */
export function decideJob(set: FilterSet, job: Job, queue: QueueView): JobDecision {
  const p = prepareJob(job, set.fields);
  const at = ruleIndex(set, p, set.chain.length);
  const rule = at < 0 ? null : set.chain[at];
  const mine = bucketsOfJob(p);
  const limit = rule !== null && rule.kind === "RATE_LIMIT" ? rule.limit : -1;
  if (mine.length === 0 && limit < 0) return ruleVerdict(rule, 0);
  const buckets = new Map<string, number>();
  let taken = 0;
  for (const other of queue.running) {
    const q = prepareJob(other, set.fields);
    if (limit >= 0 && holdsRule(set, q, at)) taken++;
    addBuckets(buckets, bucketsOfJob(q));
  }
  for (const ahead of queue.queued) {
    const q = prepareJob(ahead, set.fields);
    const theirs = bucketsOfJob(q);
    // A queued job stopped by its buckets takes neither buckets nor a slot.
    if (!fits(buckets, theirs)) continue;
    addBuckets(buckets, theirs);
    if (limit >= 0 && taken < limit && holdsRule(set, q, at)) taken++;
  }
  if (!fits(buckets, mine)) return { action: "ADHOC_RATE_LIMITED", rule: rule === null ? null : rule.uuid };
  return ruleVerdict(rule, taken);
}
