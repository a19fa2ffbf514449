/**
 * The work budget of one decision, shared by everything a decision runs: jq
 * programs, ClassAd evaluation, regular expressions, and the building of lists
 * and strings. Units track real cost: one evaluation step, or one element,
 * character or key built or copied, is one unit — so an array of a million
 * elements costs a million, not one step.
 *
 * Decisions are synchronous between awaits, so the budget being charged is one
 * module-level pointer: {@link Budget.run} makes a budget current for a
 * synchronous section and restores the previous one after it. Outside any
 * decision the current budget is unlimited (the CLI, tests, scheduled work set
 * their own bounds).
 */

/** The default `DECISION_BUDGET`: keeps the costliest hostile decision under 50 ms of CPU (docs/performance.md). */
export const DEFAULT_DECISION_BUDGET = 400_000;

/** The stable error code of a spent budget, in verdicts and in the HTTP 422. */
export const BUDGET_EXCEEDED = "budget_exceeded";

/** The text engines report when a decision spent its budget (inside verdicts, where the origin reports errors). */
export const BUDGET_EXCEEDED_MESSAGE =
  "budget_exceeded: the decision used up its work budget (DECISION_BUDGET)";

/** Thrown by {@link spend} when the current budget is spent; engines catch it where their origin reports errors. */
export class BudgetExceeded {
  readonly code = BUDGET_EXCEEDED;
  readonly message = BUDGET_EXCEEDED_MESSAGE;
}

const EXCEEDED = new BudgetExceeded();

/** A decision's budget: `limit` units, `used` so far. */
export class Budget {
  used = 0;
  /** Regular expressions this decision compiled (cache misses; bounded by the regex layer). */
  regexCompiles = 0;

  constructor(readonly limit: number) {}

  /** Units left (never negative). */
  remaining(): number {
    return this.used >= this.limit ? 0 : this.limit - this.used;
  }

  /** True once more than `limit` units were charged. */
  exhausted(): boolean {
    return this.used > this.limit;
  }

  /** Runs a synchronous section with this budget as the one {@link spend} charges. */
  run<T>(fn: () => T): T {
    return within(this, fn);
  }
}

function within<T>(b: Budget, fn: () => T): T {
  const previous = current;
  current = b;
  try {
    return fn();
  } finally {
    current = previous;
  }
}

/** The budget charged outside any decision: unlimited. */
export const UNLIMITED = new Budget(Number.POSITIVE_INFINITY);

let current: Budget = UNLIMITED;

/**
 * Makes `b` the budget {@link spend} charges and returns the one it replaced, which the
 * caller restores in a `finally` (`enterBudget(previous)`): {@link Budget.run} without
 * a closure, for sections entered once per limit or identifier.
 */
export function enterBudget(b: Budget): Budget {
  const previous = current;
  current = b;
  return previous;
}

/** The budget being charged now. */
export function currentBudget(): Budget {
  return current;
}

/** Charges `n` units; false when that spent the budget (for engines whose origin turns errors into values, like ClassAd's ERROR). */
export function trySpend(n: number): boolean {
  const b = current;
  return (b.used += n) <= b.limit;
}

/** Charges `n` units, throwing {@link BudgetExceeded} when that spent the budget. */
export function spend(n: number): void {
  const b = current;
  if ((b.used += n) > b.limit) throw EXCEEDED;
}

/** The budget a `DECISION_BUDGET` setting asks for: a positive number of units, else the default. */
export function decisionBudget(setting: string | undefined): Budget {
  const n = setting === undefined || setting.trim() === "" ? NaN : Number(setting);
  return new Budget(Number.isFinite(n) && n > 0 ? Math.floor(n) : DEFAULT_DECISION_BUDGET);
}
