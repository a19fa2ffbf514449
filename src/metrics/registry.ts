import { ENGINE_NAMES, type EngineName } from "../engines/common/engine.js";
import { Histogram } from "./histogram.js";

/** What a decision did with the verdict cache, as the decision log and `X-Arbiter-Cache` say it. */
export type CacheResult = "hit" | "miss" | "bypass";

/** The engines whose routes go through the verdict cache. */
export const CACHED_ENGINES: readonly EngineName[] = ["limits", "placement", "match"];

/** The outcome label of a decision that ended in a 422 `budget_exceeded` (and match's spent-budget verdicts). */
export const BUDGET_OUTCOME = "budget_exceeded";

/** The outcome label of a job queue's scheduling pass (the log's `started_N_of_M` would make a label per N and M). */
export const SCHEDULE_OUTCOME = "schedule";

/** Each engine's outcomes as the decision log spells them (docs/operations.md), present at 0 from the start. */
const KNOWN_OUTCOMES: Readonly<Record<EngineName, readonly string[]>> = {
  limits: ["allowed", "denied", "error"],
  placement: ["placed", "rejected"],
  match: ["matched", "no_match", "job_discarded", "schedd_discarded", "kept", "discarded"],
  customs: ["allocated", "no_host"],
  jobfilter: ["accept", "pause", "reject", "rate_limited", "adhoc_rate_limited", SCHEDULE_OUTCOME],
};

/** Distinct outcome labels one engine may get; past it, new ones count as `other` (a bound on series, whatever an engine reports). */
export const MAX_OUTCOMES = 32;

/** A counter cell: one allocation when its series first appears, increments after that. */
export class Cell {
  n = 0;
}

/** One engine's decision series. */
export class EngineSeries {
  readonly outcomes = new Map<string, Cell>();
  cacheHit = 0;
  cacheMiss = 0;
  cacheBypass = 0;
  budgetExceeded = 0;
  /** Time to the verdict by the Workers clock, which moves only across I/O. */
  readonly wait = new Histogram();
  /** Bumped by every write to this series (`decision`, `addCounts`): a flush walks only the engines whose count of writes moved. */
  writes = 0;

  constructor(outcomes: readonly string[]) {
    for (const o of outcomes) this.outcomes.set(o, new Cell());
    this.outcomes.set(BUDGET_OUTCOME, new Cell());
  }

  /** The cell of an outcome, created on first sight while there is room, else the `other` cell. */
  outcome(name: string): Cell {
    let cell = this.outcomes.get(name);
    if (cell === undefined) {
      const key = this.outcomes.size < MAX_OUTCOMES ? name : "other";
      cell = this.outcomes.get(key);
      if (cell === undefined) this.outcomes.set(key, (cell = new Cell()));
    }
    return cell;
  }
}

/** Calls of one Durable Object class's method, from this isolate. */
export class ObjectCallSeries {
  ok = 0;
  failed = 0;
  readonly latency = new Histogram();
}

/** HTTP answers of one route template and method, by status class (index 1 to 5: 1xx to 5xx). */
export class HttpSeries {
  readonly byClass: number[] = [0, 0, 0, 0, 0, 0];

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}
}

/** The status classes as labels, by index (0 unused). */
export const STATUS_CLASSES: readonly string[] = ["", "1xx", "2xx", "3xx", "4xx", "5xx"];

/** Shadow comparisons of one engine with a staged candidate. */
export class ShadowSeries {
  agreed = 0;
  differing = 0;
}

/** The headline figures `/v1/status` shows, from the same counters `/metrics` renders. */
export interface HeadlineFigures {
  uptime_seconds: number;
  decisions: Record<EngineName | "total", number>;
  cache: { hits: number; misses: number; bypasses: number; hit_ratio: number | null };
  budget_exceeded: number;
}

/**
 * Every counter one isolate keeps: plain numbers in objects made once, so
 * recording a decision or a Durable Object call increments and compares and
 * allocates nothing (a series seen for the first time allocates its cell once).
 * Rendering happens only when `/metrics` or `/v1/status` is asked.
 */
export class MetricsRegistry {
  readonly engines = new Map<string, EngineSeries>(
    ENGINE_NAMES.map((e) => [e, new EngineSeries(KNOWN_OUTCOMES[e])]),
  );
  /** By class, then method. */
  readonly objects = new Map<string, Map<string, ObjectCallSeries>>();
  /** By `method route`. */
  readonly http = new Map<string, HttpSeries>();
  /** By engine. */
  readonly shadow = new Map<string, ShadowSeries>(ENGINE_NAMES.map((e) => [e, new ShadowSeries()]));
  /** Answers replayed for a reused Idempotency-Key, by route template. */
  readonly replays = new Map<string, Cell>();
  /** Data points the Analytics Engine binding refused. */
  analyticsErrors = 0;
  /** When this isolate handled its first request (ms since the epoch); 0 until then. */
  startedAt = 0;
  isolateId = "";

  /**
   * Notes the isolate's first request. Not done at module load: the Workers
   * clock reads 0 (1970) in global scope.
   */
  start(now: number, id: () => string): void {
    if (this.startedAt !== 0) return;
    this.startedAt = now;
    this.isolateId = id();
  }

  /** Counts one decision: its outcome, what the verdict cache did, its wait, and whether it spent its work budget. */
  decision(
    engine: string,
    outcome: string,
    cache: CacheResult | undefined,
    waitMs: number,
    budgetSpent: boolean,
  ): void {
    const series = this.engines.get(engine);
    if (series === undefined) return;
    series.writes++;
    series.outcome(outcome).n++;
    if (cache === "hit") series.cacheHit++;
    else if (cache === "miss") series.cacheMiss++;
    else if (cache === "bypass") series.cacheBypass++;
    if (budgetSpent) series.budgetExceeded++;
    series.wait.observe(waitMs);
  }

  /** Counts one call of a Durable Object's method from this isolate, with the caller's wait for its answer. */
  objectCall(cls: string, method: string, ms: number, ok: boolean): void {
    const series = this.objectSeries(cls, method);
    if (ok) series.ok++;
    else series.failed++;
    series.latency.observe(ms);
  }

  /** The call series of one class's method, made on first sight. */
  objectSeries(cls: string, method: string): ObjectCallSeries {
    let methods = this.objects.get(cls);
    if (methods === undefined) this.objects.set(cls, (methods = new Map()));
    let series = methods.get(method);
    if (series === undefined) methods.set(method, (series = new ObjectCallSeries()));
    return series;
  }

  /** The series of one method and route template, made on first sight (callers keep it: counting is then one increment). */
  httpSeries(method: string, route: string): HttpSeries {
    const key = `${method} ${route}`;
    let series = this.http.get(key);
    if (series === undefined) this.http.set(key, (series = new HttpSeries(method, route)));
    return series;
  }

  /** Counts one answer of a series by its status code (outside 100 to 599: counted as 5xx). */
  httpAnswer(series: HttpSeries, status: number): void {
    const cls = Math.floor(status / 100);
    series.byClass[cls >= 1 && cls <= 5 ? cls : 5]++;
  }

  /** Counts one shadow comparison of an engine's decision with the staged candidate's. */
  shadowComparison(engine: string, agreed: boolean): void {
    const series = this.shadow.get(engine);
    if (series === undefined) return;
    if (agreed) series.agreed++;
    else series.differing++;
  }

  /** Counts one answer replayed for a reused Idempotency-Key on a route template. */
  replay(route: string): void {
    this.replayCell(route).n++;
  }

  /** The replay counter of a route template, made on first sight. */
  replayCell(route: string): Cell {
    let cell = this.replays.get(route);
    if (cell === undefined) this.replays.set(route, (cell = new Cell()));
    return cell;
  }

  /** The headline figures as of `now`. */
  headline(now: number): HeadlineFigures {
    const decisions = { total: 0 } as Record<EngineName | "total", number>;
    let hits = 0;
    let misses = 0;
    let bypasses = 0;
    let budget = 0;
    for (const name of ENGINE_NAMES) {
      const s = this.engines.get(name) as EngineSeries;
      let n = 0;
      for (const cell of s.outcomes.values()) n += cell.n;
      decisions[name] = n;
      decisions.total += n;
      hits += s.cacheHit;
      misses += s.cacheMiss;
      bypasses += s.cacheBypass;
      budget += s.budgetExceeded;
    }
    return {
      uptime_seconds: this.startedAt === 0 ? 0 : Math.max(0, Math.floor((now - this.startedAt) / 1000)),
      decisions,
      cache: { hits, misses, bypasses, hit_ratio: hits + misses === 0 ? null : hits / (hits + misses) },
      budget_exceeded: budget,
    };
  }
}
