/**
 * pScheduler's StringMatch: exact, contains or regex (unanchored search), with
 * optional case-insensitivity and inversion, compiled once into a predicate.
 */
import { compileLinear, describeProblem, type LinearRegex } from "./regex/index.js";
import { err, ok, type Result } from "./result.js";

/** The StringMatch object as written in a policy (already shape-checked). */
export interface StringMatchSpec {
  readonly style: "exact" | "contains" | "regex";
  readonly match: string;
  readonly "case-insensitive"?: boolean;
  readonly invert?: boolean;
}

/** A compiled StringMatch. */
export type StringMatcher = (value: string) => boolean;

/**
 * Compiles a StringMatch so the hot path is one call. Regexes are Python `re`
 * syntax (`re.search`, `re.IGNORECASE`), run by the linear-time matcher; one
 * Python would not compile, or that needs backtracking (back-references,
 * look-arounds the matcher cannot table), is a load error
 * `Invalid regular expression: <Python's message> at position N`.
 */
export function compileStringMatch(spec: StringMatchSpec): Result<StringMatcher, string> {
  const insensitive = spec["case-insensitive"] === true;
  const invert = spec.invert === true;
  let base: StringMatcher;
  if (spec.style === "regex") {
    const r = compileLinear(spec.match, "python", { i: insensitive });
    if (!r.ok) return err(`Invalid regular expression: ${describeProblem("python", r.error, spec.match)}`);
    const re: LinearRegex = r.value;
    base = (v) => re.test(v);
  } else {
    const target = insensitive ? spec.match.toLowerCase() : spec.match;
    const norm = insensitive ? (v: string) => v.toLowerCase() : (v: string) => v;
    base = spec.style === "exact" ? (v) => norm(v) === target : (v) => norm(v).includes(target);
  }
  return ok(invert ? (v) => !base(v) : base);
}
