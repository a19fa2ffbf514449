/**
 * The slots the running jobs hold, counted once instead of re-derived from
 * every running job at each decision: per rule, how many running jobs have it
 * as their applying rule, and per ad-hoc reason bucket, how many running jobs
 * name it. Each job's share is remembered, so a job that ends takes away
 * exactly what it added. A count belongs to one filter set: when the rules
 * change, the counts are rebuilt from the running jobs.
 */
import type { Bucket } from "./adhoc.js";
import { bucketsOf } from "./adhoc.js";
import { prepareJob } from "./evaluate.js";
import type { FilterSet } from "./filter-set.js";
import { applyingRule, ruleIndex } from "./filter-set.js";
import { ruleVerdict } from "./rule-verdict.js";
import type { Job, JobDecision } from "./types.js";

/** What one running job holds: its applying rule (uuid or null) and its bucket keys. */
interface Share {
  readonly rule: string | null;
  readonly buckets: readonly string[];
}

/** Running jobs' slots by rule and by ad-hoc bucket, for one filter set. */
export class RunningCounts {
  private readonly byRule = new Map<string, number>();
  private readonly byBucket = new Map<string, number>();
  private readonly shares = new Map<number, Share>();

  constructor(readonly set: FilterSet) {}

  /** Counts built from the jobs that hold slots now. */
  static of(set: FilterSet, running: readonly Job[]): RunningCounts {
    const counts = new RunningCounts(set);
    for (const job of running) counts.start(job);
    return counts;
  }

  /** Number of running jobs counted. */
  get size(): number {
    return this.shares.size;
  }

  /** Running jobs whose applying rule is `uuid`. */
  slotsOf(uuid: string): number {
    return this.byRule.get(uuid) ?? 0;
  }

  /** Running jobs that name ad-hoc bucket `key`. */
  inBucket(key: string): number {
    return this.byBucket.get(key) ?? 0;
  }

  /** A job took a slot; counting it twice is a no-op. */
  start(job: Job): void {
    if (this.shares.has(job.id)) return;
    const p = prepareJob(job, this.set.fields);
    const rule = applyingRule(this.set, p);
    const share: Share = { rule: rule?.uuid ?? null, buckets: p.reasons.length === 0 ? [] : bucketsOf(p.reasons).map((b) => b.key) };
    this.shares.set(job.id, share);
    if (share.rule !== null) this.byRule.set(share.rule, this.slotsOf(share.rule) + 1);
    for (const k of share.buckets) this.byBucket.set(k, this.inBucket(k) + 1);
  }

  /** A job gave its slot back (finished, expired); ending a job not counted is a no-op. */
  end(id: number): void {
    const share = this.shares.get(id);
    if (share === undefined) return;
    this.shares.delete(id);
    if (share.rule !== null) this.byRule.set(share.rule, this.slotsOf(share.rule) - 1);
    for (const k of share.buckets) this.byBucket.set(k, this.inBucket(k) - 1);
  }

  /** Every count, for tests and checks: rule uuid → slots, bucket key → jobs (zeros left out). */
  snapshot(): { rules: Record<string, number>; buckets: Record<string, number> } {
    const nonZero = (m: Map<string, number>) => Object.fromEntries([...m].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    return { rules: nonZero(this.byRule), buckets: nonZero(this.byBucket) };
  }
}

/** Whether one more job with these buckets stays within every bucket's limit. */
function fitsCounted(counts: RunningCounts, mine: readonly Bucket[]): boolean {
  for (const b of mine) if (counts.inBucket(b.key) + 1 > b.limit) return false;
  return true;
}

/**
 * The decision of `decideJob` with no queued jobs ahead (a submission, or a
 * held job checked again), from the counts instead of the running jobs: the
 * cost is matching the job against the rules, whatever the queue's length.
 */
export function decideCounted(counts: RunningCounts, job: Job): JobDecision {
  const set = counts.set;
  const p = prepareJob(job, set.fields);
  const at = ruleIndex(set, p, set.chain.length);
  const rule = at < 0 ? null : set.chain[at];
  const mine = p.reasons.length === 0 ? [] : bucketsOf(p.reasons);
  if (!fitsCounted(counts, mine)) return { action: "ADHOC_RATE_LIMITED", rule: rule === null ? null : rule.uuid };
  return ruleVerdict(rule, rule?.kind === "RATE_LIMIT" ? counts.slotsOf(rule.uuid) : 0);
}
