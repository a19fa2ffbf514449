/**
 * Lint of one engine's policy source: the source must compile (a policy with
 * errors gets its errors, as validation gives them), then the engine's own
 * analysis (`src/engines/<engine>/lint.ts`) runs on what compiled, within one
 * work bound. Pure: the Worker's route, the CLI and `arbiter test` share it.
 */
import type { EngineName } from "../engines/common/engine.js";
import {
  incomplete,
  LINT_WORK,
  LintWork,
  sortFindings,
  type LintFinding,
  type LintOptions,
} from "../engines/common/lint.js";
import { err, ok, type PolicyError, type Result } from "../engines/common/result.js";
import { finish, type Steps } from "../engines/common/slices.js";
import { lintMatch } from "../engines/classad/lint.js";
import { compileMatchPolicySteps } from "../engines/classad/policy.js";
import { lintCustoms } from "../engines/customs/lint.js";
import { compileCustomsPolicySteps } from "../engines/customs/policy.js";
import { lintJobfilter } from "../engines/jobfilter/lint.js";
import { compileFiltersSteps } from "../engines/jobfilter/policy.js";
import { loadLimitsTextSteps } from "../engines/limits/engine.js";
import { lintLimits } from "../engines/limits/lint.js";
import { compileWithPlacesSteps } from "../engines/placement/compile.js";
import { lintPlacement } from "../engines/placement/lint.js";

export type { LintFinding, LintOptions, LintSeverity } from "../engines/common/lint.js";

/** Every code each engine's analysis can report (`lint_incomplete` is any engine's), for tests and docs. */
export const LINT_CODES: Readonly<Record<EngineName, readonly string[]>> = {
  limits: [
    "limits_unused_identifier",
    "limits_unused_classifier",
    "limits_unused_limit",
    "limits_unreachable_application",
    "limits_constant_jq",
    "limits_cidr_redundant",
    "limits_cidr_list_covered",
  ],
  placement: [
    "placement_unreachable_rule",
    "placement_duplicate_rule",
    "placement_filter_matches_nothing",
    "placement_unreachable_queue",
    "placement_acl_denies_everyone",
  ],
  match: ["match_constant_expr", "match_unused_macro", "match_attribute_not_in_ads"],
  customs: ["customs_never_chosen", "customs_acl_admits_nobody", "customs_allow_denied"],
  jobfilter: ["jobfilter_shadowed_rule", "jobfilter_never_true", "lint_incomplete"],
};

type Linter = (
  source: string,
  options: LintOptions,
  work: LintWork,
) => Steps<Result<LintFinding[], PolicyError[]>>;

const LINTERS: Readonly<Record<EngineName, Linter>> = {
  limits: function* (source, _options, work) {
    const r = yield* loadLimitsTextSteps(source);
    if (!r.ok) return err([r.error]);
    yield;
    return ok(yield* lintLimits(source, r.value.source, work));
  },
  placement: function* (source, _options, work) {
    const r = yield* compileWithPlacesSteps(source);
    if (!r.ok) return r;
    yield;
    return ok(yield* lintPlacement(r.value, work));
  },
  match: function* (source, options, work) {
    const r = yield* compileMatchPolicySteps(source);
    if (!r.ok) return r;
    yield;
    return ok(yield* lintMatch(source, r.value, options.ads, work));
  },
  customs: function* (source, _options, work) {
    const r = yield* compileCustomsPolicySteps(source);
    if (!r.ok) return r;
    yield;
    return ok(yield* lintCustoms(source, r.value, work));
  },
  jobfilter: function* (source, _options, work) {
    const r = yield* compileFiltersSteps(source);
    if (!r.ok) return r;
    yield;
    return ok(yield* lintJobfilter(source, r.value, work));
  },
};

/**
 * Lints one engine's policy text: its errors when it does not compile, else
 * its findings ordered by place (with one `lint_incomplete` finding when the
 * work bound stopped a check early).
 */
export function lintSource(
  engine: EngineName,
  source: string,
  options: LintOptions = {},
): Result<LintFinding[], PolicyError[]> {
  return finish(lintSourceSteps(engine, source, options));
}

/**
 * {@link lintSource} as resumable work (common/slices.ts): the compile yields
 * as the engine's does, the analysis once its counted work fills a slice.
 */
export function* lintSourceSteps(
  engine: EngineName,
  source: string,
  options: LintOptions = {},
): Steps<Result<LintFinding[], PolicyError[]>> {
  const limit = options.work ?? LINT_WORK;
  const work = new LintWork(limit);
  const r = yield* LINTERS[engine](source, options, work);
  if (!r.ok) return r;
  return ok(sortFindings(work.spent ? [...r.value, incomplete(limit)] : r.value));
}
