export { jobfilterEngine, decideJobfilter, scheduleJobfilter, queueOf, traceJob } from "./engine.js";
export type { JobfilterRequest, TraceLine } from "./engine.js";
export { compileFilters, loadFilters, validateRule, validateRules, seedUuid } from "./policy.js";
export type { JobfilterPolicy } from "./policy.js";
export { schedulePass, decideJob } from "./schedule.js";
export { RunningCounts, decideCounted } from "./running-counts.js";
export { MemoryShares, cheapest, MAX_INDEXED_PATHS } from "./running-shares.js";
export type { Share, ShareStore, Holder, Totals, Reached, EarlierSet } from "./running-shares.js";
export {
  factsOf,
  fieldKind,
  valuesAt,
  stringsMatchingPattern,
  valueKey,
  NO_KEY,
  OTHER_OP,
} from "./job-reach.js";
export type { FactKind, FactReach, ValueSet } from "./job-reach.js";
export type { QueueView } from "./schedule.js";
export { buildFilterSet, applyingRule, compareRules } from "./filter-set.js";
export type { FilterSet, CompiledRule } from "./filter-set.js";
export {
  JOBFILTER_TOO_DEEP,
  parseRuleBody,
  parsePredicate,
  parseAction,
  parseUuid,
  pythonType,
  readRapiJson,
  MAX_PRIORITY,
} from "./rule-parse.js";
export type { RuleBody, FloatLiterals } from "./rule-parse.js";
export { parseExpression } from "./expression.js";
export { requiredGlob, requiredLiteral } from "./literal-regex.js";
export { parseBucket, parseLimit, bucketsOf } from "./adhoc.js";
export { prepareJob } from "./evaluate.js";
export type * from "./types.js";
export { filterShapes, PREDICATE_NAMES, SIMPLE_ACTIONS, COMPARISONS } from "./rule-file.js";
