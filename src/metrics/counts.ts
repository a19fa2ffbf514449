/**
 * A registry's counters as flat `key → count` entries, and back: what an
 * isolate sends to the deployment's metrics shards, and how the shards' sums
 * become a registry again for rendering. A key is the JSON text of a tuple
 * naming the counter and its labels, so any label value survives the trip.
 */
import { LATENCY_BOUNDS_MS, type Histogram } from "./histogram.js";
import { STATUS_CLASSES, type MetricsRegistry } from "./registry.js";

/** One counter's key and count. */
export type CountEntry = [key: string, count: number];

const key = (...parts: (string | number)[]) => JSON.stringify(parts);

function histogramCounts(out: Map<string, number>, kind: string, labels: string[], h: Histogram): void {
  // every bucket's count is also in `count` (observe, addCounts): none of an empty histogram's is read
  if (h.count !== 0)
    for (let i = 0; i < h.counts.length; i++)
      if (h.counts[i] !== 0) out.set(key(kind, ...labels, i), h.counts[i]);
  if (h.sumMs !== 0) out.set(key(`${kind}_sum`, ...labels), h.sumMs);
}

/** Every counter of a registry that is not 0, histogram buckets and sums (in ms) included. */
export function registryCounts(r: MetricsRegistry): Map<string, number> {
  const out = new Map<string, number>();
  for (const [engine, s] of r.engines) {
    for (const [outcome, cell] of s.outcomes)
      if (cell.n !== 0) out.set(key("decision", engine, outcome), cell.n);
    if (s.cacheHit !== 0) out.set(key("cache", engine, "hit"), s.cacheHit);
    if (s.cacheMiss !== 0) out.set(key("cache", engine, "miss"), s.cacheMiss);
    if (s.cacheBypass !== 0) out.set(key("cache", engine, "bypass"), s.cacheBypass);
    if (s.budgetExceeded !== 0) out.set(key("budget", engine), s.budgetExceeded);
    histogramCounts(out, "wait", [engine], s.wait);
  }
  for (const [cls, methods] of r.objects) {
    for (const [method, s] of methods) {
      if (s.ok !== 0) out.set(key("call", cls, method, "ok"), s.ok);
      if (s.failed !== 0) out.set(key("call", cls, method, "error"), s.failed);
      histogramCounts(out, "call_wait", [cls, method], s.latency);
    }
  }
  for (const s of r.http.values())
    for (let c = 1; c < s.byClass.length; c++)
      if (s.byClass[c] !== 0) out.set(key("http", s.method, s.route, STATUS_CLASSES[c]), s.byClass[c]);
  for (const [engine, s] of r.shadow) {
    if (s.agreed !== 0) out.set(key("shadow", engine, "agreed"), s.agreed);
    if (s.differing !== 0) out.set(key("shadow", engine, "differing"), s.differing);
  }
  for (const [route, cell] of r.replays) if (cell.n !== 0) out.set(key("replay", route), cell.n);
  if (r.analyticsErrors !== 0) out.set(key("analytics_errors"), r.analyticsErrors);
  return out;
}

/** What moved from `sent` to `now`: the entries whose count grew (counters never shrink, so nothing else moves). */
export function countDelta(
  now: ReadonlyMap<string, number>,
  sent: ReadonlyMap<string, number>,
): CountEntry[] {
  const out: CountEntry[] = [];
  for (const [k, n] of now) {
    const d = n - (sent.get(k) ?? 0);
    if (d > 0) out.push([k, d]);
  }
  return out;
}

const isText = (v: unknown): v is string => typeof v === "string";

function addToHistogram(h: Histogram, bucket: unknown, n: number): void {
  if (
    typeof bucket !== "number" ||
    !Number.isInteger(bucket) ||
    bucket < 0 ||
    bucket > LATENCY_BOUNDS_MS.length
  )
    return;
  h.counts[bucket] += n;
  h.count += n;
}

/**
 * Adds entries into a registry, as if it had counted them itself (the registry's
 * own bounds apply: past 32 outcomes an engine's new ones count as `other`).
 * Entries of unknown shape, unknown engines or status classes, and counts that
 * are not positive finite numbers are skipped: a shard written by another
 * version of the Worker can at worst leave a series out.
 */
export function addCounts(r: MetricsRegistry, entries: Iterable<CountEntry>): void {
  for (const [k, n] of entries) {
    if (!(Number.isFinite(n) && n > 0)) continue;
    let parts: unknown;
    try {
      parts = JSON.parse(k);
    } catch {
      continue;
    }
    if (!Array.isArray(parts) || !isText(parts[0])) continue;
    const [kind, a, b, c] = parts as unknown[];
    const engine = isText(a) ? r.engines.get(a) : undefined;
    if (kind === "decision" && engine && isText(b)) engine.outcome(b).n += n;
    else if (kind === "cache" && engine && b === "hit") engine.cacheHit += n;
    else if (kind === "cache" && engine && b === "miss") engine.cacheMiss += n;
    else if (kind === "cache" && engine && b === "bypass") engine.cacheBypass += n;
    else if (kind === "budget" && engine) engine.budgetExceeded += n;
    else if (kind === "wait" && engine) addToHistogram(engine.wait, b, n);
    else if (kind === "wait_sum" && engine) engine.wait.sumMs += n;
    else if (
      (kind === "call" || kind === "call_wait" || kind === "call_wait_sum") &&
      isText(a) &&
      isText(b)
    ) {
      const s = r.objectSeries(a, b);
      if (kind === "call" && c === "ok") s.ok += n;
      else if (kind === "call" && c === "error") s.failed += n;
      else if (kind === "call_wait") addToHistogram(s.latency, c, n);
      else if (kind === "call_wait_sum") s.latency.sumMs += n;
    } else if (kind === "http" && isText(a) && isText(b) && isText(c)) {
      const cls = STATUS_CLASSES.indexOf(c);
      if (cls >= 1) r.httpSeries(a, b).byClass[cls] += n;
    } else if (kind === "shadow" && isText(a)) {
      const s = r.shadow.get(a);
      if (s && b === "agreed") s.agreed += n;
      else if (s && b === "differing") s.differing += n;
    } else if (kind === "replay" && isText(a)) {
      r.replayCell(a).n += n;
    } else if (kind === "analytics_errors") r.analyticsErrors += n;
  }
}
