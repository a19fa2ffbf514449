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
