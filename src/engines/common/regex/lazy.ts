/**
 * A policy's pattern compiled the first time a decision tests it (issue 24):
 * loading a policy of thousands of patterns compiles none, and the decision
 * that first needs one pays for building it from its budget, in proportion to
 * the pattern, so a policy of thousands of patterns no decision can skip ends
 * that decision with the budget error instead of stalling the isolate; the
 * next decisions go on where it stopped (what was built is kept).
 */
import {
  compileLinear,
  UNITS_PER_COMPILE,
  UNITS_PER_PATTERN_CHAR,
  type LinearRegex,
  type Origin,
  type RegexFlags,
} from "./index.js";
import { chargeRegex } from "./work.js";

/**
 * What compiling a policy pattern of this source costs the decision that
 * first tests it: what a request pattern's compile costs (UNITS_PER_COMPILE
 * plus UNITS_PER_PATTERN_CHAR per character, index.ts), since the same work is
 * done. Measured in node on 9,000 expressions like `^(u1|v1)+$` that no gate
 * skips: each decision compiles about 300 of them before its budget is spent,
 * in 20–35 ms of CPU at load 14 (the compile and V8's first compile of its
 * RegExp; its second, native compile comes on the next test, in a later
 * decision, and is bounded by the compiles of the one before).
 */
export function policyCompileCharge(source: string): number {
  return UNITS_PER_COMPILE + UNITS_PER_PATTERN_CHAR * source.length;
}

/** The matcher of a pattern that failed to compile: matches nothing. */
export const NEVER_MATCHES: LinearRegex = {
  fast: true,
  groups: 0,
  names: [],
  test: () => false,
  exec: () => null,
  match: () => null,
};

/**
 * A validated policy pattern, compiled (charged to the current budget) when
 * first tested and kept. A pattern that does not compile (only possible in a
 * bundle made by an older version) matches nothing.
 */
export class LazyLinear {
  private compiled: LinearRegex | null = null;

  constructor(
    /** The pattern as written. */
    readonly source: string,
    private readonly origin: Origin,
    private readonly flags: RegexFlags = {},
  ) {}

  /** Whether the pattern matches anywhere in `s`; the first call compiles it, charged, and may throw `BudgetExceeded`. */
  test(s: string): boolean {
    return (this.compiled ?? this.build()).test(s);
  }

  /** Whether the pattern has been compiled. */
  get built(): boolean {
    return this.compiled !== null;
  }

  private build(): LinearRegex {
    // charged before the work, so a spent budget stops it; nothing is kept and the next decision tries again
    chargeRegex(policyCompileCharge(this.source));
    const r = compileLinear(this.source, this.origin, this.flags, true);
    return (this.compiled = r.ok ? r.value : NEVER_MATCHES);
  }
}
