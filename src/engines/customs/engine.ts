import type { EngineDefinition } from "../common/engine.js";
import {
  compileCustomsPolicy,
  compileCustomsPolicySteps,
  loadCustomsPolicy,
  type CustomsPolicy,
  type CustomsPolicyData,
} from "./policy.js";

/** The customs engine as the bundle sees it: `policies/customs.json` compiled to plain data, loaded to a lookup. */
export const customsEngine: EngineDefinition<CustomsPolicyData, CustomsPolicy> = {
  name: "customs",
  file: "customs.json",
  format: "customs-json",
  compile: compileCustomsPolicy,
  compileSteps: compileCustomsPolicySteps,
  load: loadCustomsPolicy,
};
