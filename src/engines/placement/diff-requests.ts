/**
 * Placement's diff requests: every user, group, queue and tag literal the two
 * policies hold, each regex filter's witnesses, plus one fresh name of each,
 * combined (partition × user × groups × queue × tag values). Without regexes
 * the literals split names into the classes the rules can tell apart, so the
 * full product is exhaustive for requests without `existingQueues`.
 */
import {
  countBoundary,
  MAX_DIFF_REQUESTS,
  productList,
  regexWitnesses,
  type DiffRequests,
} from "../common/diff-requests.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import { compileGoRegex } from "./filter.js";
import { compileVmTester } from "../common/regex/index.js";
import type { FilterData, PlacementData, PlacementRequest, RuleData } from "./types.js";

/** A name no policy holds (lower case, valid as a user, group and queue name). */
const FRESH = "zz-fresh-9";
/** Group lists are every subset of the group literals up to this many; beyond, each group alone. */
const MAX_SUBSET_GROUPS = 6;
/**
 * What collecting one rule or queue counts toward a slice (common/slices.ts),
 * and what one expression's witness search counts besides: compiling it and
 * testing a dozen strings costs about as much as reading 1 KiB of source.
 */
const ENTRY_UNITS = 64;
const WITNESS_UNITS = 1_024;

interface Literals {
  partitions: Set<string>;
  users: Set<string>;
  groups: Set<string>;
  queues: Set<string>;
  tags: Set<string>;
  regexes: number;
  /**
   * Each expression's witnesses by its source (null: it does not compile):
   * the two sides of a diff mostly share their expressions, searched once.
   */
  witnesses: Map<string, string[] | null>;
  /** Work units spent since the caller last took them (see {@link WITNESS_UNITS}). */
  units: number;
}

/** An expression's witnesses (regexWitnesses), or null when it does not compile; searched the first time its source is seen. */
function witnessesOf(source: string, lit: Literals): string[] | null {
  const known = lit.witnesses.get(source);
  if (known !== undefined) return known;
  lit.units += WITNESS_UNITS;
  // a dozen short candidates tested once need the Pike VM alone: no linearity proof, RegExp or DFA
  // (the decisions' compiles make their own); a pattern it cannot take goes the decisions' way
  let test = compileVmTester(source, "re2");
  if (test === null) {
    const re = compileGoRegex(source);
    if (re.ok) test = (s) => re.value.exec(s, 0) !== null;
  }
  const w = test !== null ? regexWitnesses(source, test, FRESH) : null;
  lit.witnesses.set(source, w);
  return w;
}

function addFilter(f: FilterData, lit: Literals, boundaries: Record<string, number>): void {
  for (const u of f.users) lit.users.add(u);
  for (const g of f.groups) lit.groups.add(g);
  for (const [exp, into] of [
    [f.userExp, lit.users],
    [f.groupExp, lit.groups],
  ] as const) {
    if (exp === null) continue;
    lit.regexes++;
    const w = witnessesOf(exp.source, lit);
    if (w === null) continue;
    countBoundary(boundaries, "regex witness", w.length);
    for (const s of w) into.add(s);
  }
}

function addRule(r: RuleData, lit: Literals, boundaries: Record<string, number>): void {
  addFilter(r.filter, lit, boundaries);
  if (r.kind === "tag") lit.tags.add(r.value);
  if (r.kind === "fixed") {
    lit.queues.add(r.value);
    for (const level of r.value.split(".")) lit.users.add(level);
  }
  if (r.parent !== null) addRule(r.parent, lit, boundaries);
}

/** Collects one policy's literals, yielding when the queues and rules read and the witnesses searched fill a slice. */
function* collect(
  data: PlacementData,
  lit: Literals,
  boundaries: Record<string, number>,
  pace: Pace,
): Steps<void> {
  const due = (): boolean => {
    const units = lit.units + ENTRY_UNITS;
    lit.units = 0;
    return pace.spend(units);
  };
  for (const p of data.partitions) {
    lit.partitions.add(p.name);
    for (const q of p.queues) {
      lit.queues.add(q.path);
      const leafName = q.path.split(".").pop() ?? q.path;
      lit.queues.add(leafName);
      lit.users.add(leafName);
      for (const acl of [q.submit, q.admin]) {
        for (const u of acl.users) lit.users.add(u);
        for (const g of acl.groups) lit.groups.add(g);
      }
      if (due()) yield;
    }
    if (p.defaultQueue !== null) lit.queues.add(p.defaultQueue);
    for (const r of p.rules) {
      addRule(r, lit, boundaries);
      if (due()) yield;
    }
  }
}

function groupLists(groups: string[]): { lists: string[][]; complete: boolean } {
  if (groups.length <= MAX_SUBSET_GROUPS) {
    const lists: string[][] = [];
    for (let m = 0; m < 1 << groups.length; m++) lists.push(groups.filter((_, i) => (m >> i) & 1));
    return { lists, complete: true };
  }
  return { lists: [[], ...groups.map((g) => [g]), groups], complete: false };
}

/** The placement requests that reach every boundary of either policy. */
export function placementDiffRequests(a: PlacementData, b: PlacementData): DiffRequests<PlacementRequest> {
  return finish(placementDiffRequestsSteps(a, b));
}

/**
 * {@link placementDiffRequests} as resumable work (common/slices.ts): the
 * literals and witnesses are collected in slices, and the requests are a
 * list that makes each one when the diff asks for it (productList).
 */
export function* placementDiffRequestsSteps(
  a: PlacementData,
  b: PlacementData,
): Steps<DiffRequests<PlacementRequest>> {
  const boundaries: Record<string, number> = {};
  const lit: Literals = {
    partitions: new Set(),
    users: new Set(),
    groups: new Set(),
    queues: new Set(),
    tags: new Set(),
    regexes: 0,
    witnesses: new Map(),
    units: 0,
  };
  const pace = new Pace();
  yield* collect(a, lit, boundaries, pace);
  yield* collect(b, lit, boundaries, pace);
  countBoundary(boundaries, "partition", lit.partitions.size);
  countBoundary(boundaries, "user literal", lit.users.size);
  countBoundary(boundaries, "group literal", lit.groups.size);
  countBoundary(boundaries, "queue literal", lit.queues.size);
  countBoundary(boundaries, "tag name", lit.tags.size);
  const users = [...lit.users, FRESH];
  const groups = groupLists([...lit.groups, FRESH]);
  const queueValues: (string | undefined)[] = [undefined, ...lit.queues, FRESH];
  const tagNames = [...lit.tags];
  const lists: (string | string[] | undefined)[][] = [
    [...lit.partitions],
    users,
    groups.lists,
    queueValues,
    ...tagNames.map(() => queueValues),
  ];
  const made = productList(lists, MAX_DIFF_REQUESTS, (v) => {
    const request: PlacementRequest & { tags?: Record<string, string> } = {
      partition: v[0] as string,
      user: v[1] as string,
      groups: v[2] as string[],
    };
    if (v[3] !== undefined) request.queue = v[3] as string;
    const tags: Record<string, string> = {};
    tagNames.forEach((t, i) => {
      const value = v[4 + i];
      if (value !== undefined) tags[t] = value as string;
    });
    if (Object.keys(tags).length > 0) request.tags = tags;
    return request;
  });
  const why: string[] = [];
  if (lit.regexes > 0)
    why.push(`${lit.regexes} regex filter(s): their witnesses are searched, not every name they tell apart`);
  if (!groups.complete)
    why.push(`more than ${MAX_SUBSET_GROUPS} group literals: not every group list is tried`);
  if (!made.complete) why.push(`the combinations exceed the ${made.out.length} requests generated`);
  return { requests: made.out, boundaries, exhaustive: why.length === 0, why };
}
