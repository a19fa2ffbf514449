/**
 * A registry's counters as flat `key → count` entries, and back: what an
 * isolate sends to the deployment's metrics shards, and how the shards' sums
 * become a registry again for rendering. A key is the JSON text of a tuple
 * naming the counter and its labels, so any label value survives the trip.
 */
import { LATENCY_BOUNDS_MS, type Histogram } from "./histogram.js";
import {
  STATUS_CLASSES,
  type Cell,
  type EngineSeries,
  type HttpSeries,
  type MetricsRegistry,
  type ObjectCallSeries,
  type ShadowSeries,
} from "./registry.js";

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

/** What a delta walk remembers of one series: its counters' keys (each made once) and the counts last taken. */
class Taken {
  readonly keys: string[] = [];
  readonly counts: number[] = [];
}

const SUM = LATENCY_BOUNDS_MS.length + 1;

/**
 * The registry's counters that moved since the last walk, as entries of the
 * same keys and differences `countDelta(registryCounts(r), sent)` gives, in one
 * pass that builds no map of every counter: each series' keys are made once and
 * kept with the counts last taken; an engine whose count of writes stands
 * still, and a histogram whose count and sum stand still, are not read; maps
 * are walked with `forEach` and module-level callbacks (no destructuring, no
 * closure). Written for the interpreter, since a flush runs once per 1,000
 * requests and is never optimised. A walk takes what it reports: the next one
 * reports only what moved after it.
 */
export class DeltaWalk {
  private readonly taken = new Map<object, Taken>();
  private out: CountEntry[] = [];
  /** The engine or class whose series the walk is in (for the callbacks below). */
  label = "";

  constructor(readonly registry: MetricsRegistry) {}

  /** The entries that moved since the last call (the first call: every counter not 0). */
  next(): CountEntry[] {
    const r = this.registry;
    this.out = [];
    r.engines.forEach(walkEngine, this);
    r.objects.forEach(walkClass, this);
    r.http.forEach(walkHttp, this);
    r.shadow.forEach(walkShadow, this);
    r.replays.forEach(walkReplay, this);
    const t = this.of(r);
    if (r.analyticsErrors > t.counts[0]) this.emit(t, 0, r.analyticsErrors, "analytics_errors");
    const out = this.out;
    this.out = [];
    return out;
  }

  /** The memory of one series object, made at its first sight with every count 0. */
  of(series: object, slots = 1): Taken {
    let t = this.taken.get(series);
    if (t === undefined) {
      this.taken.set(series, (t = new Taken()));
      for (let i = 0; i < slots; i++) t.counts.push(0);
    }
    return t;
  }

  /** Notes counter `slot` of a series at `n` (above what was taken) with its key, made from `parts` at first use. */
  emit(t: Taken, slot: number, n: number, ...parts: (string | number)[]): void {
    this.out.push([t.keys[slot] ?? (t.keys[slot] = JSON.stringify(parts)), n - t.counts[slot]]);
    t.counts[slot] = n;
  }

  /** A cell's counter (a decision outcome under `label`, or a replay). */
  cell(c: Cell, kind: string, name: string): void {
    const t = this.of(c);
    if (c.n <= t.counts[0]) return;
    if (kind === "decision") this.emit(t, 0, c.n, kind, this.label, name);
    else this.emit(t, 0, c.n, kind, name);
  }

  /** A histogram's buckets and sum that moved, skipped whole while its count and sum stand still. */
  histogram(h: Histogram, kind: string, a: string, b?: string): void {
    const t = this.of(h, SUM + 2);
    const c = t.counts;
    if (h.count === c[SUM + 1] && h.sumMs === c[SUM]) return;
    c[SUM + 1] = h.count;
    for (let i = 0; i < SUM; i++)
      if (h.counts[i] > c[i])
        if (b === undefined) this.emit(t, i, h.counts[i], kind, a, i);
        else this.emit(t, i, h.counts[i], kind, a, b, i);
    if (h.sumMs > c[SUM])
      if (b === undefined) this.emit(t, SUM, h.sumMs, `${kind}_sum`, a);
      else this.emit(t, SUM, h.sumMs, `${kind}_sum`, a, b);
  }
}

function walkEngine(this: DeltaWalk, s: EngineSeries, engine: string): void {
  const t = this.of(s, 5);
  const c = t.counts;
  if (s.writes === c[4]) return;
  c[4] = s.writes;
  this.label = engine;
  s.outcomes.forEach(walkOutcome, this);
  if (s.cacheHit > c[0]) this.emit(t, 0, s.cacheHit, "cache", engine, "hit");
  if (s.cacheMiss > c[1]) this.emit(t, 1, s.cacheMiss, "cache", engine, "miss");
  if (s.cacheBypass > c[2]) this.emit(t, 2, s.cacheBypass, "cache", engine, "bypass");
  if (s.budgetExceeded > c[3]) this.emit(t, 3, s.budgetExceeded, "budget", engine);
  this.histogram(s.wait, "wait", engine);
}

function walkOutcome(this: DeltaWalk, cell: Cell, outcome: string): void {
  this.cell(cell, "decision", outcome);
}

function walkClass(this: DeltaWalk, methods: Map<string, ObjectCallSeries>, cls: string): void {
  this.label = cls;
  methods.forEach(walkMethod, this);
}

function walkMethod(this: DeltaWalk, s: ObjectCallSeries, method: string): void {
  const cls = this.label;
  const t = this.of(s, 2);
  if (s.ok > t.counts[0]) this.emit(t, 0, s.ok, "call", cls, method, "ok");
  if (s.failed > t.counts[1]) this.emit(t, 1, s.failed, "call", cls, method, "error");
  this.histogram(s.latency, "call_wait", cls, method);
}

function walkHttp(this: DeltaWalk, s: HttpSeries): void {
  const t = this.of(s, STATUS_CLASSES.length);
  for (let c = 1; c < STATUS_CLASSES.length; c++)
    if (s.byClass[c] > t.counts[c])
      this.emit(t, c, s.byClass[c], "http", s.method, s.route, STATUS_CLASSES[c]);
}

function walkShadow(this: DeltaWalk, s: ShadowSeries, engine: string): void {
  const t = this.of(s, 2);
  if (s.agreed > t.counts[0]) this.emit(t, 0, s.agreed, "shadow", engine, "agreed");
  if (s.differing > t.counts[1]) this.emit(t, 1, s.differing, "shadow", engine, "differing");
}

function walkReplay(this: DeltaWalk, cell: Cell, route: string): void {
  this.cell(cell, "replay", route);
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
    if (engine !== undefined) engine.writes++;
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
