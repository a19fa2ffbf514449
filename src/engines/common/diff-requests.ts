/**
 * What each engine's diff request generator gives the semantic diff: the
 * requests that reach every boundary the two policies draw, how many of each
 * kind of boundary were found, and whether the requests cover every class of
 * request the boundaries separate (so that finding no difference proves the
 * policies equivalent over them).
 */

import { finish, Pace, type Steps } from "./slices.js";

/** The most requests one diff generates (a bound on work the policies' size can drive). */
export const MAX_DIFF_REQUESTS = 20_000;
/** The most values one product picks (requests × lists): many lists (one per tag name) make fewer requests. */
export const MAX_PRODUCT_VALUES = 500_000;

/**
 * The generated requests: an array, or a list that makes request `i` when
 * asked for it ({@link productList}), so that a diff its work bound stops
 * early builds only the requests it decides.
 */
export interface RequestList<R> {
  readonly length: number;
  at(i: number): R | undefined;
}

/** A generator's answer. */
export interface DiffRequests<R> {
  requests: RequestList<R>;
  /** Boundary kinds found in either policy, with how many of each (`user literal: 3`). */
  boundaries: Record<string, number>;
  /** True only when every combination of the boundary values was generated and nothing outside them (a regex) decides. */
  exhaustive: boolean;
  /** Why the enumeration is not exhaustive, when it is not. */
  why?: string[];
  /**
   * Work units each request's two decisions do that their budgets do not see
   * (customs rebuilds its hosts' access lists), charged to the diff's bound
   * besides the request's cost.
   */
  unchargedUnits?: number;
}

/** Adds one to a boundary kind's count. */
export function countBoundary(boundaries: Record<string, number>, kind: string, n = 1): void {
  boundaries[kind] = (boundaries[kind] ?? 0) + n;
}

/**
 * The cartesian product of the value lists, as objects built by `make`, stopping
 * at `limit` combinations (fewer when there are so many lists that they would
 * pick more than MAX_PRODUCT_VALUES values); `complete` says whether all were made.
 */
export function product<V, R>(
  lists: readonly (readonly V[])[],
  requested: number,
  make: (values: V[]) => R,
): { out: R[]; complete: boolean } {
  return finish(productSteps(lists, requested, make));
}

/** {@link product} as resumable work (slices.ts): each combination made counts its values and a few more units. */
export function* productSteps<V, R>(
  lists: readonly (readonly V[])[],
  requested: number,
  make: (values: V[]) => R,
  pace: Pace = new Pace(),
): Steps<{ out: R[]; complete: boolean }> {
  const limit = Math.min(requested, Math.max(1, Math.floor(MAX_PRODUCT_VALUES / Math.max(1, lists.length))));
  const out: R[] = [];
  const idx = lists.map(() => 0);
  if (lists.some((l) => l.length === 0)) return { out, complete: true };
  for (;;) {
    if (out.length >= limit) return { out, complete: false };
    out.push(make(lists.map((l, i) => l[idx[i]])));
    if (pace.spend(16 + lists.length)) yield;
    let k = lists.length - 1;
    while (k >= 0) {
      idx[k]++;
      if (idx[k] < lists[k].length) break;
      idx[k] = 0;
      k--;
    }
    if (k < 0) return { out, complete: true };
  }
}

/**
 * {@link product} as a list that makes each combination when asked for it
 * (request `i` is the `i`-th combination `product` would make, in the same
 * order): no combination is built until a diff decides it.
 */
export function productList<V, R>(
  lists: readonly (readonly V[])[],
  requested: number,
  make: (values: V[]) => R,
): { out: RequestList<R>; complete: boolean } {
  const limit = Math.min(requested, Math.max(1, Math.floor(MAX_PRODUCT_VALUES / Math.max(1, lists.length))));
  if (lists.some((l) => l.length === 0)) return { out: [], complete: true };
  // the number of combinations, counted no further than one past the limit
  let total = 1;
  for (const l of lists) total = Math.min(total * l.length, limit + 1);
  const length = Math.min(total, limit);
  const values: V[] = new Array<V>(lists.length);
  const at = (i: number): R | undefined => {
    if (!Number.isInteger(i) || i < 0 || i >= length) return undefined;
    // the last list varies fastest, as product's odometer turns
    let rest = i;
    for (let k = lists.length - 1; k >= 0; k--) {
      const n = lists[k].length;
      values[k] = lists[k][rest % n];
      rest = Math.floor(rest / n);
    }
    return make(values.slice());
  };
  return { out: { length, at }, complete: total <= limit };
}

/** The literal runs of a regular expression's source (text between metacharacters), longest first. */
export function regexLiterals(source: string): string[] {
  const runs = source
    .replace(/\\[a-zA-Z]/g, " ")
    .replace(/\\(.)/g, "$1")
    .split(/[\^$.*+?()[\]{}|\\ ]+/)
    .filter((s) => s.length > 0);
  return [...new Set(runs)].sort((a, b) => b.length - a.length);
}

/**
 * Witnesses of one expression: one string it matches and one it does not,
 * searched among strings built from the pattern's own literal runs (each run,
 * all runs joined, with and without a fresh tail). Either may be missing when
 * no built string has it.
 */
export function regexWitnesses(source: string, test: (s: string) => boolean, fresh: string): string[] {
  const runs = regexLiterals(source);
  const candidates = [
    runs.join(""),
    ...runs,
    runs.join("") + fresh,
    fresh + runs.join(""),
    "",
    fresh,
    "0",
    "a",
    "A",
  ];
  for (const r of runs) candidates.push(r + "0", r.slice(0, -1), r.toUpperCase());
  let yes: string | undefined;
  let no: string | undefined;
  for (const c of candidates) {
    if (yes !== undefined && no !== undefined) break;
    if (test(c)) yes ??= c;
    else no ??= c;
  }
  return [yes, no].filter((s): s is string => s !== undefined);
}
