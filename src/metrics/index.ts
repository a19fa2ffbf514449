export {
  EXPOSITION_CONTENT_TYPE,
  formatValue,
  renderExposition,
  type Label,
  type MetricFamily,
  type Sample,
} from "./exposition.js";
export {
  cidrListFamilies,
  histogramSamples,
  isolateFamilies,
  policyFamilies,
  type CidrListFigures,
  type PolicyFigures,
} from "./families.js";
export { Histogram, LATENCY_BOUNDS_MS } from "./histogram.js";
export {
  BUDGET_OUTCOME,
  CACHED_ENGINES,
  MAX_OUTCOMES,
  MetricsRegistry,
  SCHEDULE_OUTCOME,
  type CacheResult,
  type HeadlineFigures,
} from "./registry.js";
