/**
 * Where the running counts are kept (see running-counts.ts): each running
 * job's share (the rule it is counted under, the ad-hoc buckets it names),
 * the totals by rule and by bucket, and the rule set they were counted for.
 * `MemoryShares` keeps them in memory; the JobQueue Durable Object keeps them
 * in its SQLite storage (src/state/running-shares-sql.ts), so that an object
 * that starts again restores its counts instead of counting every running job.
 */
import type { Job } from "./types.js";
import {
  factsOf,
  fieldKind,
  inRanges,
  valuesAt,
  type FactKind,
  type FactReach,
  type IdRanges,
} from "./job-reach.js";

/** What one running job holds: its applying rule (uuid, or null for none) and its bucket keys. */
export interface Share {
  readonly rule: string | null;
  readonly buckets: readonly string[];
  /**
   * The rule the job had before the last rule change that moved it (`was`,
   * null: none), under the earlier rule set numbered `gen` (see
   * `ShareStore.earlierSets`); both undefined when no change moved it.
   */
  readonly gen?: number;
  readonly was?: string | null;
}

/** An earlier rule set jobs' remembered rules are for (see `Share.gen`): its number and fingerprint. */
export interface EarlierSet {
  readonly gen: number;
  readonly fingerprint: string;
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

/** Running jobs to read by id ranges and by indexed facts: per rule, fact reaches each holding its jobs, read through the one with the fewest (see job-reach.ts `anyOf`). */
export interface Reached {
  readonly ids: IdRanges;
  readonly facts: readonly (readonly FactReach[])[];
}

/** At most this many opcode field paths are indexed by value (each costs every job start a lookup and an index entry per value). */
export const MAX_INDEXED_PATHS = 8;

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
  /**
   * Moves counted jobs' shares, `moved[i]` (a holder this store handed out
   * in this rule change) from rule `was[i]` (its rule now) to `rules[i]`
   * (null: none), each remembering the rule it had under the earlier rule
   * set `gen` (see `Share.gen`). The jobs are distinct.
   */
  moveShares(
    moved: readonly Holder[],
    rules: readonly (string | null)[],
    gen: number,
    was: readonly (string | null)[],
  ): void;
  /**
   * Optional, for a store that moves many shares in one statement more
   * cheaply than one by one: how many counted jobs under `rule` remember
   * each (earlier set, earlier rule) (see `Share.gen`; jobs remembering
   * nothing left out), and moving all the jobs under `rule` remembering
   * (`gen`, `was`) to rule `to` (null: none), each remembering `rule` under
   * set `now`; returns how many moved.
   */
  remembered?(rule: string): readonly { gen: number; was: string | null; n: number }[];
  moveRemembered?(rule: string, gen: number, was: string | null, to: string | null, now: number): number;
  /** The earlier rule sets saved (see `addEarlier`), newest first. */
  earlierSets(): readonly EarlierSet[];
  /** The stored forms of the rules of saved earlier set `gen` (as `countedRules` gives them for the counted set). */
  earlierRules(gen: number): string[];
  /**
   * Saves the rule set the counts are for now (the one `countedRules` holds)
   * as the newest earlier set, numbered above every set saved before, and
   * keeps only the newest `keep`; returns its number. Saved with the counts,
   * so an object that starts again still knows the rules jobs had before.
   */
  addEarlier(fingerprint: string, keep: number): number;
  /** Forgets a job's share. */
  deleteShare(id: number): void;
  /**
   * Optional, for a store that indexes its paths with the presence key
   * (job-reach.ts `NO_KEY`) and so can find jobs by complement: visits the
   * counted jobs whose rule is one of `rules`, each once, handing to `read`
   * (with its job) those that have one of the facts `co` (a rule's
   * co-reach, see filter-set.ts `ruleCoReach`; field paths indexed in full)
   * and to `sure` those that have none, their jobs not read. Returns false,
   * visiting none, when those with a fact of `co` are too many for this to
   * be cheaper than reading every job under `rules`.
   */
  eachBeside?(
    rules: ReadonlySet<string | null>,
    co: readonly FactReach[],
    read: (h: Holder) => void,
    sure: (h: Holder) => void,
  ): boolean;
  /**
   * Optional, for a store that keeps jobs' shares in groups it moves whole
   * and indexes its paths with the presence key: `eachBeside`, where the
   * jobs it would hand to `sure` are not visited but counted (`from`: how
   * many under each rule) and moved to rule `onto` by `move` (as
   * `moveShares` would, each remembering the rule it had under the earlier
   * set `gen`), which the rule change calls when it moves the others.
   * Undefined, visiting none, when `eachBeside` would decline.
   */
  moveBeside?(
    rules: ReadonlySet<string | null>,
    co: readonly FactReach[],
    read: (h: Holder) => void,
    onto: string,
  ): { readonly from: ReadonlyMap<string | null, number>; move(gen: number): void } | undefined;
  /**
   * Optional, for a store that keeps jobs' shares in groups it moves whole:
   * the counted jobs whose rule is one of `rules` that have a fact of `by`
   * (a value test runs once on each distinct value held), counted by group
   * without being read (`from`: how many under each rule) and moved to rule
   * `onto` by `move` (as `moveShares` would, each remembering the rule it
   * had under the earlier set `gen`), which the rule change calls when it
   * moves the others; a job the change moves otherwise in between is not
   * to be one of them.
   */
  moveByFact?(
    rules: ReadonlySet<string | null>,
    by: FactReach,
    onto: string,
  ): { readonly from: ReadonlyMap<string | null, number>; move(gen: number): void };
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
  /** The opcode field paths whose values the store indexes as jobs start (`field:<path>` facts, see job-reach.ts `factsOf`), those still filling included. */
  indexedPaths(): readonly string[];
  /**
   * Optional: whether the `op` index does not yet hold the presence key
   * (`NO_KEY`) for every counted job that has it (counts indexed before the
   * key, being filled by `fillIndex`): a co-reach by `OP_ID` is not read
   * through until it does. Absent: it does.
   */
  presenceFilling?(): boolean;
  /**
   * Optional: whether the fact index does not yet hold every counted job
   * (counts saved before the store had it, being filled by `fillIndex`): no
   * fact is read through it until it does (jobs are found by id or read by
   * rule). Absent: it does.
   */
  factsFilling?(): boolean;
  /** Optional: whether `fillIndex` has rows of the store's own to write or delete yet (kept matches of a regex no longer kept, a split of a group not yet written to its jobs' rows; see the SQLite store's `moveByFact`). Absent: none. */
  memosDropping?(): boolean;
  /** The indexed paths whose index does not hold every counted job yet (jobs counted before the path was added, not yet read by `fillIndex`): not to be read through. */
  fillingPaths(): readonly string[];
  /**
   * Indexes exactly these paths from now on: a path not indexed yet is
   * indexed as jobs start, and filling (see `fillingPaths`) until
   * `fillIndex` has read the jobs counted before; a path left out is no
   * longer indexed as jobs start. No pass over the counted jobs.
   */
  setIndexedPaths(paths: readonly string[]): void;
  /**
   * Indexes the filling paths' values (and the `op` presence key, see
   * `presenceFilling`; and every fact, see `factsFilling`) of at most
   * `jobs` more of the jobs counted before they were added (in a fixed
   * order, resumed where the last call stopped); a path whose every counted
   * job is read is no longer filling.
   * Returns how many counted jobs were read.
   */
  fillIndex(jobs: number): number;
}

/**
 * The one of a rule's fact reaches to read through: among those looked up,
 * the one `size` says holds the fewest jobs (`size` may stop counting past
 * its second argument), else the first tested one.
 */
export function cheapest(
  alts: readonly FactReach[],
  size: (f: FactReach, atMost: number) => number,
): FactReach {
  let best: FactReach | undefined;
  let least = Infinity;
  for (const f of alts) {
    if (f.values.finite === null) continue;
    const n = alts.length === 1 ? 0 : size(f, least);
    if (n < least) [best, least] = [f, n];
  }
  return best ?? alts[0];
}

/** A memory store reads the jobs under some rules in one pass over every job when they hold more than one in this many. */
const SCAN_BELOW = 4;

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

/** A share as the memory store keeps it (its own object, updated in place). */
interface OwnShare {
  rule: string | null;
  readonly buckets: readonly string[];
  gen: number | undefined;
  was: string | null | undefined;
}

/** A counted job in memory: its share, the job, and the facts it is indexed under. */
interface Entry {
  readonly id: number;
  readonly share: OwnShare;
  readonly job: Job;
  readonly facts: [FactKind, string][];
}

/** A share store in memory, indexed by rule, by id block and by each fact (see `factsOf`), so that a rule change reads only the jobs it can move. */
export class MemoryShares implements ShareStore {
  private fingerprint: string | undefined;
  private readonly rules = new Map<string, string>();
  private readonly byId = new Map<number, Entry>();
  private readonly byRule = new Map<string | null, Set<number>>();
  private readonly byBlock = new Map<number, Set<number>>();
  private readonly byFact = new Map<FactKind, Map<string, Set<number>>>();
  private paths: readonly string[] = [];
  /** The paths still filling, and where `fillIndex` goes on: an iterator over the counted jobs begun when the last path was added (jobs counted since come after it, already indexed). */
  private filling: readonly string[] = [];
  private fill: Iterator<Entry> | undefined;
  private readonly saved: Totals = { rules: new Map(), buckets: new Map() };
  /** The earlier sets, newest first, each with the texts by uuid where it differs from the counted rules (null: a rule it lacks). */
  private earlier: { gen: number; fingerprint: string; differs: Map<string, string | null> }[] = [];
  private gens = 0;

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
    // an earlier set that had the counted rule keeps its text
    for (const e of this.earlier)
      for (const uuid of changed.keys())
        if (!e.differs.has(uuid)) e.differs.set(uuid, this.rules.get(uuid) ?? null);
    for (const [uuid, text] of changed) {
      if (text === null) this.rules.delete(uuid);
      else this.rules.set(uuid, text);
    }
  }

  earlierSets(): readonly EarlierSet[] {
    return this.earlier.map(({ gen, fingerprint }) => ({ gen, fingerprint }));
  }

  earlierRules(gen: number): string[] {
    const e = this.earlier.find((x) => x.gen === gen);
    if (e === undefined) return [];
    const out = new Map(this.rules);
    for (const [uuid, text] of e.differs) {
      if (text === null) out.delete(uuid);
      else out.set(uuid, text);
    }
    return [...out.values()];
  }

  addEarlier(fingerprint: string, keep: number): number {
    const gen = ++this.gens;
    this.earlier = [{ gen, fingerprint, differs: new Map<string, string | null>() }, ...this.earlier].slice(
      0,
      keep,
    );
    return gen;
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
    const facts = factsOf(job, this.paths, true);
    this.byId.set(id, {
      id,
      share: { rule: share.rule, buckets: share.buckets, gen: undefined, was: undefined },
      job,
      facts,
    });
    addTo(this.byRule, share.rule, id);
    addTo(this.byBlock, Math.floor(id / BLOCK), id);
    for (const [kind, v] of facts) addTo(this.index(kind), v, id);
  }

  private index(kind: FactKind): Map<string, Set<number>> {
    let m = this.byFact.get(kind);
    if (m === undefined) this.byFact.set(kind, (m = new Map()));
    return m;
  }

  indexedPaths(): readonly string[] {
    return this.paths;
  }

  fillingPaths(): readonly string[] {
    return this.filling;
  }

  /** A dropped path's index goes at once (its jobs' entries keep their facts until a fill reads them again); an added one fills from a new pass. */
  setIndexedPaths(paths: readonly string[]): void {
    const was = new Set(this.paths);
    const now = new Set(paths);
    for (const path of was) if (!now.has(path)) this.byFact.delete(fieldKind(path));
    const added = paths.filter((p) => !was.has(p));
    this.paths = [...paths];
    this.filling = this.filling.filter((p) => now.has(p));
    if (added.length > 0 && this.byId.size > 0) {
      this.filling = [...this.filling, ...added];
      // read again from the first counted job: a path filling already is indexed again where it was (the same values)
      this.fill = this.byId.values();
    }
    if (this.filling.length === 0) this.fill = undefined;
  }

  fillIndex(jobs: number): number {
    let read = 0;
    const kinds = this.filling.map(fieldKind);
    while (this.fill !== undefined && read < jobs) {
      const next = this.fill.next();
      if (next.done === true) {
        this.fill = undefined;
        this.filling = [];
        break;
      }
      read++;
      const e = next.value;
      // the entry's facts of these kinds (a job indexed as it started, or left from when the path was dropped) are replaced by the same values
      const facts = e.facts.filter(([kind]) => !kinds.includes(kind));
      this.filling.forEach((path, k) => {
        const index = this.index(kinds[k]);
        for (const v of new Set(valuesAt(e.job, path, true))) {
          facts.push([kinds[k], v]);
          addTo(index, v, e.id);
        }
      });
      e.facts.splice(0, e.facts.length, ...facts);
    }
    return read;
  }

  /**
   * Each entry's share is updated in place (a holder handed out before is
   * the entry: it reads the new rule). A rule all of whose jobs move has its
   * set of ids handed whole to the rule most of them move to, unless jobs
   * leave that one too (the smaller of the two sets added to the larger),
   * and only the others are taken out again: a rule's jobs moving together
   * cost no look-up each.
   */
  moveShares(
    moved: readonly Holder[],
    rules: readonly (string | null)[],
    gen: number,
    was: readonly (string | null)[],
  ): void {
    const pairs = new Map<string | null, Map<string | null, number>>();
    // runs of the same move counted at once (a change's moves come rule by rule)
    let run = 0;
    for (let i = 0; i < moved.length; i++) {
      run++;
      if (i + 1 < moved.length && was[i + 1] === was[i] && rules[i + 1] === rules[i]) continue;
      let to = pairs.get(was[i]);
      if (to === undefined) pairs.set(was[i], (to = new Map()));
      to.set(rules[i], (to.get(rules[i]) ?? 0) + run);
      run = 0;
    }
    // a rule whose every job moves: its set goes whole to the rule most of them move to, if no job leaves that one
    const whole = new Map<string | null, string | null>();
    for (const [from, tos] of pairs) {
      const held = this.byRule.get(from);
      let moving = 0;
      let to: string | null = null;
      let most = -1;
      for (const [rule, n] of tos) {
        moving += n;
        if (n > most) [to, most] = [rule, n];
      }
      if (pairs.has(to) || held === undefined || held.size !== moving) continue;
      whole.set(from, to);
      const there = this.byRule.get(to);
      this.byRule.delete(from);
      if (there === undefined) this.byRule.set(to, held);
      else {
        const [big, small] = held.size >= there.size ? [held, there] : [there, held];
        for (const id of small) big.add(id);
        this.byRule.set(to, big);
      }
    }
    for (let i = 0; i < moved.length; i++) {
      // the holders this store hands out are its entries
      const e = moved[i] as Entry;
      e.share.rule = rules[i];
      e.share.gen = gen;
      e.share.was = was[i];
      const handed = whole.get(was[i]);
      if (handed === rules[i]) continue;
      // a job of a rule handed whole to another is in that one's set now
      takeFrom(this.byRule, handed === undefined ? was[i] : handed, e.id);
      addTo(this.byRule, rules[i], e.id);
    }
  }

  deleteShare(id: number): void {
    const was = this.byId.get(id);
    if (was === undefined) return;
    this.byId.delete(id);
    takeFrom(this.byRule, was.share.rule, id);
    takeFrom(this.byBlock, Math.floor(id / BLOCK), id);
    for (const [kind, v] of was.facts) {
      const index = this.byFact.get(kind);
      if (index !== undefined) takeFrom(index, v, id);
    }
  }

  /**
   * Visits the counted jobs under `rules`, always with their jobs (memory
   * holds them anyway): through the rule index when those rules hold few of
   * the jobs, else in one pass over every job (when they hold most, a look-up
   * by id per job costs several times a pass in order).
   */
  eachHolder(rules: ReadonlySet<string | null>, _withJobs: boolean, visit: (h: Holder) => void): void {
    this.walk(rules, visit);
  }

  private walk(rules: ReadonlySet<string | null>, visit: (h: Holder) => void): void {
    let held = 0;
    for (const rule of rules) held += this.byRule.get(rule)?.size ?? 0;
    if (held * SCAN_BELOW > this.byId.size) {
      for (const e of this.byId.values()) if (rules.has(e.share.rule)) visit(e);
      return;
    }
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
    const size = (f: FactReach, atMost: number) => {
      let n = 0;
      const index = this.byFact.get(f.kind);
      for (const v of f.values.finite!) if (n <= atMost) n += index?.get(v)?.size ?? 0;
      return n;
    };
    for (const alts of reached.facts) {
      const { kind, values } = cheapest(alts, size);
      const index = this.byFact.get(kind) ?? new Map<string, Set<number>>();
      if (values.finite !== null) {
        for (const v of values.finite) {
          const ids = index.get(v);
          if (ids !== undefined) for (const id of ids) once(id);
        }
      } else for (const [v, ids] of index) if (values.has(v)) for (const id of ids) once(id);
    }
  }

  /**
   * The jobs with a fact of `co` gathered through the fact indexes (a value
   * test run once per distinct value held), then the jobs under `rules` as
   * `eachHolder` walks them, each handed by whether it is among those.
   * Declines when those jobs are more than half of the jobs under `rules`.
   */
  eachBeside(
    rules: ReadonlySet<string | null>,
    co: readonly FactReach[],
    read: (h: Holder) => void,
    sure: (h: Holder) => void,
  ): boolean {
    let held = 0;
    for (const rule of rules) held += this.byRule.get(rule)?.size ?? 0;
    // the jobs with the finite facts of `co` counted first (a job with two counted twice): too many, none gathered
    let bound = 0;
    for (const { kind, values } of co)
      if (values.finite !== null)
        for (const v of values.finite) bound += this.byFact.get(kind)?.get(v)?.size ?? 0;
    if (bound * 2 > held) return false;
    const inside = new Set<number>();
    for (const { kind, values } of co) {
      const index = this.byFact.get(kind);
      if (index === undefined) continue;
      if (values.finite !== null) {
        for (const v of values.finite) {
          const ids = index.get(v);
          if (ids !== undefined) for (const id of ids) inside.add(id);
        }
      } else for (const [v, ids] of index) if (values.has(v)) for (const id of ids) inside.add(id);
      if (inside.size * 2 > held) return false;
    }
    this.walk(rules, (h) => (inside.has(h.id) ? read(h) : sure(h)));
    return true;
  }

  clear(): void {
    this.byId.clear();
    this.byRule.clear();
    this.byBlock.clear();
    this.byFact.clear();
    this.saved.rules.clear();
    this.saved.buckets.clear();
    this.rules.clear();
    this.earlier = [];
    this.fingerprint = undefined;
    this.filling = [];
    this.fill = undefined;
  }
}
