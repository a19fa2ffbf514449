/**
 * Upper bounds of the latency histograms, in whole milliseconds (rendered in
 * seconds). The first bound is 0 because the Workers clock stands still while
 * code runs: a decision that waited on no I/O takes exactly 0 ms by that clock,
 * and that bucket tells those apart from the ones that did wait.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  0, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
];

/**
 * A fixed-bucket histogram of millisecond readings. Observing is a few
 * comparisons and three increments: nothing is allocated. Counts are kept per
 * bucket and summed into cumulative ones only when rendered.
 */
export class Histogram {
  /** Per bucket (not cumulative); the last one is everything above the largest bound. */
  readonly counts: number[] = new Array<number>(LATENCY_BOUNDS_MS.length + 1).fill(0);
  /** Sum of the readings, in milliseconds. */
  sumMs = 0;
  count = 0;

  /** Records one reading; a negative or non-number reading counts as 0 ms. */
  observe(ms: number): void {
    const v = ms >= 0 ? ms : 0;
    let i = 0;
    while (i < LATENCY_BOUNDS_MS.length && v > LATENCY_BOUNDS_MS[i]) i++;
    this.counts[i]++;
    this.sumMs += v;
    this.count++;
  }
}
