/** The Worker's bindings and variables, as wrangler.toml and secrets provide them. */
export interface Env {
  POLICIES: KVNamespace;
  JOB_QUEUE: DurableObjectNamespace;
  HOST_POOL: DurableObjectNamespace;
  /** The publish coordinator, the one writer of the policy pointer. */
  POLICY_COORDINATOR: DurableObjectNamespace;
  /** The deployment's counters, in METRICS_SHARDS shards the isolates flush to (docs/architecture.md, "Metrics"); unbound, counts stay per isolate. */
  METRICS_SHARD?: DurableObjectNamespace;
  /** Shards of the deployment's counters (1 to 64, default 4; only ever raise it). */
  METRICS_SHARDS?: string;
  /** Seconds an isolate may hold counts before flushing them to its shard (1 to 300, default 10): the staleness bound of `/metrics` for an isolate that keeps serving. */
  METRICS_FLUSH_SECONDS?: string;
  ADMIN_TOKEN?: string;
  DECISION_TOKENS?: string;
  AGENT_TOKENS?: string;
  /** Tokens of the read-only monitoring role (comma-separated): `GET /metrics` and the full `/v1/status`. */
  METRICS_TOKEN?: string;
  /** Route classes left open while tokens are set: `decision`, `agent` (comma-separated); anything else is a configuration error. */
  OPEN_ROUTES?: string;
  /** Requests one isolate lets wait on one Durable Object before answering 503 `overloaded` (default 256). */
  OBJECT_MAX_PENDING?: string;
  BUNDLE_REFRESH_SECONDS?: string;
  VERDICT_CACHE_SECONDS?: string;
  DOH_URL?: string;
  LOCAL_ADDRESSES?: string;
  /** URL fetches (url-fetch limits) one limits decision may make; default 3. */
  URL_FETCH_BUDGET?: string;
  LEASE_SECONDS?: string;
  /** Work units one decision may spend (src/engines/common/budget.ts); unset: the documented default. */
  DECISION_BUDGET?: string;
  /** Request capture in decision logs: `off` (default), `masked`, `full` (docs/operations.md). */
  DECISION_LOG_REQUESTS?: string;
  /** ClassAd attributes masked in captured requests (comma-separated); unset: the documented defaults. */
  DECISION_LOG_MASK_ATTRIBUTES?: string;
  /** The share of decisions also evaluated against a staged candidate policy (0 to 1, default 1). */
  SHADOW_SAMPLE?: string;
  /** Workers Analytics Engine dataset, optional: when bound, one data point per decision (docs/operations.md, "Metrics"). */
  METRICS?: AnalyticsEngineDataset;
}

/** Hono's type parameter for our app: the bindings (the request id is `requestIdOf` in http/request-id.ts). */
export interface AppEnv {
  Bindings: Env;
}

/** Reads a numeric variable, falling back when it is unset or not a number. */
export function numberVar(value: string | undefined, fallback: number): number {
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}
