/**
 * HTCondor's string splitters from its compat layer: split (any separator
 * characters), splitUserName (user@domain) and splitSlotName (slot@machine).
 * Each returns a list of Strings.
 */
import { EMPTY_AD, literal } from "../classad.js";
import { ERROR, ListValue, type Value } from "../values.js";
import type { Builtin } from "./helpers.js";

const C_SPACE = " \t\n\v\f\r";

/** A list value of string literals. */
function stringList(items: readonly string[]): Value {
  return new ListValue(
    items.map((s) => literal(s)),
    EMPTY_AD,
  );
}

/**
 * Cuts `s` at every character of `seps`, dropping the empty pieces, except
 * that a separator repeating the last non-space separator seen yields an
 * empty item: `"a,,b"` is three items, `"a, b"` and `"a ,b"` two.
 */
export function splitArbitrary(s: string, seps: string): string[] {
  const out: string[] = [];
  let last = 0;
  if (seps.length > 0) {
    let prev = "";
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (!seps.includes(c)) continue;
      if (i > last) out.push(s.slice(last, i));
      else if (prev !== "" && !C_SPACE.includes(prev) && prev === c) out.push("");
      if (!C_SPACE.includes(c)) prev = c;
      last = i + 1;
    }
  }
  if (s.length > last) out.push(s.slice(last));
  return out;
}

/** split(s[, seps]): both Strings (else ERROR); default separators comma, space and tab. */
const split: Builtin = (args, ad, st) => {
  if (args.length !== 1 && args.length !== 2) return ERROR;
  const s = args[0](ad, st);
  const seps = args.length === 2 ? args[1](ad, st) : ", \t";
  if (typeof s !== "string" || typeof seps !== "string") return ERROR;
  return stringList(splitArbitrary(s, seps));
};

/**
 * splitUserName / splitSlotName: two Strings, before and after the first
 * `@`; without one, the whole string is the user (the first item) or the
 * machine (the second item).
 */
function splitAt(slot: boolean): Builtin {
  return (args, ad, st) => {
    if (args.length !== 1) return ERROR;
    const s = args[0](ad, st);
    if (typeof s !== "string") return ERROR;
    const at = s.indexOf("@");
    if (at < 0) return stringList(slot ? ["", s] : [s, ""]);
    return stringList([s.slice(0, at), s.slice(at + 1)]);
  };
}

/** The splitting built-ins by lower-cased name. */
export const SPLIT: ReadonlyArray<readonly [string, Builtin]> = [
  ["split", split],
  ["splitusername", splitAt(false)],
  ["splitslotname", splitAt(true)],
];
