import type { EngineDefinition } from "../common/engine.js";
import { compilePlacement, compilePlacementSteps } from "./compile.js";
import { loadPlacement } from "./load.js";
import type { PlacementData, PlacementPolicy } from "./types.js";

/** The placement engine as the bundle sees it: YuniKorn YAML in, plain data stored, fast policy loaded. */
export const placementEngine: EngineDefinition<PlacementData, PlacementPolicy> = {
  name: "placement",
  file: "placement.yaml",
  format: "yunikorn-yaml",
  compile: compilePlacement,
  compileSteps: compilePlacementSteps,
  load: loadPlacement,
};
