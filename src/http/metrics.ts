import type { Env } from "../env.js";
import { isolateMetrics } from "../state/isolate-metrics.js";
import type { DecisionLog } from "./decision-log.js";
import { writeLog } from "../log-line.js";

export { isolateMetrics };

const newIsolateId = () => crypto.randomUUID();

/** Notes the request that starts the isolate's uptime (only the first one does anything, or reads the clock). */
export function noteRequest(): void {
  if (isolateMetrics.startedAt === 0) isolateMetrics.start(Date.now(), newIsolateId);
}

let analyticsErrorLogged = false;

/**
 * Counts a decision in this isolate's registry and, when the `METRICS`
 * Analytics Engine dataset is bound, writes its data point (non-blocking:
 * `writeDataPoint` queues it and returns). Call it once per decision, beside
 * its log line. `outcome` replaces the log's when the log's would make a
 * label per value (a scheduling pass's `started_N_of_M`).
 */
export function recordDecision(
  env: Env,
  entry: DecisionLog,
  budgetSpent = false,
  outcome: string = entry.outcome,
): void {
  isolateMetrics.decision(entry.engine, outcome, entry.cache, entry.ms, budgetSpent);
  const dataset = env.METRICS;
  if (dataset === undefined) return;
  try {
    // The layout docs/operations.md's queries read: index1 and blob1 the engine, blob2 the outcome,
    // blob3 the cache result, blob4 the revision; double1 the I/O wait in ms, double2 1 for a spent budget.
    dataset.writeDataPoint({
      indexes: [entry.engine],
      blobs: [entry.engine, outcome, entry.cache ?? "none", entry.revision],
      doubles: [entry.ms, budgetSpent ? 1 : 0],
    });
  } catch (e) {
    isolateMetrics.analyticsErrors++;
    if (!analyticsErrorLogged) {
      analyticsErrorLogged = true;
      writeLog({ ts: new Date().toISOString(), event: "analytics_write_failed", error: String(e) }, "error");
    }
  }
}

/**
 * Wraps a Durable Object stub so every method call is counted in this
 * isolate's registry with the time the caller waited for its answer (a call is
 * I/O, so the Workers clock does advance across it). The answer and any error
 * pass through unchanged.
 */
export function meteredStub<T extends object>(stub: T, cls: string): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof prop !== "string" || typeof value !== "function") return value;
      return (...args: unknown[]) =>
        timedCall(cls, prop, value as (...a: unknown[]) => unknown, target, args);
    },
  });
}

async function timedCall(
  cls: string,
  method: string,
  fn: (...a: unknown[]) => unknown,
  target: object,
  args: unknown[],
): Promise<unknown> {
  const started = performance.now();
  try {
    const answer = await Reflect.apply(fn, target, args);
    isolateMetrics.objectCall(cls, method, performance.now() - started, true);
    return answer;
  } catch (e) {
    isolateMetrics.objectCall(cls, method, performance.now() - started, false);
    throw e;
  }
}
