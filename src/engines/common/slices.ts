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

/**
 * The work units of reading a parsed JSON value: one per value and one per
 * character of its strings and keys, about the characters of its text. A
 * compile that handles entries one at a time (a rule, a list, a limit) counts
 * each entry's units toward a slice.
 */
export function jsonUnits(value: unknown): number {
  let units = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    units++;
    if (typeof v === "string") units += v.length;
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === "object")
      for (const k in v as Record<string, unknown>) {
        units += k.length;
        stack.push((v as Record<string, unknown>)[k]);
      }
  }
  return units;
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
