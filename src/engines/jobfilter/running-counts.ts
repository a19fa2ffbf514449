/**
 * The slots the running jobs hold, counted once instead of re-derived from
 * every running job at each decision: per rule, how many running jobs have it
 * as their applying rule, and per ad-hoc reason bucket, how many running jobs
 * name it. Each job's share is remembered, so a job that ends takes away
 * exactly what it added. A count belongs to one filter set: when the rules
 * change, `rebase` carries it to the new set, matching again only the rules
 * that changed (see there), never the whole chain for every running job.
 */
import type { Bucket } from "./adhoc.js";
import { bucketsOf } from "./adhoc.js";
import { prepareJob } from "./evaluate.js";
import { stringifyExactJson } from "../common/exact-json.js";
import type { CompiledRule, FilterSet } from "./filter-set.js";
import { applyingRule, ruleIndex } from "./filter-set.js";
import { ruleVerdict } from "./rule-verdict.js";
import type { Job, JobDecision } from "./types.js";

/** What one running job holds: the job, its applying rule (uuid or null) and its bucket keys. */
interface Share {
  readonly job: Job;
  readonly rule: string | null;
  readonly buckets: readonly string[];
}

/** Each chain rule's stored form by uuid, computed once per filter set (what tells a rule kept from a rule changed). */
const ruleTexts = new WeakMap<FilterSet, Map<string, string>>();

function textsOf(set: FilterSet): Map<string, string> {
  let m = ruleTexts.get(set);
  if (m === undefined) {
    m = new Map(set.chain.map((r) => [r.uuid, stringifyExactJson(r.rule)]));
    ruleTexts.set(set, m);
  }
  return m;
}

/** The first rule among the chain positions `at` (ascending) that matches the job, or null. */
function firstAmong(chain: readonly CompiledRule[], at: readonly number[], job: Job, fields: number, upTo: number): string | null | undefined {
  if (at.length === 0 || at[0] > upTo) return undefined;
  const p = prepareJob(job, fields);
  for (const i of at) {
    if (i > upTo) break;
    if (chain[i].matches(p)) return chain[i].uuid;
  }
  return undefined;
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
    this.add(job.id, { job, rule: rule?.uuid ?? null, buckets: p.reasons.length === 0 ? [] : bucketsOf(p.reasons).map((b) => b.key) });
  }

  private add(id: number, share: Share): void {
    this.shares.set(id, share);
    if (share.rule !== null) this.byRule.set(share.rule, this.slotsOf(share.rule) + 1);
    for (const k of share.buckets) this.byBucket.set(k, this.inBucket(k) + 1);
  }

  /**
   * The same running jobs counted for another filter set, as `RunningCounts.of`
   * would count them, matching again only what a rule change can move. A rule
   * is kept when the new set has it unchanged (same uuid, same stored form),
   * and kept rules keep their relative order. So a job whose applying rule was
   * kept can only move to an added (new or changed) rule placed before it, and
   * a job that matched no rule only to an added one: each such job is tested
   * against the added rules alone. Only a job whose rule was deleted or changed
   * is matched again, and then only against the rules that followed its rule
   * (the kept ones before it did not match) and the added ones. Bucket shares
   * do not depend on the rules and are carried over as they are.
   */
  rebase(next: FilterSet): RunningCounts {
    if (next === this.set) return this;
    const counts = new RunningCounts(next);
    const was = textsOf(this.set);
    const oldAt = new Map(this.set.chain.map((r, i) => [r.uuid, i]));
    const chain = next.chain;
    const newAt = new Map<string, number>();
    const now = textsOf(next);
    const added: number[] = [];
    chain.forEach((r, i) => {
      if (was.get(r.uuid) === now.get(r.uuid)) newAt.set(r.uuid, i);
      else added.push(i);
    });
    // for a job whose rule is gone: the new positions it may move to, per old rule
    const after = new Map<string, number[]>();
    const candidatesAfter = (uuid: string): number[] => {
      let at = after.get(uuid);
      if (at === undefined) {
        const q = oldAt.get(uuid) ?? -1;
        at = chain.map((_, i) => i).filter((i) => !newAt.has(chain[i].uuid) || (oldAt.get(chain[i].uuid) ?? -1) > q);
        after.set(uuid, at);
      }
      return at;
    };
    const end = chain.length;
    for (const [id, share] of this.shares) {
      let rule = share.rule;
      if (rule === null) rule = firstAmong(chain, added, share.job, next.fields, end) ?? null;
      else {
        const held = newAt.get(rule);
        if (held !== undefined) rule = firstAmong(chain, added, share.job, next.fields, held) ?? rule;
        else rule = firstAmong(chain, candidatesAfter(rule), share.job, next.fields, end) ?? null;
      }
      counts.add(id, rule === share.rule ? share : { job: share.job, rule, buckets: share.buckets });
    }
    return counts;
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
