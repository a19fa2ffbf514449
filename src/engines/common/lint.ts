/**
 * What policy analysis reports: findings that are not errors (a policy with
 * errors never activates and never reaches lint), each with a stable code, a
 * severity, a message in the origin's terms and a place in the source text.
 * Each engine's analysis lives beside the engine (`<engine>/lint.ts`); this is
 * their shared vocabulary and their work bound.
 */
import { Pace } from "./slices.js";

/** How much a finding matters: `warning` is something that cannot be what the author meant; `info` is worth knowing. */
export type LintSeverity = "warning" | "info";

/** The severities from least to most severe, for `--max-severity`. */
export const LINT_SEVERITIES: readonly LintSeverity[] = ["info", "warning"];

/** One finding: `code` is stable snake_case prefixed by the engine; `at` is `line:column` (1-based) or "" when the text has no place for it. */
export interface LintFinding {
  readonly code: string;
  readonly severity: LintSeverity;
  readonly message: string;
  readonly at: string;
}

/** What an analysis may be given besides the policy text. */
export interface LintOptions {
  /** match only: a sample of ads, as `condor_status -l` prints them (blank-line separated `Name = value` lines). */
  readonly ads?: string;
  /** Work units the analysis may spend (default {@link LINT_WORK}). */
  readonly work?: number;
}

/**
 * What visiting one entry of a policy (a rule, a predicate, a list entry) counts
 * toward a slice ({@link LintWork.due}) besides what it charges: about the
 * characters such an entry takes in the source, so a slice is about as much
 * work as reading 16 KiB.
 */
export const ENTRY_UNITS = 64;

/** The default work bound of one analysis: comparisons, nodes visited, entries scanned. */
export const LINT_WORK = 5_000_000;

/**
 * The work bound of one analysis. Checks that can grow faster than the policy
 * (pairs of rules, pairs of lists) charge it and stop when it is spent; the
 * analysis then says so in one `lint_incomplete` finding instead of running on.
 */
export class LintWork {
  private used = 0;
  private stopped = false;
  /** Units charged since the last {@link due}. */
  private pending = 0;
  private readonly pace = new Pace();

  constructor(private readonly limit: number = LINT_WORK) {}

  /** Charges `n` units; false (and from then on always false) once the bound is passed. */
  charge(n: number): boolean {
    if (this.stopped) return false;
    this.used += n;
    this.pending += n;
    if (this.used > this.limit) this.stopped = true;
    return !this.stopped;
  }

  /**
   * Whether the analysis, a generator (common/slices.ts), should yield now: the
   * units charged since the last call, plus `n` done without a charge (reading,
   * visiting), filled a slice.
   */
  due(n = 0): boolean {
    const units = this.pending + n;
    this.pending = 0;
    return this.pace.spend(units);
  }

  /** Whether some check stopped early. */
  get spent(): boolean {
    return this.stopped;
  }
}

/** Builds a finding; a helper so call sites stay one line. */
export function finding(code: string, severity: LintSeverity, message: string, at: string): LintFinding {
  return { code, severity, message, at };
}

/** The finding that says the work bound stopped some checks before they finished. */
export function incomplete(limit: number): LintFinding {
  return finding(
    "lint_incomplete",
    "info",
    `the analysis stopped after ${limit} units of work: checks that compare pairs did not finish, so findings may be missing`,
    "",
  );
}

function position(at: string): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(at);
  return m === null ? [0, 0] : [Number(m[1]), Number(m[2])];
}

/** Orders findings by place in the text (unplaced first), then by code, so every run prints them alike. */
export function sortFindings(findings: readonly LintFinding[]): LintFinding[] {
  return [...findings].sort((a, b) => {
    const [la, ca] = position(a.at);
    const [lb, cb] = position(b.at);
    return la - lb || ca - cb || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
  });
}

/** Whether a finding is at or above a severity (`info` keeps everything, `warning` only warnings). */
export function atLeast(f: LintFinding, severity: LintSeverity): boolean {
  return LINT_SEVERITIES.indexOf(f.severity) >= LINT_SEVERITIES.indexOf(severity);
}
