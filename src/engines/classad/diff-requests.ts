/**
 * The match engine's diff requests: one job ad, one machine ad (and a schedd
 * ad when either policy filters schedds) per request, each attribute the two
 * policies read taking its boundary values (`diff-boundaries.ts`). When the
 * product of all values fits the request bound it is generated whole;
 * otherwise each expression's own attributes are combined in full, every pair
 * of attributes' values is tried, and the other attributes keep a base value
 * found by search (ads both policies keep and match, so that a change behind a
 * discard or a failed match still shows). ClassAd expressions can compute
 * anything from an attribute, so this is a search, never a proof.
 */
import { Budget, DEFAULT_DECISION_BUDGET } from "../common/budget.js";
import { countBoundary, MAX_DIFF_REQUESTS, product, type DiffRequests } from "../common/diff-requests.js";
import { matchBoundaries, type AttrDim } from "./diff-boundaries.js";
import {
  decideParsedMatch,
  parseMatchRequest,
  type MatchContext,
  type MatchVerdict,
  type ParsedMatchRequest,
} from "./match.js";
import { loadMatchPolicy, type MatchPolicy, type MatchPolicyData } from "./policy.js";

/** A match request as `decideMatch` reads it, with ads as ClassAd text. */
export interface MatchDiffRequest {
  job: string;
  machines: string[];
  schedd?: string;
}

/** The fixed clock and random source both policies decide the diff's requests with (time() reads the same). */
export const MATCH_DIFF_CONTEXT: MatchContext = {
  now: Date.UTC(2026, 0, 1),
  random: () => 0.5,
  explain: false,
};

/** Evaluations the search for base ads may spend. */
const MAX_BASE_EVALUATIONS = 4_000;
/** Work units (each expression's `Compiled.cost`, and reading the ads) all decisions of one diff may need. */
const MAX_MATCH_WORK = 1_000_000;
/** Work a request's ads cost besides the policy's expressions and their attributes (both Requirements, the rank). */
const AD_WORK = 20;
/** Work reading one attribute of a generated ad costs. */
const ATTR_WORK = 4;

/** The most work one evaluation of every expression of a policy costs. */
function costOf(p: MatchPolicy): number {
  return [p.scheddOnly, p.startdOnly, p.jobOnly, p.resource, p.job].reduce((n, c) => n + (c?.cost ?? 0), 0);
}

/** Requests already read, so the two sides of a diff read each request's ads once. */
const parsedRequests = new WeakMap<object, ParsedMatchRequest>();

/** One match decision under a fresh work budget, so no generated ad can make the diff run long; a bad ad throws. */
export function decideForDiff(policy: MatchPolicy, request: unknown): MatchVerdict {
  return new Budget(DEFAULT_DECISION_BUDGET).run(() => {
    const key = typeof request === "object" && request !== null ? request : null;
    let parsed = key === null ? undefined : parsedRequests.get(key);
    if (parsed === undefined) {
      const read = parseMatchRequest(request as MatchDiffRequest);
      if (!read.ok) throw read.error;
      parsed = read.value;
      if (key !== null) parsedRequests.set(key, parsed);
    }
    return decideParsedMatch(policy, parsed, MATCH_DIFF_CONTEXT).verdict;
  });
}

/** Builds a request from one value index per dimension. */
function requestOf(dims: readonly AttrDim[], pick: readonly number[], schedd: boolean): MatchDiffRequest {
  const parts: Record<"schedd" | "job" | "machine", string[]> = {
    schedd: [],
    job: ["Requirements = true"],
    machine: ["Requirements = true"],
  };
  const named = { schedd: false, job: false, machine: false };
  dims.forEach((d, i) => {
    const v = d.values[pick[i]];
    if (d.lc === "name") named[d.side] = true;
    if (v !== null) parts[d.side].push(`${d.ident} = ${v}`);
  });
  if (!named.machine) parts.machine.unshift('Name = "slot1"');
  if (!named.schedd) parts.schedd.unshift('Name = "schedd1"');
  const ad = (p: string[]): string => `[${p.join("; ")}]`;
  const request: MatchDiffRequest = { job: ad(parts.job), machines: [ad(parts.machine)] };
  if (schedd) request.schedd = ad(parts.schedd);
  return request;
}

/** How far a request gets under a policy: kept schedd, job and machine, and a match. */
function progress(policy: MatchPolicy, request: MatchDiffRequest): number {
  const v = decideForDiff(policy, request);
  const m = v.machines[0];
  return (
    (v.schedd?.discarded ? 0 : 1) +
    (v.job.discarded ? 0 : 1) +
    (m?.discarded ? 0 : 1) +
    (v.best !== null ? 2 : 0)
  );
}

/**
 * A base value per dimension, found by hill climbing from all-absent: each
 * value of each attribute in turn is kept when it brings the request further
 * under both policies (kept ads, then a match). Returns whether both match.
 */
function searchBase(
  dims: readonly AttrDim[],
  policies: readonly MatchPolicy[],
  schedd: boolean,
  maxEvaluations: number,
): { base: number[]; matched: boolean } {
  const base = dims.map((d) => Math.max(0, d.values.indexOf(null)));
  let evaluations = 0;
  const score = (pick: number[]): number => {
    evaluations += policies.length;
    const r = requestOf(dims, pick, schedd);
    return policies.reduce((s, p) => s + progress(p, r), 0);
  };
  const best = 5 * policies.length;
  let current = score(base);
  for (let pass = 0; pass < 2 && current < best; pass++) {
    for (let i = 0; i < dims.length && current < best; i++) {
      for (let j = 0; j < dims[i].values.length && evaluations < maxEvaluations; j++) {
        if (j === base[i]) continue;
        const trial = base.slice();
        trial[i] = j;
        const s = score(trial);
        if (s > current) {
          current = s;
          base[i] = j;
        }
      }
    }
  }
  return { base, matched: current === best };
}

/** The value picks of a structured search: each expression's attributes in full, then every pair of attributes, around the base. */
function structuredPicks(
  dims: readonly AttrDim[],
  groups: readonly number[][],
  base: readonly number[],
  limit: number,
): { picks: number[][]; complete: boolean } {
  const seen = new Set<string>();
  const picks: number[][] = [];
  let complete = true;
  const add = (p: number[]): boolean => {
    const key = p.join(",");
    if (seen.has(key)) return true;
    if (picks.length >= limit) return (complete = false);
    seen.add(key);
    picks.push(p);
    return true;
  };
  add(base.slice());
  for (const g of groups) {
    const made = product(
      g.map((i) => dims[i].values.map((_, j) => j)),
      limit,
      (vals) => {
        const p = base.slice();
        g.forEach((i, k) => (p[i] = vals[k]));
        return p;
      },
    );
    if (!made.complete) complete = false;
    for (const p of made.out) if (!add(p)) return { picks, complete };
  }
  for (let x = 0; x < dims.length; x++) {
    for (let y = x + 1; y < dims.length; y++) {
      for (let i = 0; i < dims[x].values.length; i++) {
        for (let j = 0; j < dims[y].values.length; j++) {
          const p = base.slice();
          p[x] = i;
          p[y] = j;
          if (!add(p)) return { picks, complete };
        }
      }
    }
  }
  return { picks, complete };
}

/** The match requests that reach the boundaries of either pool policy's NEGOTIATOR_PE_* expressions. */
export function matchDiffRequests(a: MatchPolicyData, b: MatchPolicyData): DiffRequests<MatchDiffRequest> {
  const { dims, groups, boundaries, why, schedd } = matchBoundaries(a, b);
  why.unshift(
    "ClassAd expressions are searched, not proven: each attribute takes the literals it is compared with (numbers ± 1 and as the other numeric type, strings in another case), list members, regex witnesses, a fresh value, absence and a wrong type",
  );
  const policies = [loadMatchPolicy(a), loadMatchPolicy(b)];
  // the decisions' work is bounded in total: costly policies and many attributes get fewer requests
  const cost = policies.reduce((n, p) => n + costOf(p), 2 * AD_WORK + ATTR_WORK * dims.length);
  const limit = Math.min(MAX_DIFF_REQUESTS, Math.max(1, Math.floor(MAX_MATCH_WORK / cost)));
  const bound =
    limit < MAX_DIFF_REQUESTS
      ? ` (at most ${limit} requests: each costs ${cost} work units, and the diff's work is bounded)`
      : "";
  const total = dims.reduce((n, d) => n * d.values.length, 1);
  let requests: MatchDiffRequest[];
  if (total <= limit) {
    requests = product(
      dims.map((d) => d.values.map((_, j) => j)),
      limit,
      (pick) => requestOf(dims, pick, schedd),
    ).out;
    countBoundary(boundaries, "combination", requests.length);
  } else {
    const { base, matched } = searchBase(
      dims,
      policies,
      schedd,
      Math.min(MAX_BASE_EVALUATIONS, Math.ceil(limit / 2)),
    );
    const made = structuredPicks(dims, groups, base, limit);
    requests = made.picks.map((p) => requestOf(dims, p, schedd));
    why.push(
      `the ${total < 1e15 ? total : "more than 10^15"} combinations of all values exceed ${limit}${bound}: each expression's attributes are combined in full and every pair of attributes' values tried, the others at base values`,
    );
    if (!matched)
      why.push(
        "no base ads were found that both policies keep and match: a change behind a discard or a failed match may not show",
      );
    if (!made.complete) why.push(`the structured search was cut at ${limit} requests`);
  }
  return { requests, boundaries, exhaustive: false, why };
}
