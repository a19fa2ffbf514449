/**
 * RegExp for the few constant patterns that ship inside Arbiter itself (the
 * pscheduler jq modules' duration, SI-number and timestamp patterns), written
 * from the Oniguruma tree so they keep jq's meaning. These are not supplied by
 * a policy or a request, and each was checked to backtrack at most linearly:
 * every optional group has one way to match (its digits must be followed by
 * its own letter), so a failed group gives back its digits once and the
 * search is anchored at the start of the text.
 */
import { javascriptSource } from "./fast-path.js";
import { parsePattern } from "./parse.js";

const compiled = new Map<string, RegExp>();

/** The RegExp for one of Arbiter's own Oniguruma patterns (a bug if it does not compile). */
export function trustedRegExp(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    const parsed = parsePattern(pattern, "onig", {});
    const js = "kind" in parsed ? null : javascriptSource(parsed);
    if (js === null) throw new Error(`built-in pattern does not compile: ${pattern}`);
    re = new RegExp(js.source, js.fold ? "iu" : "u");
    compiled.set(pattern, re);
  }
  return re;
}
