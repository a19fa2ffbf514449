/**
 * The slots the running jobs hold, counted once instead of re-derived from
 * every running job at each decision: per rule, how many running jobs have it
 * as their applying rule, and per ad-hoc reason bucket, how many running jobs
 * name it. Each job's share is kept (in a {@link ShareStore}), so a job that
 * ends takes away exactly what it added. A count belongs to one filter set:
 * when the rules change, `rebase` carries it to the new set, matching again
 * only the jobs the change can move (see there), never the whole chain for
 * every running job. Kept in a store that outlives the queue object, the
 * counts are restored with it (`restore`) instead of counted again.
 */
import type { Bucket } from "./adhoc.js";
import { bucketsOf } from "./adhoc.js";
import { prepareJob, type PreparedJob } from "./evaluate.js";
import type { FilterSet } from "./filter-set.js";
import {
  applyingRule,
  ruleByOpId,
  ruleRegexOn,
  ruleCoReach,
  ruleIndex,
  ruleOrder,
  ruleReach,
  type RuleOrder,
} from "./filter-set.js";
import { ruleChange, ruleSetFingerprint, ruleTextChanges, type RuleChange } from "./rule-change.js";
import { anyOf, factsOf, NO_KEY, OTHER_OP, pathOf, type FactReach, type ValueSet } from "./job-reach.js";
import { parseExactJson } from "../common/exact-json.js";
import {
  MAX_INDEXED_PATHS,
  MemoryShares,
  type Holder,
  type Reached,
  type Share,
  type ShareStore,
} from "./running-shares.js";
import { reachFilter } from "./reach-filter.js";
import { ruleVerdict } from "./rule-verdict.js";
import type { FilterRule, Job, JobDecision } from "./types.js";

/** The job a rule that reads nothing but the id is tested with: one object, its id set before each test. */
const probe: { -readonly [K in keyof PreparedJob]: PreparedJob[K] } = {
  id: 0,
  opcodes: [],
  views: [],
  reasons: [],
};

/** The first rule among the chain positions `at` (ascending, each below `upTo`) that matches the job, or undefined; `byId`: they read only its id. */
function firstAmong(
  set: FilterSet,
  at: readonly number[],
  h: Holder,
  upTo: number,
  byId: boolean,
): string | undefined {
  if (at.length === 0 || at[0] >= upTo) return undefined;
  let p: PreparedJob = probe;
  if (byId) probe.id = h.id;
  else p = prepareJob(h.job!, set.fields);
  for (const i of at) {
    if (i >= upTo) break;
    if (set.chain[i].matches(p)) return set.chain[i].uuid;
  }
  return undefined;
}

const idOnly = (set: FilterSet, at: readonly number[]) => at.every((i) => set.chain[i].idOnly);

/**
 * The opcode field paths a store is to index by value for a rule set: those
 * its rules bound by value, then (in a store finding jobs by complement) those
 * an opcode predicate `!=` names alone, then those it indexes already (kept, so a
 * rule naming one again does not index it anew), the first few.
 */
const valuedPaths = (set: FilterSet, store: ShareStore) =>
  [
    ...new Set([
      ...set.valued,
      ...(store.eachBeside === undefined && store.moveBeside === undefined ? [] : set.indexable),
      ...store.indexedPaths(),
    ]),
  ].slice(0, MAX_INDEXED_PATHS);

/**
 * How many rule sets the jobs' earlier rules are remembered for (see
 * `Share.gen`): each carry that moves jobs saves one, the oldest dropped.
 */
const EARLIER_SETS = 4;

/** How a job whose rule a carry took away finds its rule from the one it had under an earlier set (see `fromEarlier`). */
interface Plan {
  readonly at: readonly number[];
  readonly upTo: number;
  readonly rule: string | null;
  readonly byId: boolean;
}

/** Running jobs' slots by rule and by ad-hoc bucket, for one filter set. */
export class RunningCounts {
  private current: FilterSet;
  private readonly byRule: Map<string, number>;
  private readonly byBucket: Map<string, number>;
  /** The earlier rule sets (see `Share.gen`) this object has at hand, by number: those it carried from, and those parsed from the store. */
  private readonly sets = new Map<number, RuleOrder>();

  private constructor(
    set: FilterSet,
    private readonly store: ShareStore,
    totals: { rules: Map<string, number>; buckets: Map<string, number> },
  ) {
    this.current = set;
    this.byRule = totals.rules;
    this.byBucket = totals.buckets;
  }

  /** Counts built from the jobs that hold slots now, kept in memory. */
  static of(set: FilterSet, running: readonly Job[]): RunningCounts {
    return RunningCounts.rebuild(set, new MemoryShares(), running);
  }

  /** Counts built anew in `store` (whatever it held is forgotten) from the jobs that hold slots now. */
  static rebuild(set: FilterSet, store: ShareStore, running: readonly Job[]): RunningCounts {
    store.clear();
    store.setIndexedPaths(valuedPaths(set, store));
    const counts = new RunningCounts(set, store, { rules: new Map(), buckets: new Map() });
    store.setCountedFor(ruleSetFingerprint(set), ruleTextChanges(null, set));
    for (const job of running) counts.start(job);
    return counts;
  }

  /**
   * The counts saved in `store`, for this rule set: as saved when they were
   * counted for it, or carried to it from the rules saved with them (a rule
   * change the counts were not carried through before the object stopped);
   * undefined when the store holds no counts (rebuild them).
   */
  static restore(set: FilterSet, store: ShareStore): RunningCounts | undefined {
    const saved = store.countedFor();
    if (saved === undefined) return undefined;
    if (saved === ruleSetFingerprint(set)) return new RunningCounts(set, store, store.totals());
    // the saved rules' order is all carrying reads of them: their predicates are not compiled
    const then = ruleOrder(store.countedRules().map((t) => parseExactJson(t) as unknown as FilterRule));
    if (ruleSetFingerprint(then) !== saved) return undefined;
    return new RunningCounts(set, store, store.totals()).carry(then, set);
  }

  /** The filter set the counts are for. */
  get set(): FilterSet {
    return this.current;
  }

  /** Running jobs whose applying rule is `uuid`. */
  slotsOf(uuid: string): number {
    return this.byRule.get(uuid) ?? 0;
  }

  /** Running jobs that name ad-hoc bucket `key`. */
  inBucket(key: string): number {
    return this.byBucket.get(key) ?? 0;
  }

  private bump(kind: "rule" | "bucket", key: string, delta: number): void {
    const m = kind === "rule" ? this.byRule : this.byBucket;
    const n = (m.get(key) ?? 0) + delta;
    if (n === 0) m.delete(key);
    else m.set(key, n);
    this.store.setTotal(kind, key, n);
  }

  /** A job took a slot; counting it twice is a no-op. */
  start(job: Job): void {
    if (this.store.share(job.id) !== undefined) return;
    const p = prepareJob(job, this.current.fields);
    const rule = applyingRule(this.current, p)?.uuid ?? null;
    const share: Share = {
      rule,
      buckets: p.reasons.length === 0 ? [] : bucketsOf(p.reasons).map((b) => b.key),
    };
    this.store.putShare(job.id, share, job);
    if (rule !== null) this.bump("rule", rule, 1);
    for (const k of share.buckets) this.bump("bucket", k, 1);
  }

  /** A job gave its slot back (finished, expired); ending a job not counted is a no-op. */
  end(id: number): void {
    const share = this.store.share(id);
    if (share === undefined) return;
    // the job's remembered rule goes with its share: an id that starts again is another job
    this.store.deleteShare(id);
    if (share.rule !== null) this.bump("rule", share.rule, -1);
    for (const k of share.buckets) this.bump("bucket", k, -1);
  }

  /**
   * Carries the counts to another filter set (in place; returns them), as
   * `RunningCounts.of` would count the same jobs, reading only the jobs a
   * rule change can move (see `ruleChange`). A job under a kept rule can
   * only move to an added rule before it, and a job under no rule only to an
   * added one: these are tested against the added rules alone, and only
   * when some added rule stands before their rule. A job whose rule was not
   * kept is matched against the rules that may follow: the added ones and
   * the kept ones after its rule (the kept ones before it did not match).
   * Jobs are read by id alone when the rules they are tested by read no
   * more. The jobs tested against the added rules are only those within the
   * added rules' reach (their job ids, their `OP_ID`s; see job-reach.ts),
   * read through the store's indexes, unless some added rule can reach any
   * job; then, where the store can (`eachBeside`), the jobs outside the
   * first added rule's co-reach (`name != "x"`: the jobs without the value
   * `"x"` there, all of whose opcodes have the field; see `ruleCoReach`)
   * are moved to it without being read, and only the others are read and
   * tested. The store is first set to index the values of the opcode fields
   * the new rules test for equality (kept as jobs start and end, also after
   * the rules naming it go, up to a few paths). A path new to the store is
   * indexed only as jobs start, and filled for the jobs counted before by
   * `fillIndex` in slices; until it is filled, a rule reaching by it reads
   * every job after it, each tested against the reach by reading its fields
   * directly (reach-filter.ts) before it is prepared and matched. Bucket
   * shares do not depend on the rules and stay as they are.
   */
  rebase(next: FilterSet): RunningCounts {
    return next === this.current ? this : this.carry(this.current, next);
  }

  /** `rebase` from the rule set the counts are for, `prev` (the current set, or the saved rules' order when restoring). */
  private carry(prev: RuleOrder, next: FilterSet): RunningCounts {
    this.store.setIndexedPaths(valuedPaths(next, this.store));
    // a path still filling does not hold the jobs counted before it was added: not read through
    const filling = this.store.fillingPaths();
    const indexed = new Set(this.store.indexedPaths().filter((p) => !filling.includes(p)));
    // the whole fact index still filling (counts saved before it): no fact read through it
    const factsFilling = this.store.factsFilling?.() === true;
    const usable = (f: FactReach) => {
      if (factsFilling) return false;
      const path = pathOf(f.kind);
      return path === undefined || indexed.has(path);
    };
    const change = ruleChange(prev, next);
    // the jobs that move, the rule each goes to and the rule it had (read as it is visited, before any share
    // moves: a store may update the holder it handed out), side by side (no object per job)
    const moved: Holder[] = [];
    const to: (string | null)[] = [];
    const was: (string | null)[] = [];
    const move = (h: Holder, rule: string | null) => {
      if (rule === h.share.rule) return;
      moved.push(h);
      to.push(rule);
      was.push(h.share.rule);
    };
    // the number of the earlier set this carry saves, given at the first move
    let gen: number | undefined;
    const remember = () => {
      if (gen !== undefined) return gen;
      // the set carried from is saved as the rules the moved jobs had before (the store still counts for it)
      gen = this.store.addEarlier(ruleSetFingerprint(prev), EARLIER_SETS);
      this.sets.set(gen, prev);
      const kept = new Set(this.store.earlierSets().map((e) => e.gen));
      for (const g of this.sets.keys()) if (!kept.has(g)) this.sets.delete(g);
      return gen;
    };
    // the totals change by the net of the moves, each written once
    const delta = new Map<string, number>();
    const add = (rule: string | null, d: number) => {
      if (rule !== null) delta.set(rule, (delta.get(rule) ?? 0) + d);
    };
    // the jobs a store moves together, moved with the others (the jobs under a removed rule are read before)
    const bulk: { move(gen: number): void }[] = [];
    if (change.added.length > 0) {
      const first = change.added[0];
      const end = next.chain.length;
      const byId = idOnly(next, change.added);
      const reaches = change.added.map((i) => ruleReach(next.chain[i]));
      const reached = anyOf(reaches, usable);
      // read without an index (a path still filling): each job outside the reach skipped before it is prepared
      const loose = reached === null && !byId ? anyOf(reaches) : null;
      const within = loose === null ? undefined : reachFilter(loose);
      const test = (h: Holder) => {
        // a job under a rule not kept is matched again below
        const upTo = h.share.rule === null ? end : change.keptAt.get(h.share.rule);
        if (upTo === undefined || upTo <= first) return;
        if (within !== undefined && !within(h.id, h.job!)) return;
        const rule = firstAmong(next, change.added, h, upTo, byId);
        if (rule !== undefined) move(h, rule);
      };
      const store = this.store;
      // the first added rule holds on every job outside its co-reach: those go to it unread
      const co =
        store.eachBeside === undefined && store.moveBeside === undefined
          ? null
          : ruleCoReach(next.chain[first]);
      // the `op` presence key still filling (counts indexed before it): a co-reach by OP_ID would miss jobs without one
      const coUsable =
        co !== null &&
        co.every(usable) &&
        !(store.presenceFilling?.() === true && co.some((f) => f.kind === "op"));
      // a reach read only through a value test (`OP_ID != "X"`: every other OP_ID) reads more than a finite co-reach
      const byComplement =
        reached === null ||
        (coUsable &&
          co.every((f) => f.values.finite !== null) &&
          reached.facts.some((alts) => alts.every((f) => f.values.finite === null)));
      /** Reads the jobs within the added rules' reach (for a rule testing `OP_ID` alone, those the reach proves it matches moved unread). */
      const readReached = (reached: Reached) => {
        const alone = change.added.length === 1 && reached.ids.length === 0 && reached.facts.length === 1;
        const by = alone && reached.facts[0].length === 1 ? reached.facts[0][0] : undefined;
        if (by !== undefined && by.kind === "op" && ruleByOpId(next.chain[first])) {
          // a job with an opcode whose OP_ID is a string the reach holds matches the added rule: moved unread
          const unsure = (v: string) => v === OTHER_OP || v === NO_KEY;
          const sure: ValueSet = {
            finite:
              by.values.finite === null ? null : new Set([...by.values.finite].filter((v) => !unsure(v))),
            all: false,
            has: (v) => !unsure(v) && by.values.has(v),
          };
          const onto = next.chain[first].uuid;
          const took = new Set<number>();
          let counted = false;
          if (store.moveByFact !== undefined) {
            // counted by group in the store, not read; moved with the others (after the removed rules' jobs are read)
            const tested = new Set<string | null>([null]);
            for (const [uuid, at] of change.keptAt) if (at > first) tested.add(uuid);
            const byFact = store.moveByFact(tested, { kind: "op", values: sure }, onto);
            for (const [rule, n] of byFact.from) {
              add(rule, -n);
              add(onto, n);
              if (n > 0 && !bulk.includes(byFact)) bulk.push(byFact);
            }
            counted = true;
          } else
            store.eachReached({ ids: [], facts: [[{ kind: "op", values: sure }]] }, false, (h) => {
              const upTo = h.share.rule === null ? end : change.keptAt.get(h.share.rule);
              if (upTo === undefined || upTo <= first) return;
              took.add(h.id);
              move(h, onto);
            });
          // the others the reach holds (a non-string OP_ID, an opcode without one) are read and matched
          const rest = [OTHER_OP, NO_KEY].filter((v) => by.values.has(v));
          const others: ValueSet = { finite: new Set(rest), all: false, has: (v) => rest.includes(v) };
          // a job also holding a sure OP_ID is one of those the store counted
          const isSure = (h: Holder) =>
            counted ? factsOf(h.job!).some(([k, v]) => k === "op" && sure.has(v)) : took.has(h.id);
          if (rest.length > 0)
            store.eachReached({ ids: [], facts: [[{ kind: "op", values: others }]] }, true, (h) => {
              if (!isSure(h)) test(h);
            });
        } else if (
          by !== undefined &&
          store.moveByFact !== undefined &&
          ruleRegexOn(next.chain[first]) !== undefined &&
          by.kind === `field:${ruleRegexOn(next.chain[first])}`
        ) {
          // a regex alone on an indexed field: the jobs holding a string it matches there are counted by group and
          // moved with the others, none read (it holds on no other value)
          const tested = new Set<string | null>([null]);
          for (const [uuid, at] of change.keptAt) if (at > first) tested.add(uuid);
          const onto = next.chain[first].uuid;
          const byField = store.moveByFact(tested, by, onto);
          for (const [rule, n] of byField.from) {
            add(rule, -n);
            add(onto, n);
            if (n > 0 && !bulk.includes(byField)) bulk.push(byField);
          }
        } else store.eachReached(reached, !byId, test);
      };
      if (!byComplement) readReached(reached);
      else {
        const tested = new Set<string | null>([null]);
        for (const [uuid, at] of change.keptAt) if (at > first) tested.add(uuid);
        const onto = next.chain[first].uuid;
        const sure = (h: Holder) => move(h, onto);
        let done = false;
        if (coUsable) {
          if (store.moveBeside !== undefined) {
            // counted, and moved by the store with the others (whole groups of shares); only the others read
            const beside = store.moveBeside(tested, co, test, onto);
            if (beside !== undefined) {
              for (const [rule, n] of beside.from) {
                add(rule, -n);
                add(onto, n);
                if (n > 0 && !bulk.includes(beside)) bulk.push(beside);
              }
              done = true;
            }
          } else done = store.eachBeside!(tested, co, test, sure);
        }
        if (!done) {
          if (reached !== null) readReached(reached);
          else store.eachHolder(tested, !byId, test);
        }
      }
    }
    if (change.removed.size > 0) {
      const byId = [...change.removed].every((u) => idOnly(next, change.candidatesFor(u)));
      const known = this.fromEarlier(next, change);
      // jobs whose rule is known without a match, moved together where the store can (one statement per earlier rule)
      if (known !== undefined && this.store.moveRemembered !== undefined)
        for (const rule of change.removed)
          for (const g of this.store.remembered!(rule)) {
            const dest = known.direct(g.gen, g.was, rule);
            if (dest === undefined || dest === rule) continue;
            const n = this.store.moveRemembered(rule, g.gen, g.was, dest, remember());
            add(rule, -n);
            add(dest, n);
          }
      this.store.eachHolder(change.removed, !byId || known !== undefined, (h) => {
        const rule = known?.of(h);
        if (rule !== undefined) move(h, rule);
        else
          move(h, firstAmong(next, change.candidatesFor(h.share.rule!), h, next.chain.length, byId) ?? null);
      });
    }
    if (moved.length > 0) {
      // runs of the same move counted at once (moves come rule by rule)
      let run = 0;
      for (let i = 0; i < moved.length; i++) {
        run++;
        if (i + 1 < moved.length && was[i + 1] === was[i] && to[i + 1] === to[i]) continue;
        add(was[i], -run);
        add(to[i], run);
        run = 0;
      }
      this.store.moveShares(moved, to, remember(), was);
    }
    for (const b of bulk) b.move(remember());
    for (const [rule, d] of delta) if (d !== 0) this.bump("rule", rule, d);
    this.current = next;
    this.store.setCountedFor(ruleSetFingerprint(next), ruleTextChanges(prev, next));
    return this;
  }

  /**
   * How to find the rule under `next` of a job whose rule `change` took away
   * from the rule it had under the earlier rule set the store remembers for
   * it (see `Share.gen`), or undefined when nothing is known: under that set
   * its rule was the first to match, so under `next` it is the first to match
   * of the rules added since that set and standing before that rule, else
   * that rule if it is kept, else the first of the rules that may follow it
   * (`ruleChange` from that set to `next`). A set whose fingerprint is
   * `next`'s is `next` (the rule changed back): the job's rule is the one it
   * had, with no match and no rule parsed. Each set's change and each earlier
   * rule's candidates are worked out once per carry; a job whose candidates
   * that way are more than the carry's own for its rule now is left to the
   * carry.
   */
  private fromEarlier(
    next: FilterSet,
    change: RuleChange,
  ):
    | {
        of: (h: Holder) => string | null | undefined;
        direct: (gen: number, was: string | null, now: string) => string | null | undefined;
      }
    | undefined {
    const saved = this.store.earlierSets();
    if (saved.length === 0) return undefined;
    const end = next.chain.length;
    const fingerprint = ruleSetFingerprint(next);
    const at = new Map(next.chain.map((r, i) => [r.uuid, i]));
    const byGen = new Map(saved.map((e) => [e.gen, e.fingerprint]));
    /** Per set: the change since it (null: it is `next`; undefined: its saved rules are not that set), then each plan by earlier rule and rule now. */
    const since = new Map<number, RuleChange | null | undefined>();
    const plans = new Map<number, Map<string | null, Map<string, Plan | null>>>();
    const sinceFor = (gen: number, print: string): RuleChange | null | undefined => {
      if (since.has(gen)) return since.get(gen);
      let out: RuleChange | null | undefined = null;
      if (print !== fingerprint) {
        let set = this.sets.get(gen);
        if (set === undefined) {
          set = ruleOrder(
            this.store.earlierRules(gen).map((t) => parseExactJson(t) as unknown as FilterRule),
          );
          if (ruleSetFingerprint(set) === print) this.sets.set(gen, set);
          else set = undefined;
        }
        out = set === undefined ? undefined : ruleChange(set, next);
      }
      since.set(gen, out);
      return out;
    };
    const planFor = (gen: number, print: string, was: string | null, now: string): Plan | null => {
      let byWas = plans.get(gen);
      if (byWas === undefined) plans.set(gen, (byWas = new Map()));
      let byNow = byWas.get(was);
      if (byNow === undefined) byWas.set(was, (byNow = new Map()));
      let plan = byNow.get(now);
      if (plan === undefined) {
        const s = sinceFor(gen, print);
        if (s === undefined) plan = null;
        else if (s === null) {
          // the same rule set: its first match is the job's rule again
          plan = was === null || at.has(was) ? { at: [], upTo: end, rule: was, byId: true } : null;
        } else {
          const kept = was === null ? undefined : s.keptAt.get(was);
          const cands = was === null || kept !== undefined ? s.added : s.candidatesFor(was);
          const upTo = kept ?? end;
          const tested = cands.filter((i) => i < upTo);
          // no better than matching the job against the rules that may follow its rule now
          plan =
            tested.length > change.candidatesFor(now).length
              ? null
              : { at: tested, upTo, rule: kept === undefined ? null : was, byId: idOnly(next, tested) };
        }
        byNow.set(now, plan);
      }
      return plan;
    };
    // the last job's plan, kept for the next (a rule's jobs come together, most remembering the same)
    let last: { gen: number; was: string | null; now: string; plan: Plan | null } | undefined;
    const of = (h: Holder) => {
      const gen = h.share.gen;
      if (gen === undefined) return undefined;
      const was = h.share.was ?? null;
      const now = h.share.rule!;
      let plan: Plan | null;
      if (last !== undefined && last.gen === gen && last.was === was && last.now === now) plan = last.plan;
      else {
        const print = byGen.get(gen);
        if (print === undefined) return undefined;
        plan = planFor(gen, print, was, now);
        last = { gen, was, now, plan };
      }
      if (plan === null) return undefined;
      if (plan.at.length === 0) return plan.rule;
      return firstAmong(next, plan.at, h, plan.upTo, plan.byId) ?? plan.rule;
    };
    // the rule of every job under `now` remembered as `was` under set `gen`, when no match is needed to know it
    const direct = (gen: number, was: string | null, now: string) => {
      const print = byGen.get(gen);
      if (print === undefined) return undefined;
      const plan = planFor(gen, print, was, now);
      return plan === null || plan.at.length > 0 ? undefined : plan.rule;
    };
    return { of, direct };
  }

  /**
   * Indexes at most `jobs` more running jobs at the field paths new to the
   * store (see `rebase`); returns whether a path is still filling. Counts
   * never change here: only which jobs a later rule change reads.
   */
  fillIndex(jobs: number): boolean {
    this.store.fillIndex(jobs);
    return (
      this.store.fillingPaths().length > 0 ||
      this.store.presenceFilling?.() === true ||
      this.store.factsFilling?.() === true ||
      this.store.memosDropping?.() === true
    );
  }

  /** Every count, for tests and checks: rule uuid → slots, bucket key → jobs (zeros left out). */
  snapshot(): { rules: Record<string, number>; buckets: Record<string, number> } {
    const nonZero = (m: Map<string, number>) =>
      Object.fromEntries([...m].filter(([, n]) => n !== 0).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
  if (!fitsCounted(counts, mine))
    return { action: "ADHOC_RATE_LIMITED", rule: rule === null ? null : rule.uuid };
  return ruleVerdict(rule, rule?.kind === "RATE_LIMIT" ? counts.slotsOf(rule.uuid) : 0);
}
