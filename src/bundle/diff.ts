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
import { loadPlacement } from "../engines/placement/load.js";
import { decidePlacement } from "../engines/placement/decide.js";
import { placementDiffRequests } from "../engines/placement/diff-requests.js";
import type { PlacementRequest } from "../engines/placement/types.js";
import { compileFilters, loadFilters } from "../engines/jobfilter/policy.js";
import { decideJobfilter, type JobfilterRequest } from "../engines/jobfilter/engine.js";
import { jobfilterDiffRequests } from "../engines/jobfilter/diff-requests.js";
import { compileForDiff, decideOffline, loadForDiff } from "../engines/limits/diff-context.js";
import { limitsDiffRequests } from "../engines/limits/diff-requests.js";
import { compileMatchPolicy, loadMatchPolicy } from "../engines/classad/policy.js";
import { decideForDiff, matchDiffRequests } from "../engines/classad/diff-requests.js";
import { compileCustomsPolicy, loadCustomsPolicy } from "../engines/customs/policy.js";
import { customsDiffRequests, customsDiffView, decideCustomsForDiff } from "../engines/customs/diff-requests.js";
import { errorView, pairOf, viewOf, type DecisionKind, type View } from "./compare/views.js";

/** Captured requests are taken up to this many. */
export const MAX_CAPTURED_REQUESTS = 10_000;

/** One group of differing verdicts. */
export interface DiffPair {
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
}

interface Differ {
  /** The shadow report's kind of decision, whose compared view is taken; `customs` has none and gives `view`. */
  kind: DecisionKind | "customs";
  view?: (verdict: object) => View;
  compile(source: string): Result<unknown, PolicyError[]>;
  generate(a: unknown, b: unknown): DiffRequests<unknown>;
  /** Loads a compiled policy into a function from request to verdict. */
  decider(data: unknown): (request: unknown) => object;
}

const DIFFERS: Partial<Record<EngineName, Differ>> = {
  placement: {
    kind: "placement",
    compile: compilePlacement,
    generate: (a, b) => placementDiffRequests(a as never, b as never),
    decider: (data) => {
      const policy = loadPlacement(data as never);
      return (r) => decidePlacement(policy, r as PlacementRequest, { explain: false }).verdict;
    },
  },
  jobfilter: {
    kind: "jobfilter",
    compile: compileFilters,
    generate: (a, b) => jobfilterDiffRequests(a as never, b as never),
    decider: (data) => {
      const policy = loadFilters(data as never);
      return (r) => decideJobfilter(policy, r as JobfilterRequest, { explain: false }).verdict;
    },
  },
  limits: {
    kind: "limits",
    compile: compileForDiff,
    generate: (a, b) => limitsDiffRequests(a as never, b as never),
    decider: (data) => {
      const policy = loadForDiff(data as never);
      return (r) => decideOffline(policy, r);
    },
  },
  match: {
    kind: "match",
    compile: compileMatchPolicy,
    generate: (a, b) => matchDiffRequests(a as never, b as never),
    decider: (data) => {
      const policy = loadMatchPolicy(data as never);
      return (r) => decideForDiff(policy, r);
    },
  },
  customs: {
    kind: "customs",
    view: (v) => customsDiffView(v as never),
    compile: compileCustomsPolicy,
    generate: (a, b) => customsDiffRequests(a as never, b as never),
    decider: (data) => {
      const policy = loadCustomsPolicy(data as never);
      return (r) => decideCustomsForDiff(policy, r);
    },
  },
};

/** The engines `diffPolicies` covers. */
export const DIFF_ENGINES = Object.keys(DIFFERS) as EngineName[];

/** A verdict's compared view; a captured request the engine cannot read is the error view `invalid_request`. */
function viewUnder(differ: Differ, decide: (r: unknown) => object, request: unknown): View {
  try {
    const verdict = decide(request);
    return differ.view !== undefined ? differ.view(verdict) : viewOf(differ.kind as DecisionKind, verdict);
  } catch {
    return errorView("invalid_request");
  }
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
  const differ = DIFFERS[engine];
  if (differ === undefined)
    return err({
      code: "engine_not_supported",
      message: `diff does not cover the ${engine} engine yet (it covers ${DIFF_ENGINES.join(", ")})`,
      errors: [],
    });
  const a = differ.compile(oldSource);
  if (!a.ok) return err(sideError("old", a.error));
  const b = differ.compile(newSource);
  if (!b.ok) return err(sideError("new", b.error));
  const gen = differ.generate(a.value, b.value);
  const captured = (options.requests ?? []).slice(0, MAX_CAPTURED_REQUESTS);
  const decideOld = differ.decider(a.value);
  const decideNew = differ.decider(b.value);
  const pairs = new Map<string, DiffPair>();
  let differing = 0;
  const all = [...gen.requests, ...captured];
  for (const request of all) {
    const oldView = viewUnder(differ, decideOld, request);
    const newView = viewUnder(differ, decideNew, request);
    const pair = pairOf(oldView, newView);
    if (pair === null) continue;
    differing++;
    const p = pairs.get(pair);
    if (p !== undefined) p.count++;
    else pairs.set(pair, { pair, count: 1, example: { request, old: oldView, new: newView } });
  }
  const equivalent = differing === 0 && gen.exhaustive;
  const result =
    differing > 0
      ? `${differing} of ${all.length} requests differ`
      : equivalent
        ? "equivalent"
        : `no difference found over ${all.length} requests`;
  return ok({
    engine,
    result,
    equivalent,
    compared: all.length,
    differing,
    pairs: [...pairs.values()].sort((x, y) => y.count - x.count || x.pair.localeCompare(y.pair)),
    coverage: {
      boundaries: gen.boundaries,
      generated: gen.requests.length,
      captured: captured.length,
      exhaustive: gen.exhaustive,
      why: gen.why ?? [],
    },
  });
}
