export {
  DECISION_KINDS,
  engineOfKind,
  errorView,
  pairOf,
  viewOf,
  type DecisionKind,
  type View,
} from "./views.js";
export {
  boundedExample,
  MAX_EXAMPLE_PART_BYTES,
  MAX_EXAMPLES,
  MAX_PAIRS,
  OTHER_PAIR,
  pairSlot,
  Tally,
  type ComparisonReport,
  type EngineReport,
  type Example,
  type PairReport,
  type TallyBatch,
} from "./report.js";
export {
  captureMode,
  DEFAULT_MASKED_ATTRIBUTES,
  maskAddress,
  maskRequest,
  maskRules,
  maskRulesFor,
  maskView,
  type CaptureKind,
  type CaptureMode,
  type MaskRules,
} from "./mask.js";
export { maskAd } from "./mask-classad.js";
export { pseudonym } from "./pseudonym.js";
export { reportText, TEXT_EXAMPLES } from "./text.js";
