/** One line of a benchmark summary: an operation's cost and its ratio to a baseline measured in the same run. */
export interface BenchRow {
  name: string;
  microsPerOp: number;
  baselineName: string;
  ratio: number;
}

/**
 * Runs `fn` repeatedly for about `ms` milliseconds after a warm-up and returns
 * microseconds per call. `sink` keeps results alive so the JIT cannot drop the work.
 */
export function measure(fn: () => unknown, ms = 400): number {
  let sink: unknown;
  const warmEnd = performance.now() + Math.min(200, ms / 2);
  while (performance.now() < warmEnd) sink = fn();
  let iterations = 0;
  let batch = 1;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) sink = fn();
    iterations += batch;
    elapsed = performance.now() - start;
    if (batch < 1 << 16) batch *= 2;
  }
  keep(sink);
  return (elapsed * 1000) / iterations;
}

/** The async form of `measure`, for engines whose decide returns a promise. */
export async function measureAsync(fn: () => Promise<unknown>, ms = 400): Promise<number> {
  let sink: unknown;
  const warmEnd = performance.now() + Math.min(200, ms / 2);
  while (performance.now() < warmEnd) sink = await fn();
  let iterations = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 64; i++) sink = await fn();
    iterations += 64;
    elapsed = performance.now() - start;
  }
  keep(sink);
  return (elapsed * 1000) / iterations;
}

let kept: unknown;
function keep(value: unknown): void {
  kept = value;
}
/** Exposed so bundlers cannot prove `kept` is unused. */
export function lastKept(): unknown {
  return kept;
}

/** Prints rows as an aligned table. */
export function printTable(title: string, rows: readonly BenchRow[]): void {
  console.log(`\n${title}`);
  const w = Math.max(...rows.map((r) => r.name.length), 10);
  const b = Math.max(...rows.map((r) => r.baselineName.length), 8);
  console.log(
    `${"operation".padEnd(w)}  ${"µs/op".padStart(10)}  ${"ops/s".padStart(12)}  ${"baseline".padEnd(b)}  ratio`,
  );
  for (const r of rows) {
    const ops = r.microsPerOp > 0 ? Math.round(1e6 / r.microsPerOp) : Infinity;
    console.log(
      `${r.name.padEnd(w)}  ${r.microsPerOp.toFixed(3).padStart(10)}  ${String(ops).padStart(12)}  ${r.baselineName.padEnd(b)}  ${formatRatio(r.ratio)}`,
    );
  }
}

/** A ratio as `2.50×`, or as `1/444×` when the operation is far cheaper than its baseline. */
export function formatRatio(ratio: number): string {
  return ratio > 0 && ratio < 0.1 ? `1/${Math.round(1 / ratio)}×` : `${ratio.toFixed(2)}×`;
}

/** CPU time of this process (user + system, µs): other load on a shared machine hardly moves it. */
function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** µs of CPU per call of `fn` over about `ms` milliseconds of CPU (awaiting it when it returns a promise). */
export async function cpuPerCall(fn: () => unknown, ms: number): Promise<number> {
  let sink: unknown;
  let calls = 0;
  let batch = 1;
  const start = cpuMicros();
  let used = 0;
  while (used < ms * 1000) {
    for (let i = 0; i < batch; i++) {
      const r = fn();
      sink = r instanceof Promise ? await r : r;
    }
    calls += batch;
    used = cpuMicros() - start;
    if (batch < 1 << 12) batch *= 2;
  }
  keep(sink);
  return used / calls;
}

/**
 * Measures `base` and `other` in alternating CPU-time samples (`rounds` pairs of about `ms`
 * each, after a warm-up of both): the medians of each and the median of the paired ratios
 * other / base, so a busy moment of a shared machine colours both sides of a pair alike.
 */
export async function pairedCpu(
  base: () => unknown,
  other: () => unknown,
  rounds = 9,
  ms = 40,
): Promise<{ base: number; other: number; ratio: number }> {
  await cpuPerCall(base, ms);
  await cpuPerCall(other, ms);
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const first = i % 2 === 0;
    const x = first ? await cpuPerCall(base, ms) : 0;
    const y = await cpuPerCall(other, ms);
    const z = first ? x : await cpuPerCall(base, ms);
    a.push(z);
    b.push(y);
    r.push(y / z);
  }
  const median = (xs: number[]) => [...xs].sort((p, q) => p - q)[xs.length >> 1];
  return { base: median(a), other: median(b), ratio: median(r) };
}
