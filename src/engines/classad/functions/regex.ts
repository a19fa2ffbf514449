/**
 * Regular-expression built-ins (regexp, regexpMember, regexps, replace,
 * replaceAll) on the linear-time matcher with PCRE syntax and options; a
 * pattern that does not compile, or needs backtracking, is ERROR. Compiled
 * patterns are cached (bounded LRU) by pattern and options.
 */
import { ERROR, ListValue, UNDEF, type Value } from "../values.js";
import type { Builtin } from "./helpers.js";
import { cachedLinear, type LinearRegex } from "../../common/regex/index.js";
import { BudgetExceeded } from "../../common/budget.js";

/**
 * A regex built-in whose matching work is charged to the decision's budget:
 * when that is spent part-way through a match, the call is ERROR (as ClassAd
 * reports every evaluation problem), not an exception.
 */
export function budgeted(b: Builtin): Builtin {
  return (args, ad, st, nodes) => {
    try {
      return b(args, ad, st, nodes);
    } catch (e) {
      if (e instanceof BudgetExceeded) return ERROR;
      throw e;
    }
  };
}

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

/** The compiled pattern, or null when it does not compile (or needs backtracking, which the matcher refuses). */
export function compilePattern(pattern: string, o: Opts): LinearRegex | null {
  const r = cachedLinear(pattern, "pcre", {
    i: o.flags.includes("i"),
    m: o.flags.includes("m"),
    s: o.flags.includes("s"),
    x: o.extended,
  });
  return r.ok ? r.value : null;
}

function execAt(re: LinearRegex, s: string, idx: number, anchoredNonEmpty: boolean): Int32Array | null {
  const m = re.exec(s, idx);
  if (m === null) return null;
  if (anchoredNonEmpty && (m[0] !== idx || m[1] === m[0])) return null;
  return m;
}

/** The first match of `re` in `s` at or after `from` (an unanchored search) in RegExp's shape, or null. */
export function searchFrom(re: LinearRegex, s: string, from: number): RegExpExecArray | null {
  return re.match(s, from);
}

/** regexps/replace/replaceAll substitution; ERROR as the library gives it. */
function substitute(re: LinearRegex, target: string, replace: string, o: Opts): Value {
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
      let ngroups = re.groups + 1;
      while (ngroups > 1 && m[2 * (ngroups - 1)] < 0) ngroups--;
      if (o.full) out += target.slice(idx, m[0]);
      for (let i = 0; i < replace.length; i++) {
        const c = replace[i];
        if (c === "\\") {
          const d = replace.charCodeAt(i + 1);
          if (d >= 48 && d <= 57) {
            const g = d - 48;
            i++;
            if (g >= ngroups) return ERROR;
            if (m[2 * g] >= 0) out += target.slice(m[2 * g], m[2 * g + 1]);
          } else out += "\\";
        } else out += c;
      }
      idx = m[1];
      if (m[1] === m[0]) empty = true;
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
  return re.test(s);
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
    } else if (re !== null && re.test(e)) return true;
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
  ["regexp", budgeted(regexp)],
  ["regexpmember", budgeted(regexpMember)],
  ["regexps", budgeted(subst(""))],
  ["replace", budgeted(subst("f"))],
  ["replaceall", budgeted(subst("fg"))],
];
