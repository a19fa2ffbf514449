/**
 * What a change of filter rules can do to the running counts: which rules
 * of the new chain are kept (they match the same jobs, in the same order
 * among themselves), which are added, and which old rules' jobs must be
 * matched again. A rule is kept when the new set has the same uuid matching
 * the same way (same predicates, and the same watermark if a predicate reads
 * it) and the kept rules keep their order (the longest run of them that
 * does); a new action, reason trail or unread watermark moves no job.
 */
import { stringifyExactJson } from "../common/exact-json.js";
import type { RuleOrder } from "./filter-set.js";
import type { FilterRule } from "./types.js";

/** How the chain changed between two filter sets (see the file's comment). */
export interface RuleChange {
  /** The new chain's positions of added rules, ascending. */
  readonly added: readonly number[];
  /** The new chain's position of each kept rule, by uuid. */
  readonly keptAt: ReadonlyMap<string, number>;
  /** The old chain rules that are not kept (their jobs are matched again). */
  readonly removed: ReadonlySet<string>;
  /** For a removed rule, the new positions its jobs may move to: added rules, and kept rules that came after it. */
  candidatesFor(uuid: string): readonly number[];
}

/**
 * A value's text for comparing and hashing only (never parsed back): JSON
 * with each bigint as a string no rule holds, much cheaper than the exact
 * stored form. A key order that differs only makes a rule look changed.
 */
function compareText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    // a bigint somewhere: the replacer is called for every value, so only then
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `\u0000n${x}` : x));
  }
}

/** What counting depends on in a rule, as text: uuid, order keys, predicates and action (not the reason trail). */
function countingText(r: FilterRule): string {
  return `${r.uuid}\u0000${String(r.priority)}\u0000${String(r.watermark)}\u0000${compareText(r.predicates)}\u0000${compareText(r.action)}`;
}

/** What decides the jobs a rule matches: its predicates, and its watermark when a predicate reads it. */
function matchKey(rule: FilterRule): string {
  const text = compareText(rule.predicates);
  return text.includes('"watermark"') ? `${text}@${String(rule.watermark)}` : text;
}

/** `build` of a rule set, computed once per set (kept as long as the set is). */
function oncePerSet(
  build: (set: RuleOrder) => Map<string, string>,
): (set: RuleOrder) => ReadonlyMap<string, string> {
  const done = new WeakMap<RuleOrder, Map<string, string>>();
  return (set) => {
    let m = done.get(set);
    if (m === undefined) done.set(set, (m = build(set)));
    return m;
  };
}

/** Each chain rule's match key by uuid, computed once per set. */
const keysOf = oncePerSet((set) => new Map(set.chain.map((r) => [r.uuid, matchKey(r.rule)])));

/** The indexes (into `xs`) of a longest strictly increasing subsequence of `xs`. */
function longestIncreasing(xs: readonly number[]): number[] {
  const tails: number[] = [];
  const prev = new Array<number>(xs.length).fill(-1);
  for (let i = 0; i < xs.length; i++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (xs[tails[mid]] < xs[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const out: number[] = [];
  for (let i = tails.length === 0 ? -1 : tails[tails.length - 1]; i !== -1; i = prev[i]) out.push(i);
  return out.reverse();
}

/** How the chain of `prev` became the chain of `next`. */
export function ruleChange(prev: RuleOrder, next: RuleOrder): RuleChange {
  const before = keysOf(prev);
  const after = keysOf(next);
  const oldAt = new Map(prev.chain.map((r, i) => [r.uuid, i]));
  // the rules that match as they did, in the new order, with their old positions
  const same: number[] = [];
  const sameOld: number[] = [];
  next.chain.forEach((r, i) => {
    const was = before.get(r.uuid);
    if (was !== undefined && was === after.get(r.uuid)) {
      same.push(i);
      sameOld.push(oldAt.get(r.uuid)!);
    }
  });
  const keptAt = new Map<string, number>();
  for (const k of longestIncreasing(sameOld)) keptAt.set(next.chain[same[k]].uuid, same[k]);
  const added: number[] = [];
  next.chain.forEach((r, i) => {
    if (!keptAt.has(r.uuid)) added.push(i);
  });
  const removed = new Set(prev.chain.filter((r) => !keptAt.has(r.uuid)).map((r) => r.uuid));
  const memo = new Map<string, number[]>();
  const candidatesFor = (uuid: string): number[] => {
    let at = memo.get(uuid);
    if (at === undefined) {
      const q = oldAt.get(uuid) ?? -1;
      at = [];
      next.chain.forEach((r, i) => {
        if (!keptAt.has(r.uuid) || oldAt.get(r.uuid)! > q) at!.push(i);
      });
      memo.set(uuid, at);
    }
    return at;
  };
  return { added, keptAt, removed, candidatesFor };
}

/** Every rule's counting text by uuid (see countingText), computed once per set. */
const ruleTexts = oncePerSet((set) => new Map(set.rules.map((r) => [r.uuid, countingText(r.rule)])));

/**
 * What to save so that the saved rules count as `next`'s: the stored form of
 * each rule whose counting text changed, by uuid, null for a rule gone (a
 * saved rule may keep an older reason trail, which counting never reads).
 */
export function ruleTextChanges(prev: RuleOrder | null, next: RuleOrder): Map<string, string | null> {
  const was = prev === null ? new Map<string, string>() : ruleTexts(prev);
  const now = ruleTexts(next);
  const out = new Map<string, string | null>();
  for (const r of next.rules)
    if (was.get(r.uuid) !== now.get(r.uuid)) out.set(r.uuid, stringifyExactJson(r.rule));
  for (const uuid of was.keys()) if (!now.has(uuid)) out.set(uuid, null);
  return out;
}

const prints = new WeakMap<RuleOrder, string>();

/** A fingerprint of what counting depends on in a rule set (every rule's counting text, in order): saved counts belong to the set with their fingerprint. */
export function ruleSetFingerprint(set: RuleOrder): string {
  let fp = prints.get(set);
  if (fp === undefined) {
    // two 32-bit FNV-1a style hashes with different multipliers over the rules' counting texts
    let h1 = 0x811c9dc5;
    let h2 = 0x01000193 ^ set.rules.length;
    const stored = ruleTexts(set);
    for (const r of set.rules) {
      const text = stored.get(r.uuid)!;
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 0x01000193);
        h2 = Math.imul(h2 ^ c, 0x5bd1e995);
      }
      h1 = Math.imul(h1 ^ 0x0a, 0x01000193);
      h2 = Math.imul(h2 ^ 0x0a, 0x5bd1e995);
    }
    fp = `${set.rules.length}:${(h1 >>> 0).toString(16)}${(h2 >>> 0).toString(16)}`;
    prints.set(set, fp);
  }
  return fp;
}
