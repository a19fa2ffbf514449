/**
 * Semantic diff of two versions of one engine's policy, without traffic: both
 * sources are compiled, the engine's generator (`src/engines/<engine>/diff-requests.ts`)
 * builds the requests that reach every boundary either policy draws, both
 * policies decide each of them (and any captured requests given), and the
 * differing verdicts are grouped as the shadow report groups them: the pair
 * `field old → new`, its count and an example request. Pure: the Worker's
 * route and `arbiter diff` share it.
 */
import type { EngineName } from "../engines/common/engine.js";
import { err, ok, type PolicyError, type Result } from "../engines/common/result.js";
import type { DiffRequests } from "../engines/common/diff-requests.js";
import { compilePlacement } from "../engines/placement/compile.js";
import { loadPlacement, loadPlacementSteps } from "../engines/placement/load.js";
import { decidePlacement } from "../engines/placement/decide.js";
import { placementDiffRequests, placementDiffRequestsSteps } from "../engines/placement/diff-requests.js";
import type { PlacementRequest } from "../engines/placement/types.js";
import { compileFilters, compileFiltersSteps, loadFilters } from "../engines/jobfilter/policy.js";
import { decideJobfilter, type JobfilterRequest } from "../engines/jobfilter/engine.js";
import { jobfilterDiffRequests, jobfilterDiffRequestsSteps } from "../engines/jobfilter/diff-requests.js";
import {
  compileForDiff,
  compileForDiffSteps,
  decideOffline,
  loadForDiff,
} from "../engines/limits/diff-context.js";
import { limitsDiffRequests, limitsDiffRequestsSteps } from "../engines/limits/diff-requests.js";
import { compileMatchPolicy, loadMatchPolicy } from "../engines/classad/policy.js";
import { decideForDiff, matchDiffRequests } from "../engines/classad/diff-requests.js";
import {
  compileCustomsPolicy,
  compileCustomsPolicySteps,
  loadCustomsPolicy,
} from "../engines/customs/policy.js";
import {
  customsDiffRequests,
  customsDiffRequestsSteps,
  customsDiffView,
  decideCustomsForDiff,
} from "../engines/customs/diff-requests.js";
import { errorView, pairOf, viewOf, type DecisionKind, type View } from "./compare/views.js";
import { boundedValue, OTHER_PAIR, pairSlot } from "./compare/report.js";
import { Budget, BudgetExceeded, DEFAULT_DECISION_BUDGET } from "../engines/common/budget.js";
import { finish, Pace, type Steps } from "../engines/common/slices.js";
import { CompileMemo, withCompileMemo } from "../engines/common/regex/memo.js";
import { compilePlacementSteps } from "../engines/placement/compile.js";
import { compileMatchPolicySteps } from "../engines/classad/policy.js";

/** Captured requests are taken up to this many. */
export const MAX_CAPTURED_REQUESTS = 10_000;

/**
 * The default work bound of one diff, in units of {@link requestCost} plus what
 * the decisions charge their budgets: keeps a hostile pair of 1 MB policies near
 * one second (docs/policies/analysis.md#diff).
 */
export const DIFF_WORK = 4_000_000;

/** One group of differing verdicts. */
export interface DiffPair {
  /** `field old → new`; pairs past the report's MAX_PAIRS are counted under `(other pairs)`, as the shadow report counts them. */
  pair: string;
  count: number;
  example: { request: unknown; old: View; new: View };
}

/** The diff's answer. */
export interface DiffReport {
  engine: EngineName;
  /** `equivalent`, `no difference found over N requests`, or `N of M requests differ`. */
  result: string;
  equivalent: boolean;
  compared: number;
  differing: number;
  pairs: DiffPair[];
  coverage: {
    boundaries: Record<string, number>;
    generated: number;
    captured: number;
    exhaustive: boolean;
    /** True when the work bound stopped the diff before every request was decided. */
    stopped: boolean;
    why: string[];
  };
}

/** A diff's failure: a side that does not validate, or an engine the diff does not cover. */
export interface DiffError {
  code: "policy_invalid" | "engine_not_supported";
  side?: "old" | "new";
  message: string;
  errors: PolicyError[];
}

/** Options: captured requests (in the engine's request form) evaluated besides the generated ones. */
export interface DiffOptions {
  requests?: readonly unknown[];
  /** Work units the diff may spend deciding (default {@link DIFF_WORK}). */
  work?: number;
  /** Each decision's own budget, as `DECISION_BUDGET` gives live decisions (default DEFAULT_DECISION_BUDGET). */
  decisionBudget?: number;
  /** Estimated bytes the diff's compile memo may keep (default COMPILE_MEMO_BYTES; 0 keeps nothing, each compile then plans afresh). */
  compileMemoBytes?: number;
}

interface Differ {
  /** The shadow report's kind of decision, whose compared view is taken; `customs` has none and gives `view`. */
  kind: DecisionKind | "customs";
  view?: (verdict: object) => View;
  compile(source: string): Result<unknown, PolicyError[]>;
  /** The same compile as resumable work, where the engine has it (common/slices.ts). */
  compileSteps?: (source: string) => Steps<Result<unknown, PolicyError[]>>;
  generate(a: unknown, b: unknown): DiffRequests<unknown>;
  /** The same generation as resumable work, where the engine has it. */
  generateSteps?: (a: unknown, b: unknown) => Steps<DiffRequests<unknown>>;
  /** Loads a compiled policy into a function from request to verdict, as resumable work. */
  deciderSteps(data: unknown): Steps<(request: unknown) => object>;
}

/**
 * A differ from an engine's parts: its compile, its generator, and how a
 * compiled policy is loaded once and then decides each request.
 */
function differ<D, P>(parts: {
  kind: Differ["kind"];
  view?: Differ["view"];
  compile: (source: string) => Result<D, PolicyError[]>;
  compileSteps?: (source: string) => Steps<Result<D, PolicyError[]>>;
  generate: (a: D, b: D) => DiffRequests<unknown>;
  generateSteps?: (a: D, b: D) => Steps<DiffRequests<unknown>>;
  load: (data: D) => P;
  /** The same load as resumable work, where the engine has it. */
  loadSteps?: (data: D) => Steps<P>;
  decide: (policy: P, request: unknown) => object;
}): Differ {
  const { kind, view, compile, compileSteps, generate, generateSteps, load, loadSteps, decide } = parts;
  return {
    kind,
    view,
    compile,
    compileSteps,
    generate: (a, b) => generate(a as D, b as D),
    generateSteps: generateSteps === undefined ? undefined : (a, b) => generateSteps(a as D, b as D),
    deciderSteps: function* (data) {
      const policy = loadSteps === undefined ? load(data as D) : yield* loadSteps(data as D);
      return (r) => decide(policy, r);
    },
  };
}

const DIFFERS: Partial<Record<EngineName, Differ>> = {
  placement: differ({
    kind: "placement",
    compile: compilePlacement,
    compileSteps: compilePlacementSteps,
    generate: placementDiffRequests,
    generateSteps: placementDiffRequestsSteps,
    load: loadPlacement,
    loadSteps: loadPlacementSteps,
    decide: (p, r) => decidePlacement(p, r as PlacementRequest, { explain: false }).verdict,
  }),
  jobfilter: differ({
    kind: "jobfilter",
    compile: compileFilters,
    compileSteps: compileFiltersSteps,
    generate: jobfilterDiffRequests,
    generateSteps: jobfilterDiffRequestsSteps,
    load: loadFilters,
    decide: (p, r) => decideJobfilter(p, r as JobfilterRequest, { explain: false }).verdict,
  }),
  limits: differ({
    kind: "limits",
    compile: compileForDiff,
    compileSteps: compileForDiffSteps,
    generate: limitsDiffRequests,
    generateSteps: limitsDiffRequestsSteps,
    load: loadForDiff,
    decide: decideOffline,
  }),
  match: differ({
    kind: "match",
    compile: compileMatchPolicy,
    compileSteps: compileMatchPolicySteps,
    generate: matchDiffRequests,
    load: loadMatchPolicy,
    decide: decideForDiff,
  }),
  customs: differ({
    kind: "customs",
    view: (v) => customsDiffView(v as never),
    compile: compileCustomsPolicy,
    compileSteps: compileCustomsPolicySteps,
    generate: customsDiffRequests,
    generateSteps: customsDiffRequestsSteps,
    load: loadCustomsPolicy,
    decide: decideCustomsForDiff,
  }),
};

/** The engines `diffPolicies` covers. */
export const DIFF_ENGINES = Object.keys(DIFFERS) as EngineName[];

/**
 * A verdict's compared view, decided within its own budget (whose units go to
 * `spent`); a spent budget is the error view `budget_exceeded`, a captured
 * request the engine cannot read the error view `invalid_request`.
 */
function viewUnder(
  differ: Differ,
  decide: (r: unknown) => object,
  request: unknown,
  limit: number,
  spent: { units: number },
): View {
  const budget = new Budget(limit);
  try {
    const verdict = budget.run(() => decide(request));
    return differ.view !== undefined ? differ.view(verdict) : viewOf(differ.kind as DecisionKind, verdict);
  } catch (e) {
    return errorView(e instanceof BudgetExceeded ? "budget_exceeded" : "invalid_request");
  } finally {
    spent.units += Math.min(budget.used, limit + 1);
  }
}

/**
 * What deciding one request under both policies is charged besides the units
 * the decisions charge themselves: the work an engine does without charging
 * (walking rules, scanning a request's fields for each) grows with the
 * policies' size times the request's, so one unit per 32 characters of the two
 * sources, times one plus one per 64 characters of the request as JSON.
 */
export function requestCost(sourceChars: number, request: unknown): number {
  let requestChars = 0;
  try {
    requestChars = JSON.stringify(request)?.length ?? 0;
  } catch {
    requestChars = 0;
  }
  return Math.ceil(sourceChars / 32) * (1 + Math.ceil(requestChars / 64));
}

function sideError(side: "old" | "new", errors: PolicyError[]): DiffError {
  const first = errors[0];
  return {
    code: "policy_invalid",
    side,
    message: `the ${side} policy does not validate: ${first?.message ?? "invalid"}${first?.at ? ` (at ${first.at})` : ""}`,
    errors,
  };
}

/**
 * Compares two sources of one engine's policy over the boundary requests both
 * draw (plus `options.requests`): the differing verdict pairs with counts and
 * an example each, and what the generation covered. `equivalent` only when no
 * difference was found and the enumeration was exhaustive for the boundaries.
 */
export function diffPolicies(
  engine: EngineName,
  oldSource: string,
  newSource: string,
  options: DiffOptions = {},
): Result<DiffReport, DiffError> {
  return finish(diffPoliciesSteps(engine, oldSource, newSource, options));
}

/** The requests both sides decide, as resumable work where the engine has it. */
function* generateRequests(differ: Differ, a: unknown, b: unknown): Steps<DiffRequests<unknown>> {
  if (differ.generateSteps !== undefined) return yield* differ.generateSteps(a, b);
  return differ.generate(a, b);
}

/** One side's compile, as resumable work where the engine has it. */
function* compileSide(differ: Differ, source: string): Steps<Result<unknown, PolicyError[]>> {
  if (differ.compileSteps !== undefined) return yield* differ.compileSteps(source);
  return differ.compile(source);
}

/**
 * {@link diffPolicies} as resumable work (common/slices.ts): each side's
 * compile yields as the engine's does, and the decisions yield once their
 * work units (requestCost and the budgets they spent) fill a slice. Patterns
 * compiled more than once in one diff (the witness search, then each side's
 * decisions) reuse the first compile's plan (common/regex/memo.ts), each
 * compile still charged as if it were the first.
 */
export function diffPoliciesSteps(
  engine: EngineName,
  oldSource: string,
  newSource: string,
  options: DiffOptions = {},
): Steps<Result<DiffReport, DiffError>> {
  return withCompileMemo(
    diffSteps(engine, oldSource, newSource, options),
    new CompileMemo(options.compileMemoBytes),
  );
}

function* diffSteps(
  engine: EngineName,
  oldSource: string,
  newSource: string,
  options: DiffOptions,
): Steps<Result<DiffReport, DiffError>> {
  const differ = DIFFERS[engine];
  if (differ === undefined)
    return err({
      code: "engine_not_supported",
      message: `diff does not cover the ${engine} engine yet (it covers ${DIFF_ENGINES.join(", ")})`,
      errors: [],
    });
  const a = yield* compileSide(differ, oldSource);
  if (!a.ok) return err(sideError("old", a.error));
  yield;
  const b = yield* compileSide(differ, newSource);
  if (!b.ok) return err(sideError("new", b.error));
  yield;
  const gen = yield* generateRequests(differ, a.value, b.value);
  const captured = (options.requests ?? []).slice(0, MAX_CAPTURED_REQUESTS);
  yield;
  const decideOld = yield* differ.deciderSteps(a.value);
  yield;
  const decideNew = yield* differ.deciderSteps(b.value);
  yield;
  const pace = new Pace();
  const pairs = new Map<string, DiffPair>();
  let differing = 0;
  // the generated requests are made as they are reached (a list may make each on demand), then the captured ones
  const generated = gen.requests.length;
  const total = generated + captured.length;
  const work = options.work ?? DIFF_WORK;
  const perDecision = options.decisionBudget ?? DEFAULT_DECISION_BUDGET;
  const sourceChars = oldSource.length + newSource.length;
  const spent = { units: 0 };
  let compared = 0;
  let paced = 0;
  for (let i = 0; i < total; i++) {
    const request = i < generated ? gen.requests.at(i) : captured[i - generated];
    // a checkpoint once the decisions since the last one spent a slice of units
    const due = pace.spend(spent.units - paced);
    paced = spent.units;
    if (due) yield;
    spent.units += requestCost(sourceChars, request) + (gen.unchargedUnits ?? 0);
    if (spent.units > work) break;
    const oldView = viewUnder(differ, decideOld, request, perDecision, spent);
    const newView = viewUnder(differ, decideNew, request, perDecision, spent);
    compared++;
    const pair = pairOf(oldView, newView);
    if (pair === null) continue;
    differing++;
    const slot = pairSlot(pairs, pair);
    const p = pairs.get(slot);
    if (p !== undefined) p.count++;
    else
      pairs.set(slot, {
        pair: slot,
        count: 1,
        example: { request: boundedValue(request), old: boundedValue(oldView), new: boundedValue(newView) },
      });
  }
  const stopped = compared < total;
  const why = [...(gen.why ?? [])];
  if (stopped)
    why.push(`the work bound (${work} units) stopped the diff after ${compared} of ${total} requests`);
  const exhaustive = gen.exhaustive && !stopped;
  const equivalent = differing === 0 && exhaustive;
  const result =
    differing > 0
      ? `${differing} of ${compared} requests differ`
      : equivalent
        ? "equivalent"
        : `no difference found over ${compared} requests`;
  return ok({
    engine,
    result,
    equivalent,
    compared,
    differing,
    pairs: [...pairs.values()].sort(
      (x, y) =>
        Number(x.pair === OTHER_PAIR) - Number(y.pair === OTHER_PAIR) ||
        y.count - x.count ||
        x.pair.localeCompare(y.pair),
    ),
    coverage: {
      boundaries: gen.boundaries,
      generated,
      captured: captured.length,
      exhaustive,
      stopped,
      why,
    },
  });
}
