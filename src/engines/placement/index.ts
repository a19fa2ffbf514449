export { placementEngine } from "./engine.js";
export { decidePlacement, NO_RULE_MATCHED, type PlacementTrace } from "./decide.js";
export { compilePlacement } from "./compile.js";
export { loadPlacement } from "./load.js";
export type {
  ExistingQueue,
  PlacementData,
  PlacementPolicy,
  PlacementRequest,
  PlaceVerdict,
  RuleRef,
  TraceStep,
} from "./types.js";
export { placementShapes } from "./config-shape.js";
