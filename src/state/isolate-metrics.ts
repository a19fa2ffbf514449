/**
 * The isolate's counters and their way into the deployment's totals: the one
 * `MetricsRegistry` every recording point increments, and the flusher that
 * sends what moved since its last batch to one of the deployment's metrics
 * shards (Durable Objects), off the request's critical path. `GET /metrics`
 * sums the shards (docs/architecture.md, "Metrics").
 */
import { numberVar, type Env } from "../env.js";
import { addCounts, DeltaWalk, type CountEntry } from "../metrics/counts.js";
import { MetricsRegistry } from "../metrics/registry.js";
import { writeLog } from "../log-line.js";
import type { MetricsShard } from "./metrics-shard.js";

/** This isolate's counters, rendered by `GET /metrics?scope=isolate`, summed up in `/v1/status`, flushed to the shards. */
export const isolateMetrics = new MetricsRegistry();

/** Shards when METRICS_SHARDS is unset. */
export const DEFAULT_SHARDS = 4;
/** The most shards METRICS_SHARDS may name (a scrape reads every one). */
export const MAX_SHARDS = 64;
/** Seconds between an isolate's flushes when METRICS_FLUSH_SECONDS is unset: the staleness bound. */
export const DEFAULT_FLUSH_SECONDS = 10;
/** The longest flush interval. */
export const MAX_FLUSH_SECONDS = 300;
/**
 * Requests after which an isolate flushes without waiting for the interval. Each flush is
 * a Durable Object call and a SQLite transaction in a shard; at 100 it was 6–30 µs of
 * every request's CPU in local workerd (docs/performance.md, wt/rung) and one shard call
 * per 100 requests. An isolate that ends loses what it counted since its last flush:
 * under this many requests, and at most one flush interval of its traffic.
 */
export const FLUSH_EVERY_REQUESTS = 1000;
/** The name prefix of the deployment's shard objects (`metrics-0`, `metrics-1`, …). */
export const SHARD_PREFIX = "metrics-";

/** How many shards the deployment's counters are spread over (METRICS_SHARDS, 1 to 64, default 4). Only ever raise it: a lowered count stops reading the shards above it. */
export function shardCount(env: Env): number {
  const n = Math.floor(numberVar(env.METRICS_SHARDS, DEFAULT_SHARDS));
  return Math.min(MAX_SHARDS, Math.max(1, n));
}

/** The last variable's text read and its interval: the variable is read once, not on every request. */
const intervalOf: { text: string | undefined | null; ms: number } = { text: null, ms: 0 };

/** The flush interval in ms (METRICS_FLUSH_SECONDS, 1 to 300, default 10). */
export function flushIntervalMs(env: Env): number {
  if (env.METRICS_FLUSH_SECONDS === intervalOf.text) return intervalOf.ms;
  const s = numberVar(env.METRICS_FLUSH_SECONDS, DEFAULT_FLUSH_SECONDS);
  intervalOf.text = env.METRICS_FLUSH_SECONDS;
  intervalOf.ms = Math.min(MAX_FLUSH_SECONDS, Math.max(1, s)) * 1000;
  return intervalOf.ms;
}

/** The stub of shard `i` under a name prefix. */
export function shardStub(env: Env, i: number, prefix = SHARD_PREFIX): DurableObjectStub<MetricsShard> {
  const ns = env.METRICS_SHARD as DurableObjectNamespace<MetricsShard>;
  return ns.get(ns.idFromName(`${prefix}${i}`));
}

/** Whether the environment has the shard binding (node tests and old configurations do not: counts stay in the isolate). */
export const hasShards = (env: Env): boolean => env.METRICS_SHARD !== undefined;

/**
 * Sends a registry's counts to one shard in numbered batches. Each batch is the
 * difference between the counters now and what earlier batches carried; a batch
 * that failed is sent again unchanged (same number, so the shard applies it once)
 * before anything newer. The shard is drawn once per flusher, at random, so the
 * isolates spread over the shards. Shard calls are not metered: a metered call
 * would itself be a count to flush.
 */
export class CountFlusher {
  private readonly walk: DeltaWalk;
  private unsent: { seq: number; entries: CountEntry[] } | null = null;
  private seq = 0;
  private id = "";
  private inFlight: Promise<void> | null = null;
  private lastFlushAt = 0;
  private requestsSince = 0;

  /** `shard`: the shard to send to, or -1 to draw one at the first flush. */
  constructor(
    readonly registry: MetricsRegistry,
    readonly prefix = SHARD_PREFIX,
    private shard = -1,
  ) {
    this.walk = new DeltaWalk(registry);
  }

  /**
   * Notes one answered request and, when a flush is due (FLUSH_EVERY_REQUESTS
   * requests, or the flush interval, since the last one), starts it under
   * `waitUntil`: after the answer, never before it. No timer is left behind, so
   * a request's after-answer work ends with its flush; an isolate that goes
   * quiet sends its last counts with its next request.
   */
  afterRequest(env: Env, ctx: { waitUntil(p: Promise<unknown>): void }): void {
    if (!hasShards(env)) return;
    this.requestsSince++;
    if (this.inFlight !== null) return;
    const now = Date.now();
    if (this.requestsSince >= FLUSH_EVERY_REQUESTS || now - this.lastFlushAt >= flushIntervalMs(env))
      ctx.waitUntil(this.flush(env, now));
  }

  /** Sends what moved since the last batch (and first any batch that failed); resolves when the shard has it, never rejects. */
  flush(env: Env, now: number): Promise<void> {
    if (!hasShards(env)) return Promise.resolve();
    if (this.inFlight !== null) return this.inFlight.then(() => this.flush(env, now));
    this.lastFlushAt = now;
    this.requestsSince = 0;
    this.inFlight = this.send(env, now).finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async send(env: Env, now: number): Promise<void> {
    if (this.shard < 0) this.shard = Math.floor(Math.random() * shardCount(env));
    if (this.id === "") this.id = this.registry.isolateId || crypto.randomUUID();
    try {
      if (this.unsent !== null) await this.post(env, this.unsent, now);
      const entries = this.walk.next();
      if (entries.length === 0) return;
      const batch = { seq: ++this.seq, entries };
      this.unsent = batch;
      await this.post(env, batch, now);
    } catch (e) {
      writeLog(
        {
          ts: new Date(now).toISOString(),
          event: "metrics_flush_failed",
          shard: this.shard,
          error: String(e),
        },
        "error",
      );
    }
  }

  private async post(env: Env, batch: { seq: number; entries: CountEntry[] }, now: number): Promise<void> {
    await shardStub(env, this.shard, this.prefix).add(this.id, batch.seq, batch.entries, now);
    if (this.unsent === batch) this.unsent = null;
  }
}

/** The isolate's flusher. */
export const isolateFlusher = new CountFlusher(isolateMetrics);

/** The deployment's counters: every shard's totals summed into a registry (the isolates' counts up to their last flush). */
export async function deploymentCounts(env: Env, prefix = SHARD_PREFIX): Promise<MetricsRegistry> {
  const total = new MetricsRegistry();
  if (!hasShards(env)) return total;
  const shards = (await Promise.all(
    Array.from({ length: shardCount(env) }, (_, i) => shardStub(env, i, prefix).read()),
  )) as unknown as CountEntry[][];
  const sums = new Map<string, number>();
  for (const entries of shards) for (const [k, n] of entries) sums.set(k, (sums.get(k) ?? 0) + n);
  addCounts(total, sums);
  return total;
}
