/**
 * A compile memo for one piece of resumable work (a diff): patterns compiled
 * again within it (the witness search, then each side's decisions) reuse
 * the first compile's analysis (the tree, the linearity proof, the programs)
 * instead of redoing it. Each compile still gets matchers of its own and pays
 * the same units, in the same order, as compiling afresh (index.ts replays the
 * charges a plan recorded), so what a decision is charged and decides does
 * not depend on what was compiled before it.
 *
 * The memo is current only while a slice of its work runs
 * ({@link withCompileMemo}): nothing is shared between two requests, or
 * between two diffs whose slices interleave in one isolate.
 */
import type { Steps } from "../slices.js";

/**
 * Estimated bytes the plans of one memo may keep; past it, further patterns
 * are compiled without being kept (each compile then works as without a memo).
 */
export const COMPILE_MEMO_BYTES = 16 * 1024 * 1024;

/** Plans by pattern, origin and options, with the estimated bytes they keep. */
export class CompileMemo<P = unknown> {
  private readonly plans = new Map<string, P>();
  private held = 0;
  /** Compiles that found their plan here (for tests). */
  hits = 0;

  constructor(private readonly cap = COMPILE_MEMO_BYTES) {}

  /** The plan kept for `key`, if any. */
  get(key: string): P | undefined {
    const p = this.plans.get(key);
    if (p !== undefined) this.hits++;
    return p;
  }

  /** Keeps `plan` for `key` when its `bytes` fit under the memo's cap. */
  set(key: string, plan: P, bytes: number): void {
    if (this.held + bytes > this.cap) return;
    this.held += bytes;
    this.plans.set(key, plan);
  }
}

let current: CompileMemo | null = null;

/** The memo of the work running now, or null outside any. */
export function currentCompileMemo(): CompileMemo | null {
  return current;
}

/**
 * Runs resumable work (common/slices.ts) with `memo` current during each of
 * its slices and the previous memo (normally none) restored between them.
 */
export function* withCompileMemo<T>(steps: Steps<T>, memo: CompileMemo = new CompileMemo()): Steps<T> {
  let finished = false;
  try {
    for (;;) {
      const previous = current;
      current = memo;
      let r: IteratorResult<void, T>;
      try {
        r = steps.next();
      } finally {
        current = previous;
      }
      if (r.done) {
        finished = true;
        return r.value;
      }
      yield;
    }
  } finally {
    // abandoned part-way (the caller stopped asking): the inner work is closed too
    if (!finished) steps.return(undefined as never);
  }
}
