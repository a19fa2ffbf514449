/**
 * Resumable work (issue 24, "`/healthz` answers within 100 ms"): a long
 * policy compile is written once, as a generator that yields at checkpoints,
 * and run either to the end in one go ({@link finish}: the CLI, tests, every
 * synchronous caller) or in slices with a macrotask between them
 * ({@link finishInSlices}: the Worker's routes), so that one isolate serves
 * other requests while a 1 MiB policy validates. Checkpoints count work
 * (characters read, nodes visited), never time: workerd's clocks stand still
 * while JavaScript runs. Both drivers run the same code to the same result.
 */

/** Work that yields (nothing) at checkpoints and returns its result at the end. */
export type Steps<T> = Generator<void, T, undefined>;

/**
 * Work units between two checkpoints that yield. A unit is about one character
 * of source read or one node visited; 16,384 of them cost about 5 ms of CPU on
 * the development machine in the costliest reader (hostile YAML, about
 * 300 ms per MiB), well under the 20 ms a slice may take.
 */
export const SLICE_UNITS = 16_384;

/** Counts work and says when a slice is spent: `spend(n)` is true once per SLICE_UNITS units. */
export class Pace {
  private left: number;

  constructor(private readonly slice = SLICE_UNITS) {
    this.left = slice;
  }

  /** Counts `units` of work; true when a slice has been spent since the last true (the caller then yields). */
  spend(units = 1): boolean {
    this.left -= units;
    if (this.left > 0) return false;
    this.left = this.slice;
    return true;
  }
}

/** Runs resumable work to its end in one go, ignoring its checkpoints. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** The pause between two slices: one macrotask, so requests waiting on the isolate run first. */
export function nextTurn(): Promise<void> {
  return new Promise((resume) => setTimeout(resume, 0));
}

/**
 * Runs resumable work to its end, one slice at a time, awaiting `pause` (a
 * macrotask by default) at every checkpoint; the same result as {@link finish}.
 */
export async function finishInSlices<T>(steps: Steps<T>, pause: () => Promise<void> = nextTurn): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await pause();
  }
}
