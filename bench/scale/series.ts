/**
 * The harness of one scale series: measures an operation at each size of the
 * series in this process (fixtures built first, then rounds interleaving the
 * sizes, a full GC before each timed run, the median of the rounds), and
 * prints the result as one `SCALE {json}` line for `bench/scale/run.ts`.
 * Time is the process's CPU time (user + system, so garbage collection on
 * V8's helper threads counts), which other load on a shared machine does
 * not inflate the way it inflates wall-clock time.
 */

/** One series' result: a figure per size, the unit, and free-form notes (heap, ratios). */
export interface SeriesResult {
  readonly name: string;
  readonly unit: "µs" | "ms";
  readonly sizes: readonly number[];
  readonly values: readonly number[];
  readonly notes: string[];
  /**
   * When the series measured it so: growth exponents between its last two sizes, each from two timed
   * runs taken back to back (one per size), so that a change of load between rounds moves both figures
   * of a pair; printed as their median and spread in place of the exponent of the medians.
   */
  readonly exponents?: readonly number[];
}

/** What a series measures at one size: the operation, and optionally how many calls one timed run makes. */
export interface SizeCase {
  readonly run: () => unknown;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs a full collection when the process was started with --expose-gc (bench/scale/run.ts does). */
export function collect(): void {
  gc?.();
  gc?.();
}

let sink: unknown;

/** CPU microseconds used by this process so far. */
export function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/**
 * CPU microseconds per call of `fn`: calls it in batches of about a
 * millisecond until at least `ms` of CPU time were used (at least once).
 */
export function timeCalls(fn: () => unknown, ms: number): number {
  const t0 = performance.now();
  sink = fn();
  const once = Math.max(performance.now() - t0, 0.0005);
  const batch = Math.max(1, Math.min(1 << 16, Math.floor(1 / once)));
  let calls = 0;
  const start = cpuMicros();
  let used = 0;
  do {
    for (let i = 0; i < batch; i++) sink = fn();
    calls += batch;
    used = cpuMicros() - start;
  } while (used < ms * 1000);
  return used / calls;
}

/** Median of numbers. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Heap in use after a full collection, in bytes. */
export function heapUsed(): number {
  collect();
  return process.memoryUsage().heapUsed;
}

/**
 * Measures `make(size)`'s operation at every size: one warm-up call each, then
 * `rounds` rounds that visit the sizes in turn (so a slow moment hits every
 * size alike), each timing calls for `ms` after a full GC and an untimed run
 * of half that; reports medians in `unit`.
 */
export function measureSeries(
  name: string,
  sizes: readonly number[],
  make: (size: number) => SizeCase,
  opts: { unit?: "µs" | "ms"; rounds?: number; ms?: number; notes?: string[] } = {},
): SeriesResult {
  const unit = opts.unit ?? "µs";
  const rounds = opts.rounds ?? 5;
  const cases = sizes.map(make);
  for (const c of cases) sink = c.run();
  const samples: number[][] = sizes.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < sizes.length; i++) {
      // a full GC shrinks the young generation: let it grow back before timing
      collect();
      timeCalls(cases[i].run, (opts.ms ?? 100) / 2);
      samples[i].push(timeCalls(cases[i].run, opts.ms ?? 100));
    }
  }
  const values = samples.map((s) => (unit === "ms" ? median(s) / 1000 : median(s)));
  return { name, unit, sizes, values, notes: opts.notes ?? [] };
}

/**
 * Growth exponents between two sizes, `count` of them, each from two timed runs of `ms` taken back to back
 * (one per size; a full GC and an untimed run of half that before each), the order of the two sizes
 * swapped from one pair to the next so that a load rising or falling during a pair favours neither.
 */
export function pairedExponents(
  s1: number,
  run1: () => unknown,
  s2: number,
  run2: () => unknown,
  count: number,
  ms: number,
  firstLarge = false,
): number[] {
  const out: number[] = [];
  const one = (run: () => unknown): number => {
    collect();
    timeCalls(run, ms / 2);
    return timeCalls(run, ms);
  };
  for (let p = 0; p < count; p++) {
    let v1: number;
    let v2: number;
    if ((p % 2 === 1) !== firstLarge) {
      v2 = one(run2);
      v1 = one(run1);
    } else {
      v1 = one(run1);
      v2 = one(run2);
    }
    out.push(exponentOf(s1, v1, s2, v2));
  }
  return out;
}

/** Prints results for the parent process (and stays readable when a series file is run alone). */
export function report(...results: SeriesResult[]): void {
  for (const r of results) console.log(`SCALE ${JSON.stringify(r)}`);
  if (sink === Symbol.for("never")) console.log("");
}

/** The exponent between sizes s1 and s2 whose figures are v1 and v2. */
export function exponentOf(s1: number, v1: number, s2: number, v2: number): number {
  return Math.log(v2 / v1) / Math.log(s2 / s1);
}

/** The value at quantile q (0 to 1) of numbers, interpolated between neighbours (NaN for none). */
export function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = Math.floor(at);
  return s[lo] + (s[Math.ceil(at)] - s[lo]) * (at - lo);
}

/**
 * The growth exponent a series prints: the median of its paired exponents ({@link SeriesResult.exponents})
 * when it has them, else {@link growthExponent} of its medians.
 */
export function printedExponent(r: SeriesResult): number {
  return r.exponents !== undefined && r.exponents.length > 0 ? median(r.exponents) : growthExponent(r);
}

/** Growth exponent between the last two sizes: 1 is linear, 0 constant, 2 quadratic. */
export function growthExponent(r: SeriesResult): number {
  const n = r.sizes.length;
  if (n < 2) return NaN;
  const [s1, s2] = [r.sizes[n - 2], r.sizes[n - 1]];
  const [v1, v2] = [r.values[n - 2], r.values[n - 1]];
  return exponentOf(s1, v1, s2, v2);
}
