/**
 * HTCondor's string-list built-ins from its compat layer: stringListSize,
 * stringListSum/Avg/Min/Max, stringListMember/IMember, stringListSubsetMatch/
 * ISubsetMatch and stringList_regexpMember. A string list is a String cut
 * into tokens the way HTCondor's StringTokenIterator cuts it.
 */
import { ERROR, Real, UNDEF, realToInt, type Value } from "../values.js";
import { strtod, type Builtin } from "./helpers.js";
import { budgeted, compilePattern, parseOpts, searchFrom } from "./regex.js";

const C_SPACE = " \t\n\v\f\r";

/**
 * The tokens of `s`: runs between any of the `delims` characters, with C
 * whitespace trimmed from both ends and empty tokens dropped.
 */
export function stringTokens(s: string, delims: string): string[] {
  const out: string[] = [];
  const n = s.length;
  let i = 0;
  for (;;) {
    while (i < n && (delims.includes(s[i]) || C_SPACE.includes(s[i]))) i++;
    if (i >= n) return out;
    const start = i;
    let last = i;
    while (i < n && !delims.includes(s[i])) {
      if (!C_SPACE.includes(s[i])) last = i;
      i++;
    }
    out.push(s.slice(start, last + 1));
  }
}

/**
 * ASCII-only lower casing, as strcasecmp compares. A text without an upper-case
 * letter (the usual owner or host name) is itself, found without a regex; an
 * ASCII text is what `toLowerCase` gives (which lowers other letters too, so not
 * for the rest).
 */
export function asciiLower(s: string): string {
  let upper = false;
  let ascii = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 128) ascii = false;
  }
  if (!upper) return s;
  return ascii ? s.toLowerCase() : s.replace(UPPER_RUNS, lowerRun);
}

const UPPER_RUNS = /[A-Z]+/g;
const lowerRun = (m: string): string => m.toLowerCase();

const stringListSize: Builtin = (args, ad, st) => {
  if (args.length < 1 || args.length > 2) return ERROR;
  const list = args[0](ad, st);
  const delims = args.length === 2 ? args[1](ad, st) : ", ";
  if (typeof list !== "string" || typeof delims !== "string") return ERROR;
  return stringTokens(list, delims).length;
};

type Summary = "sum" | "avg" | "min" | "max";

/** FLT_MAX and FLT_MIN as doubles: the library's starting values for min and max. */
const FLT_MAX = (2 - 2 ** -23) * 2 ** 127;
const FLT_MIN = 2 ** -126;

/**
 * stringListSum/Avg/Min/Max: each token read as sscanf("%lf") reads it;
 * the result is Real when any token has a character other than a sign or a
 * digit, else the double truncated to Integer. The accumulators start where
 * the library starts them (0, FLT_MAX, FLT_MIN), so `stringListMax("-1")`
 * is 0 there and here.
 */
function summarize(kind: Summary): Builtin {
  return (args, ad, st) => {
    if (args.length < 1 || args.length > 2) return ERROR;
    const list = args[0](ad, st);
    const delims = args.length === 2 ? args[1](ad, st) : ", ";
    if (typeof list !== "string" || typeof delims !== "string") return ERROR;
    let acc = kind === "min" ? FLT_MAX : kind === "max" ? FLT_MIN : 0;
    let count = 0;
    let real = false;
    for (const token of stringTokens(list, delims)) {
      count++;
      const d = strtod(token);
      if (d === null) return ERROR;
      if (!/^[+\-0-9]*$/.test(token)) real = true;
      if (kind === "min") acc = d < acc ? d : acc;
      else if (kind === "max") acc = d > acc ? d : acc;
      else acc = d + acc;
    }
    if (count === 0) return kind === "sum" || kind === "avg" ? new Real(0) : UNDEF;
    if (kind === "avg") acc /= count;
    return real ? new Real(acc) : realToInt(acc);
  };
}

/** Lists whose token sets are kept, and the longest list kept. */
const MAX_KEPT_LISTS = 256;
const MAX_KEPT_LIST_CHARS = 1024;
/** Token sets by list text, then by delimiters and case folding: a policy's constant lists are cut once, not per evaluation. */
const keptSets = new Map<string, { delims: string; fold: boolean; items: ReadonlySet<string> }[]>();

/** The tokens of `list` as a set (lower-cased when `fold`), kept for lists seen again. */
function tokenSet(list: string, delims: string, fold: boolean): ReadonlySet<string> {
  const kept = keptSets.get(list);
  if (kept !== undefined) for (const k of kept) if (k.fold === fold && k.delims === delims) return k.items;
  const tokens = stringTokens(list, delims);
  const items = new Set(fold ? tokens.map(asciiLower) : tokens);
  if (list.length > MAX_KEPT_LIST_CHARS) return items;
  if (kept !== undefined) {
    if (kept.length < 4) kept.push({ delims, fold, items });
    return items;
  }
  // bounded: the oldest list goes first (lists a request writes must not grow this forever)
  if (keptSets.size >= MAX_KEPT_LISTS) keptSets.delete(keptSets.keys().next().value as string);
  keptSets.set(list, [{ delims, fold, items }]);
  return items;
}

/**
 * stringListMember, stringListIMember, stringListSubsetMatch and
 * stringListISubsetMatch: every argument String or UNDEFINED (else ERROR);
 * both first arguments UNDEFINED is UNDEFINED, otherwise UNDEFINED reads as
 * "" (and as the default delimiters for the third).
 */
function stringList(fold: boolean, subset: boolean): Builtin {
  return (args, ad, st) => {
    if (args.length < 2 || args.length > 3) return ERROR;
    const vals: Value[] = [];
    for (const a of args) vals.push(a(ad, st));
    for (const v of vals) if (v !== UNDEF && typeof v !== "string") return ERROR;
    if (vals[0] === UNDEF && vals[1] === UNDEF) return UNDEF;
    const item = vals[0] === UNDEF ? "" : (vals[0] as string);
    const list = vals[1] === UNDEF ? "" : (vals[1] as string);
    const delims = vals.length === 3 && vals[2] !== UNDEF ? (vals[2] as string) : ", \t\r\n";
    const norm = fold ? asciiLower : (x: string) => x;
    const items = tokenSet(list, delims, fold);
    if (!subset) return items.has(norm(item));
    if (item === "") return true;
    let rc = false;
    for (const x of stringTokens(item, delims)) {
      rc = items.has(norm(x));
      if (!rc) break;
    }
    return rc;
  };
}

/**
 * stringList_regexpMember(pattern, list[, delims[, options]]): all Strings
 * (else ERROR); an invalid pattern is ERROR; true when some token matches,
 * UNDEFINED when the list has no token. Option letters count in either case.
 */
const stringListRegexpMember: Builtin = (args, ad, st) => {
  if (args.length < 2 || args.length > 4) return ERROR;
  const pattern = args[0](ad, st);
  const list = args[1](ad, st);
  const delims = args.length >= 3 ? args[2](ad, st) : ", ";
  const options = args.length === 4 ? args[3](ad, st) : "";
  if (
    typeof pattern !== "string" ||
    typeof list !== "string" ||
    typeof delims !== "string" ||
    typeof options !== "string"
  ) {
    return ERROR;
  }
  const re = compilePattern(pattern, parseOpts(asciiLower(options), false));
  if (re === null) return ERROR;
  const tokens = stringTokens(list, delims);
  if (tokens.length === 0) return UNDEF;
  return tokens.some((t) => searchFrom(re, t, 0) !== null);
};

/** The string-list built-ins by lower-cased name. */
export const STRING_LISTS: ReadonlyArray<readonly [string, Builtin]> = [
  ["stringlistsize", stringListSize],
  ["stringlistsum", summarize("sum")],
  ["stringlistavg", summarize("avg")],
  ["stringlistmin", summarize("min")],
  ["stringlistmax", summarize("max")],
  ["stringlistmember", stringList(false, false)],
  ["stringlistimember", stringList(true, false)],
  ["stringlistsubsetmatch", stringList(false, true)],
  ["stringlistisubsetmatch", stringList(true, true)],
  ["stringlist_regexpmember", budgeted(stringListRegexpMember)],
];
