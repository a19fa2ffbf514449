/**
 * Where the matcher reports its work: by default the current decision's work
 * budget (src/engines/common/budget.ts; unlimited outside a decision), which
 * throws `BudgetExceeded` when spent. Long matches report every CHUNK units,
 * so a spent budget stops a match part-way rather than after it.
 */
import { spend } from "../budget.js";

/** Reports the work a match did, in thread steps (may throw to stop the match). */
export type Spend = (units: number) => void;

/** Units a matcher accumulates before reporting them. */
export const CHUNK = 1 << 14;

let hook: Spend | null = spend;

/** Installs the callback told about regex work (null: nobody counts it). */
export function setWorkHook(f: Spend | null): void {
  hook = f;
}

/** Reports `units` of regex work. */
export function chargeRegex(units: number): void {
  if (hook !== null && units > 0) hook(units);
}

/**
 * Runs `fn` with the work it reports recorded in `into`, in order; reported
 * as usual too when `forward` (and then throwing as usual), else only
 * recorded: index.ts keeps what a compile was charged, to charge it again to
 * a later compile that reuses its plan.
 */
export function recordingWork<T>(into: number[], forward: boolean, fn: () => T): T {
  const previous = hook;
  hook = (units) => {
    into.push(units);
    if (forward && previous !== null) previous(units);
  };
  try {
    return fn();
  } finally {
    hook = previous;
  }
}
