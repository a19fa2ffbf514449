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
  counterFamilies,
  histogramSamples,
  identityFamilies,
  isolateFamilies,
  policyFamilies,
  type CidrListFigures,
  type CountScope,
  type PolicyFigures,
} from "./families.js";
export { addCounts, countDelta, DeltaWalk, registryCounts, type CountEntry } from "./counts.js";
export { Histogram, LATENCY_BOUNDS_MS } from "./histogram.js";
export {
  BUDGET_OUTCOME,
  CACHED_ENGINES,
  HttpSeries,
  MAX_OUTCOMES,
  MetricsRegistry,
  SCHEDULE_OUTCOME,
  STATUS_CLASSES,
  type CacheResult,
  type HeadlineFigures,
} from "./registry.js";
export { stateFamilies, type PoolFigures, type QueueFigures, type StateCoverage } from "./state-families.js";
