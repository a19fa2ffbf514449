import { parseExactJson } from "../common/exact-json.js";
import { deepFailure, readFailure } from "../common/json-syntax.js";
import {
  checkJsonShape,
  describeJsonShape,
  POLICY_JSON_LIMITS,
  shapePointer,
  type JsonShapeViolation,
} from "../common/json-shape.js";
import type { PolicyError, Result } from "../common/result.js";
import { err, ok, policyError } from "../common/result.js";
import { finish, jsonUnits, Pace, type Steps } from "../common/slices.js";
import type { FilterSet } from "./filter-set.js";
import { buildFilterSet } from "./filter-set.js";
import {
  actionSuggestion,
  MAX_PRIORITY,
  parseAction,
  parsePredicates,
  parseReasonTrail,
  parseUuid,
} from "./rule-parse.js";
import { filterShapes } from "./rule-file.js";
import { lazily } from "../common/lazy.js";
import type { FilterRule } from "./types.js";

/** The loaded jobfilter policy: the seed rules as data and their compiled chain. */
export interface JobfilterPolicy {
  readonly rules: readonly FilterRule[];
  readonly set: FilterSet;
}

/** A rule's keys, made on the first check (the shapes with them: an isolate that compiles no rule builds neither). */
const ruleKeysOf = lazily(() => new Set(Object.keys(filterShapes().FilterRuleFile.shape)));

/** The uuid a seed rule without one gets: deterministic, so the same file always compiles to the same bundle. */
export function seedUuid(index: number): string {
  return `00000000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`;
}

/** An integer from 0 to 2^63-1 (Ganeti's 64-bit `Int`), a bigint past 2^53 as exact JSON reads it. */
function isNonNegativeInt64(v: unknown): v is number | bigint {
  if (typeof v === "bigint") return v >= 0n && v <= MAX_PRIORITY;
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** Validates one full rule object (the RAPI `bulk` shape); missing fields take Ganeti's defaults. */
export function validateRule(v: unknown, index: number, at: string): Result<FilterRule, PolicyError[]> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    return err([policyError("jobfilter_invalid_rule", "a filter rule must be a JSON object", at)]);
  }
  const o = v as Record<string, unknown>;
  const errors: PolicyError[] = [];
  for (const key of Object.keys(o)) {
    if (!ruleKeysOf().has(key))
      errors.push(
        policyError(
          "jobfilter_unknown_key",
          `filter rule doesn't support the parameter '${key}'`,
          `${at}/${key}`,
        ),
      );
  }
  let uuid = seedUuid(index);
  if (o.uuid !== undefined) {
    const u = typeof o.uuid === "string" ? parseUuid(o.uuid) : null;
    if (u === null) errors.push(policyError("jobfilter_invalid_uuid", "Unable to parse UUID", `${at}/uuid`));
    else uuid = u;
  }
  const watermark = o.watermark ?? 0;
  if (!isNonNegativeInt64(watermark)) {
    errors.push(
      policyError(
        "jobfilter_invalid_watermark",
        `watermark must be an integer from 0 to ${MAX_PRIORITY}`,
        `${at}/watermark`,
      ),
    );
  }
  const priority = o.priority ?? 0;
  if (!isNonNegativeInt64(priority)) {
    errors.push(
      policyError(
        "jobfilter_invalid_priority",
        `priority must be an integer from 0 to ${MAX_PRIORITY}`,
        `${at}/priority`,
      ),
    );
  }
  const rawPreds = o.predicates ?? [];
  let predicates: FilterRule["predicates"] = [];
  if (!Array.isArray(rawPreds)) {
    errors.push(policyError("jobfilter_invalid_predicate", "predicates must be a list", `${at}/predicates`));
  } else {
    const p = parsePredicates(rawPreds);
    if (p.ok) predicates = p.value;
    else
      errors.push(
        policyError("jobfilter_invalid_predicate", p.error.message, `${at}/predicates/${p.error.index}`),
      );
  }
  const action = parseAction(o.action ?? "CONTINUE");
  if (!action.ok)
    errors.push(
      policyError("jobfilter_invalid_action", action.error, `${at}/action`, actionSuggestion(o.action)),
    );
  const rawTrail = o.reason_trail ?? [];
  let trail: FilterRule["reason_trail"] = [];
  if (!Array.isArray(rawTrail)) {
    errors.push(
      policyError("jobfilter_invalid_reason_trail", "reason_trail must be a list", `${at}/reason_trail`),
    );
  } else {
    const t = parseReasonTrail(rawTrail);
    if (t.ok) trail = t.value;
    else errors.push(policyError("jobfilter_invalid_reason_trail", t.error, `${at}/reason_trail`));
  }
  if (errors.length > 0 || !action.ok) return err(errors);
  return ok({
    uuid,
    watermark: watermark as number | bigint,
    priority: priority as number | bigint,
    predicates,
    action: action.value,
    reason_trail: trail,
  });
}

/** Validates a parsed list of rules (duplicate uuids refused), collecting every error with its JSON pointer. */
export function validateRules(value: unknown): Result<FilterRule[], PolicyError[]> {
  return finish(validateRulesSteps(value));
}

/** What validating one rule counts toward a slice besides its size (common/slices.ts jsonUnits). */
const RULE_UNITS = 64;

/** {@link validateRules} as resumable work (common/slices.ts): a checkpoint after each rule once the rules' units fill a slice. */
export function* validateRulesSteps(
  value: unknown,
  pace: Pace = new Pace(),
): Steps<Result<FilterRule[], PolicyError[]>> {
  if (!Array.isArray(value))
    return err([policyError("jobfilter_not_a_list", "filters must be a JSON list of filter rules", "")]);
  const rules: FilterRule[] = [];
  const errors: PolicyError[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i];
    if (pace.spend(RULE_UNITS + jsonUnits(v))) yield;
    const r = validateRule(v, i, `/${i}`);
    if (!r.ok) {
      errors.push(...r.error);
      continue;
    }
    if (seen.has(r.value.uuid)) {
      errors.push(
        policyError(
          "jobfilter_duplicate_uuid",
          `duplicate filter rule uuid \`${r.value.uuid}\``,
          `/${i}/uuid`,
        ),
      );
    }
    seen.add(r.value.uuid);
    rules.push(r.value);
  }
  return errors.length > 0 ? err(errors) : ok(rules);
}

/** Reads filters.json with exact integers (a priority of 2^53+1 stays itself), or Python's syntax error: the depth scan, the parse and the shape check each a piece. */
function* readFiltersJson(source: string): Steps<Result<unknown, PolicyError[]>> {
  let value: unknown;
  // a text nested past the limit is refused before any parser reads it to its end
  let failure = deepFailure(source, POLICY_JSON_LIMITS);
  if (failure === null) {
    yield;
    try {
      value = parseExactJson(source);
    } catch {
      // a syntax error, or nesting the reader refuses before the shape check could name it
      failure = readFailure(source, POLICY_JSON_LIMITS);
    }
  }
  if (failure !== null) {
    if ("shape" in failure) return err([tooDeep(failure.shape)]);
    const e = failure.error;
    return err([
      policyError("jobfilter_invalid_json", `not valid JSON: ${e.message}`, `${e.line}:${e.column}`),
    ]);
  }
  yield;
  const shape = checkJsonShape(value, POLICY_JSON_LIMITS);
  return shape === null ? ok(value) : err([tooDeep(shape)]);
}

function tooDeep(shape: JsonShapeViolation): PolicyError {
  return policyError(
    "jobfilter_too_deep",
    describeJsonShape(shape, "filters.json"),
    shapePointer(shape.path),
  );
}

/** Validates a filters.json source text into rules; integers past 2^53 are bigints with exactly their digits. */
export function compileFilters(source: string): Result<FilterRule[], PolicyError[]> {
  return finish(compileFiltersSteps(source));
}

/** {@link compileFilters} as resumable work (common/slices.ts): the text read in one piece, then the rules validated a slice at a time. */
export function* compileFiltersSteps(source: string): Steps<Result<FilterRule[], PolicyError[]>> {
  const parsed = yield* readFiltersJson(source);
  if (!parsed.ok) return parsed;
  yield;
  return yield* validateRulesSteps(parsed.value);
}

/** Rebuilds the compiled chain from bundle data, once per isolate and revision. */
export function loadFilters(rules: readonly FilterRule[]): JobfilterPolicy {
  return { rules, set: buildFilterSet(rules) };
}
