/** The ClassAd language and the HTCondor pool-policy (`match`) engine. */
export { matchEngine, compileMatchPolicy, loadMatchPolicy, PE_NAMES } from "./policy.js";
export type { MatchPolicy, MatchPolicyData, PeName } from "./policy.js";
export {
  decideMatch,
  decideParsedMatch,
  decideAdCheck,
  parseMatchRequest,
  matchOne,
  ClassAdRequestError,
} from "./match.js";
export type {
  MatchVerdict,
  MachineVerdict,
  AdCheckVerdict,
  MatchContext,
  ParsedMatchRequest,
} from "./match.js";
export { evaluateRequest, evalCompiled, evalAttr, printValue } from "./evaluate.js";
export type { PrintedValue } from "./evaluate.js";
export { readAd, parseNewAd, parseOldAd, parseJsonAd, adFromJson } from "./ad-input.js";
export { parseExpr, parseAdLiteral } from "./parser.js";
export { compile } from "./compile.js";
export { unparseValue, unparseNode, unparseAd } from "./unparse.js";
export { EvalState } from "./state.js";
export type { EvalContext } from "./state.js";
export { ClassAd } from "./classad.js";
export type { Value } from "./values.js";
export { analyzeMatch, analyzeParsedMatch } from "./analyze.js";
export type {
  MatchAnalysis,
  AnalysisClause,
  MachineSideGroup,
  MachineCounts,
  OperandValues,
  Suggestion,
} from "./analyze.js";
export { analysisText } from "./analyze-text.js";
