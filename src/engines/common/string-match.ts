/**
 * pScheduler's StringMatch: exact, contains or regex (unanchored search), with
 * optional case-insensitivity and inversion, compiled once into a predicate.
 */
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
 * Compiles a StringMatch so the hot path is one call; a regex that JavaScript
 * cannot compile is a load error `Invalid regular expression: <msg>`.
 */
export function compileStringMatch(spec: StringMatchSpec): Result<StringMatcher, string> {
  const insensitive = spec["case-insensitive"] === true;
  const invert = spec.invert === true;
  let base: StringMatcher;
  if (spec.style === "regex") {
    let re: RegExp;
    try {
      re = new RegExp(spec.match, insensitive ? "iu" : "u");
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      return err(msg.startsWith("Invalid regular expression") ? msg : `Invalid regular expression: ${msg}`);
    }
    base = (v) => re.test(v);
  } else {
    const target = insensitive ? spec.match.toLowerCase() : spec.match;
    const norm = insensitive ? (v: string) => v.toLowerCase() : (v: string) => v;
    base = spec.style === "exact" ? (v) => norm(v) === target : (v) => norm(v).includes(target);
  }
  return ok(invert ? (v) => !base(v) : base);
}
