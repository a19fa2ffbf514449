import { writeLog } from "../log-line.js";
import { isoTime } from "../engines/common/iso-time.js";
/** One decision log line's fields. */
export interface DecisionLog {
  decision_id: string;
  engine: string;
  revision: string;
  outcome: string;
  /**
   * Whole milliseconds from the request's start to the decision, as the runtime's
   * clock tells them. Under workerd the clock advances only across I/O (KV, Durable
   * Object calls, fetches), never during computation, so a decision made without
   * I/O logs 0: the figure is time spent waiting, not CPU. CPU per request is what
   * Cloudflare's own metrics count (`npm run bench:cpu` measures it locally).
   */
  ms: number;
  /** `hit`: answered from a cache level; `miss`: decided and cacheable; `bypass`: decided, caching not allowed (explain, or the cache is off). */
  cache?: "hit" | "miss" | "bypass";
}

/** Whole milliseconds since `started` (a `performance.now()` reading), for the decision log. */
export function elapsedMs(started: number): number {
  return Math.round(performance.now() - started);
}

/** Writes the one JSON log line every decision leaves; it never holds request bodies or secrets. */
export function logDecision(entry: DecisionLog): void {
  writeLog({ ts: isoTime(Date.now()), ...entry });
}
