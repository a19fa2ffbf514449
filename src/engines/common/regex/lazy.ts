/**
 * A policy's pattern compiled the first time a decision tests it (issue 24):
 * loading a policy of thousands of patterns compiles none, and the decision
 * that first needs one pays for building it from its budget, in proportion to
 * the pattern, so a policy of thousands of patterns no decision can skip ends
 * that decision with the budget error instead of stalling the isolate; the
 * next decisions go on where it stopped (what was built is kept).
 */
import { compileLinear, type LinearRegex, type Origin, type RegexFlags } from "./index.js";
import { chargeRegex } from "./work.js";

/**
 * Work units the first test of a policy pattern pays before compiling it, plus
 * {@link UNITS_PER_POLICY_PATTERN_CHAR} per character: a small pattern's compile
 * and V8's two compiles of its RegExp (on its first and second test) take
 * 40–50 µs of CPU in node (bench/placement-cold.ts), about 400 units of a
 * budget whose 400,000 stand for 50 ms. Request patterns pay more
 * (UNITS_PER_COMPILE of index.ts: their caches and bounds cost too).
 */
export const UNITS_PER_POLICY_COMPILE = 300;
/** See {@link UNITS_PER_POLICY_COMPILE}. */
export const UNITS_PER_POLICY_PATTERN_CHAR = 20;

/** What compiling a policy pattern of this source costs the decision that needs it. */
export function policyCompileCharge(source: string): number {
  return UNITS_PER_POLICY_COMPILE + UNITS_PER_POLICY_PATTERN_CHAR * source.length;
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
