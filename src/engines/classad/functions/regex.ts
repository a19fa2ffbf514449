/**
 * Regular-expression built-ins (regexp, regexpMember, regexps, replace,
 * replaceAll) with PCRE-style options translated to JS RegExp; compiled
 * patterns are cached by pattern and flags.
 */
import { ERROR, ListValue, UNDEF, type Value } from "../values.js";
import type { Builtin } from "./helpers.js";
import { stripExtended } from "../../common/regex-extended.js";

/** Parsed regex options. */
export interface Opts {
  flags: string;
  extended: boolean;
  full: boolean;
  all: boolean;
}

/** Reads the library's option letters (i m s x; f g for substitutions), ignoring others. */
export function parseOpts(o: string | null, subst: boolean): Opts {
  const s = o ?? "";
  let flags = "";
  if (s.includes("i")) flags += "i";
  if (s.includes("m")) flags += "m";
  if (s.includes("s")) flags += "s";
  return { flags, extended: s.includes("x"), full: subst && s.includes("f"), all: subst && s.includes("g") };
}

/** Translates the PCRE-only escapes JS lacks (\A, \z, \Z). */
function translate(p: string): string {
  return p.replace(/\\\\|\\A|\\z|\\Z/g, (m) => (m === "\\A" ? "(?<![\\s\\S])" : m === "\\z" ? "(?![\\s\\S])" : m === "\\Z" ? "(?=\\n?(?![\\s\\S]))" : m));
}

const cache = new Map<string, RegExp | null>();

/** The compiled pattern (global, for positional search), or null when it does not compile. */
export function compilePattern(pattern: string, o: Opts): RegExp | null {
  const key = o.flags + (o.extended ? "x" : "") + "\u0000" + pattern;
  let re = cache.get(key);
  if (re === undefined) {
    try {
      re = new RegExp(translate(o.extended ? stripExtended(pattern) : pattern), o.flags + "g");
    } catch {
      re = null;
    }
    if (cache.size > 500) cache.clear();
    cache.set(key, re);
  }
  return re;
}

function execAt(re: RegExp, s: string, idx: number, anchoredNonEmpty: boolean): RegExpExecArray | null {
  re.lastIndex = idx;
  const m = re.exec(s);
  if (m === null) return null;
  if (anchoredNonEmpty && (m.index !== idx || m[0] === "")) return null;
  return m;
}

/** The first match of `re` in `s` at or after `from` (an unanchored search), or null. */
export function searchFrom(re: RegExp, s: string, from: number): RegExpExecArray | null {
  return execAt(re, s, from, false);
}

/** regexps/replace/replaceAll substitution; ERROR as the library gives it. */
function substitute(re: RegExp, target: string, replace: string, o: Opts): Value {
  let out = "";
  let idx = 0;
  let empty = false;
  let matched: boolean;
  do {
    if (idx > target.length) return ERROR;
    const m = execAt(re, target, idx, empty);
    if (empty && m === null) {
      out += target[idx] ?? "\u0000";
      idx++;
      empty = false;
      matched = true;
      continue;
    }
    matched = m !== null;
    if (m !== null) {
      let ngroups = m.length;
      while (ngroups > 1 && m[ngroups - 1] === undefined) ngroups--;
      if (o.full) out += target.slice(idx, m.index);
      for (let i = 0; i < replace.length; i++) {
        const c = replace[i];
        if (c === "\\") {
          const d = replace.charCodeAt(i + 1);
          if (d >= 48 && d <= 57) {
            const g = d - 48;
            i++;
            if (g >= ngroups) return ERROR;
            out += m[g] ?? "";
          } else out += "\\";
        } else out += c;
      }
      idx = m.index + m[0].length;
      if (m[0] === "") empty = true;
    }
  } while (matched && o.all);
  if (o.full) out += target.slice(idx);
  return out;
}

function args3(vals: Value[], n: number): Value | null {
  for (const v of vals) if (v === ERROR) return ERROR;
  for (const v of vals) if (v === UNDEF) return UNDEF;
  if (vals.length > n && typeof vals[n] !== "string") return ERROR;
  return null;
}

const regexp: Builtin = (args, ad, st) => {
  if (args.length !== 2 && args.length !== 3) return ERROR;
  const vals = args.map((a) => a(ad, st));
  const bad = args3(vals, 2);
  if (bad !== null) return bad;
  const [p, s] = vals;
  if (typeof p !== "string" || typeof s !== "string") return ERROR;
  const re = compilePattern(p, parseOpts((vals[2] as string | undefined) ?? null, false));
  if (re === null) return ERROR;
  return execAt(re, s, 0, false) !== null;
};

const regexpMember: Builtin = (args, ad, st) => {
  if (args.length !== 2 && args.length !== 3) return ERROR;
  const vals = args.map((a) => a(ad, st));
  const bad = args3(vals, 2);
  if (bad !== null) return bad;
  const [p, l] = vals;
  if (typeof p !== "string" || !(l instanceof ListValue)) return ERROR;
  const re = compilePattern(p, parseOpts((vals[2] as string | undefined) ?? null, false));
  let maybe = false;
  for (let i = 0; i < l.length; i++) {
    const e = l.at(i, st);
    if (typeof e !== "string") {
      if (e === UNDEF) maybe = true;
      else return ERROR;
    } else if (re !== null && execAt(re, e, 0, false) !== null) return true;
  }
  return maybe ? UNDEF : false;
};

function subst(extra: string): Builtin {
  return (args, ad, st) => {
    if (args.length !== 3 && args.length !== 4) return ERROR;
    const vals = args.map((a) => a(ad, st));
    const bad = args3(vals, 3);
    if (bad !== null) return bad;
    const [p, s, r] = vals;
    if (typeof p !== "string" || typeof s !== "string" || typeof r !== "string") return ERROR;
    const o = parseOpts(((vals[3] as string | undefined) ?? "") + extra, true);
    const re = compilePattern(p, o);
    if (re === null) return ERROR;
    return substitute(re, s, r, o);
  };
}

/** The regular-expression built-ins by lower-cased name. */
export const REGEX: ReadonlyArray<readonly [string, Builtin]> = [
  ["regexp", regexp],
  ["regexpmember", regexpMember],
  ["regexps", subst("")],
  ["replace", subst("f")],
  ["replaceall", subst("fg")],
];
