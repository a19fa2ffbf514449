export {
  limitsEngine,
  loadLimitsText,
  validateLimitsText,
  urlSources,
  type LimitsValidation,
  type UrlSource,
} from "./engine.js";
export { decideLimits, decideLimitsNow, type LimitsRequest, type LimitsVerdict } from "./decide.js";
export type { LimitsPolicy } from "./policy.js";
export type { DnsAnswer, DnsResolver, LimitsContext, CidrSet } from "./context.js";
export { parseCidrListText, buildCidrSet } from "../common/cidr.js";
