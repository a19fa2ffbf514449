/**
 * Where the running counts are kept (see running-counts.ts): each running
 * job's share (the rule it is counted under, the ad-hoc buckets it names),
 * the totals by rule and by bucket, and the rule set they were counted for.
 * `MemoryShares` keeps them in memory; the JobQueue Durable Object keeps them
 * in its SQLite storage (src/state/running-shares-sql.ts), so that an object
 * that starts again restores its counts instead of counting every running job.
 */
import type { Job } from "./types.js";
import { factsOf, inRanges, type FactKind, type FactReach, type IdRanges } from "./job-reach.js";

/** What one running job holds: its applying rule (uuid, or null for none) and its bucket keys. */
export interface Share {
  readonly rule: string | null;
  readonly buckets: readonly string[];
}

/** A counted job as a rule change reads it: its id, its share, and the job itself unless only ids were asked for. */
export interface Holder {
  readonly id: number;
  readonly share: Share;
  readonly job: Job | undefined;
}

/** The saved totals: slots by rule uuid, jobs by bucket key (zeros left out). */
export interface Totals {
  readonly rules: Map<string, number>;
  readonly buckets: Map<string, number>;
}

/** Running jobs to read by id ranges and by indexed facts (see job-reach.ts `anyOf`). */
export interface Reached {
  readonly ids: IdRanges;
  readonly facts: readonly FactReach[];
}

/** A store of shares and totals (see the file's comment); every write is made as the count changes. */
export interface ShareStore {
  /** The fingerprint of the rule set the saved counts are for, or undefined when none were saved. */
  countedFor(): string | undefined;
  /** The stored forms of the rules the saved counts are for (see `setCountedFor`). */
  countedRules(): string[];
  /**
   * Records the rule set the saved counts are for now: its fingerprint, and
   * the stored form of each rule that changed since the last call (null: a
   * rule gone), so that counts saved before a rule change the object did not
   * live to carry them through can still be carried from the rules they were
   * counted for.
   */
  setCountedFor(fingerprint: string, changed: ReadonlyMap<string, string | null>): void;
  /** The saved totals, read when the counts are restored. */
  totals(): Totals;
  /** Saves one total (a zero is forgotten). */
  setTotal(kind: "rule" | "bucket", key: string, n: number): void;
  /** The share of a counted job, or undefined when it is not counted. */
  share(id: number): Share | undefined;
  /** Saves a new job's share; `job` is the running job. */
  putShare(id: number, share: Share, job: Job): void;
  /** Moves a counted job's share to another rule (null: none). */
  moveShare(id: number, rule: string | null): void;
  /** Forgets a job's share. */
  deleteShare(id: number): void;
  /** Visits the counted jobs whose rule is one of `rules` (null: counted under no rule), with their jobs when `withJobs`. */
  eachHolder(rules: ReadonlySet<string | null>, withJobs: boolean, visit: (h: Holder) => void): void;
  /**
   * Visits, once each, the counted jobs whose id lies in `reached.ids` or that
   * have one of `reached.facts` (see job-reach.ts `factsOf`), with their jobs
   * when `withJobs`: read through indexes (a value test runs once on each
   * distinct value held), not by a pass over every counted job.
   */
  eachReached(reached: Reached, withJobs: boolean, visit: (h: Holder) => void): void;
  /** Forgets every share and total (before counting anew). */
  clear(): void;
}

/** Ids per block of this many consecutive ids, so a range of ids is read without a pass over every job. */
const BLOCK = 1024;

function addTo<K>(m: Map<K, Set<number>>, key: K, id: number): void {
  let ids = m.get(key);
  if (ids === undefined) m.set(key, (ids = new Set()));
  ids.add(id);
}

function takeFrom<K>(m: Map<K, Set<number>>, key: K, id: number): void {
  const ids = m.get(key);
  if (ids === undefined) return;
  ids.delete(id);
  if (ids.size === 0) m.delete(key);
}

/** A share store in memory, indexed by rule, by id block and by each fact (see `factsOf`), so that a rule change reads only the jobs it can move. */
export class MemoryShares implements ShareStore {
  private fingerprint: string | undefined;
  private readonly rules = new Map<string, string>();
  private readonly byId = new Map<number, { readonly id: number; readonly share: Share; readonly job: Job; readonly facts: [FactKind, string][] }>();
  private readonly byRule = new Map<string | null, Set<number>>();
  private readonly byBlock = new Map<number, Set<number>>();
  private readonly byFact: Record<FactKind, Map<string, Set<number>>> = { op: new Map(), source: new Map(), reason: new Map() };
  private readonly saved: Totals = { rules: new Map(), buckets: new Map() };

  /** Number of counted jobs. */
  get size(): number {
    return this.byId.size;
  }

  countedFor(): string | undefined {
    return this.fingerprint;
  }

  countedRules(): string[] {
    return [...this.rules.values()];
  }

  setCountedFor(fingerprint: string, changed: ReadonlyMap<string, string | null>): void {
    this.fingerprint = fingerprint;
    for (const [uuid, text] of changed) {
      if (text === null) this.rules.delete(uuid);
      else this.rules.set(uuid, text);
    }
  }

  totals(): Totals {
    return { rules: new Map(this.saved.rules), buckets: new Map(this.saved.buckets) };
  }

  setTotal(kind: "rule" | "bucket", key: string, n: number): void {
    const m = kind === "rule" ? this.saved.rules : this.saved.buckets;
    if (n === 0) m.delete(key);
    else m.set(key, n);
  }

  share(id: number): Share | undefined {
    return this.byId.get(id)?.share;
  }

  putShare(id: number, share: Share, job: Job): void {
    this.deleteShare(id);
    const facts = factsOf(job);
    this.byId.set(id, { id, share, job, facts });
    addTo(this.byRule, share.rule, id);
    addTo(this.byBlock, Math.floor(id / BLOCK), id);
    for (const [kind, v] of facts) addTo(this.byFact[kind], v, id);
  }

  moveShare(id: number, rule: string | null): void {
    const was = this.byId.get(id);
    if (was === undefined) return;
    takeFrom(this.byRule, was.share.rule, id);
    // a new entry: a holder handed out before keeps the share it was read with
    this.byId.set(id, { ...was, share: { rule, buckets: was.share.buckets } });
    addTo(this.byRule, rule, id);
  }

  deleteShare(id: number): void {
    const was = this.byId.get(id);
    if (was === undefined) return;
    this.byId.delete(id);
    takeFrom(this.byRule, was.share.rule, id);
    takeFrom(this.byBlock, Math.floor(id / BLOCK), id);
    for (const [kind, v] of was.facts) takeFrom(this.byFact[kind], v, id);
  }

  /** Visits the counted jobs under `rules`, always with their jobs (memory holds them anyway). */
  eachHolder(rules: ReadonlySet<string | null>, _withJobs: boolean, visit: (h: Holder) => void): void {
    for (const rule of rules) {
      const ids = this.byRule.get(rule);
      if (ids !== undefined) for (const id of ids) visit(this.byId.get(id)!);
    }
  }

  /** Visits the jobs reached (always with their jobs): the id blocks the ranges overlap, then the jobs of each fact value reached. */
  eachReached(reached: Reached, _withJobs: boolean, visit: (h: Holder) => void): void {
    const seen = new Set<number>();
    const once = (id: number) => {
      if (seen.has(id)) return;
      seen.add(id);
      visit(this.byId.get(id)!);
    };
    if (reached.ids.length > 0) {
      for (const [block, ids] of this.byBlock) {
        const lo = block * BLOCK;
        const hi = lo + BLOCK;
        for (const [a, b] of reached.ids) {
          if (b < lo || a > hi) continue;
          if (a <= lo && b >= hi) for (const id of ids) once(id);
          else for (const id of ids) if (inRanges(reached.ids, id)) once(id);
          break;
        }
      }
    }
    for (const { kind, values } of reached.facts) {
      const index = this.byFact[kind];
      if (values.finite !== null) {
        for (const v of values.finite) {
          const ids = index.get(v);
          if (ids !== undefined) for (const id of ids) once(id);
        }
      } else for (const [v, ids] of index) if (values.has(v)) for (const id of ids) once(id);
    }
  }

  clear(): void {
    this.byId.clear();
    this.byRule.clear();
    this.byBlock.clear();
    for (const m of Object.values(this.byFact)) m.clear();
    this.saved.rules.clear();
    this.saved.buckets.clear();
    this.rules.clear();
    this.fingerprint = undefined;
  }
}
