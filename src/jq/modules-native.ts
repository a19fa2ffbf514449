/**
 * Native versions of the hot pScheduler module functions (`iso::duration_as_seconds`,
 * `si::as_integer`). Each reproduces its jq definition in modules.ts step for step,
 * including the closure semantics of the non-`$` parameter `v` (re-evaluated, with the
 * input current at that point of the jq body) and every error text.
 */
import type { Json } from "../engines/common/json.js";
import { asciiCase } from "./builtins-strings.js";
import type { Native } from "./compile.js";
import { LitNum, litStats, numberFromText } from "./litnum.js";
import { indexValue } from "./ops.js";
import { formatNumber, printCompact } from "./print.js";
import { captureAll, execTrusted, firstExec, groupNames, REGEX_MAX_INPUT } from "./regex.js";
import { trustedRegExp } from "../engines/common/regex/trusted.js";
import type { ArgInfo, Env } from "./runtime.js";
import { JqError, fail, numOf, typeOf, type JObj } from "./values.js";

/** The regex of the jq definition of `duration_as_seconds`, as jq sees it after string unescaping. */
export const DURATION_RE =
  "^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))$";
/** The regex of the jq definition of `as_integer`. */
export const SI_RE = "^(?:(?<number>[0-9]+(?:[.][0-9]+)?)(?<unit>(?:[kmgtpezy]i?)?)|(?<invalid>.*))$";

/** The number literals of `multiplier`'s table, as written in its jq definition. */
const SI_LITERALS: ReadonlyArray<[string, string]> = [
  ["", "1"],
  ["k", "1000"],
  ["m", "1000000"],
  ["g", "1000000000"],
  ["t", "1000000000000"],
  ["p", "1000000000000000"],
  ["e", "1000000000000000000"],
  ["z", "1000000000000000000000"],
  ["y", "1000000000000000000000000"],
  ["ki", "1024"],
  ["mi", "1048576"],
  ["gi", "1073741824"],
  ["ti", "1099511627776"],
  ["pi", "1125899906842624"],
  ["ei", "1152921504606846976"],
  ["zi", "1180591620717411303424"],
  ["yi", "1208925819614629174706176"],
];
/** `multiplier`'s table as jq's parser makes the object literal (literals beyond 2^53 keep their text). */
const SI_TABLE: JObj = Object.fromEntries(
  SI_LITERALS.map(([k, text]) => [k, numberFromText(text, formatNumber)]),
);
/** The same as plain doubles, for `as_integer`'s arithmetic. */
const SI_MULTIPLIERS: Readonly<Record<string, number>> = Object.fromEntries(
  SI_LITERALS.map(([k, text]) => [k, Number(text)]),
);

/** `"\(v)"`: strings as they are, anything else as `tostring` prints it. */
function interp(v: Json): string {
  return typeof v === "string" ? v : printCompact(v);
}

/** `error("<prefix>\(v)'")` with `v` run on `input`: raises at v's first output, nothing when v has none. */
function raiseWith(prefix: string, v: ArgInfo, input: Json, env: Env | null): boolean {
  return v.gen(input, env, (x) => {
    throw new JqError(`${prefix}${interp(x)}'`);
  });
}

/**
 * `tonumber` of a string the regex already checked: jq's value is the double of the trimmed text;
 * the groups read here hold digits and a point only, so there is nothing to trim.
 */
function num(s: Json | undefined, dflt: number): number {
  return s === null || s === undefined ? dflt : Number(s as string);
}

const ISO_PREFIX = "Invalid ISO 8601 duration '";
/** DURATION_RE's RegExp, made on first use and kept (no lookup by the pattern's text per call). */
let durationRx: RegExp | undefined;

const DURATION_NAMES = groupNames(DURATION_RE);
const [WEEKS, DAYS, HOURS, MINUTES, SECONDS, INVALID] = [
  "weeks",
  "days",
  "hours",
  "minutes",
  "seconds",
  "invalid",
].map((n) => DURATION_NAMES.indexOf(n) + 1);

/** The object `capture` makes of a match (named groups; all "" for an empty match). */
function captureObject(m: RegExpExecArray, names: ReadonlyArray<string | null>): JObj {
  const o: JObj = {};
  const empty = m[0].length === 0;
  for (let g = 1; g < m.length; g++) {
    const name = names[g - 1];
    if (name !== null && name !== undefined) o[name] = empty ? "" : m[g] === undefined ? null : m[g];
  }
  return o;
}

/** The index after the ASCII digits of `s` from `i`. */
function digitsEnd(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    i++;
  }
  return i;
}

/** Lower-case ASCII codes of the duration's letters (`c | 32` is the lower case of an ASCII letter). */
const L_P = 112;
const L_T = 116;
const L_W = 119;
const L_D = 100;
const L_H = 104;
const L_M = 109;
const L_S = 115;

/**
 * DURATION_RE's first alternative read by hand, for a string it matches whole (`P`, then `nW` and `nD`
 * or `nD` alone, then `T` with `nH`, `nM`, `n[.n]S`, each optional, in that order; letters of either
 * case, as after `ascii_upcase`): the seconds as the regex path sums them, in the same order. −1 for
 * anything else (the empty string, the `invalid` alternative, input past the regex's length limit),
 * which takes the regex path. The grammar has one parse, so the groups are those the regex captures.
 */
function quickDuration(s: string): number {
  const n = s.length;
  if (n === 0 || n > REGEX_MAX_INPUT || (s.charCodeAt(0) | 32) !== L_P) return -1;
  let i = 1;
  let weeks = 0;
  let days = 0;
  let hours = 0;
  let minutes = 0;
  let seconds = 0;
  let j = digitsEnd(s, i);
  if (j > i) {
    if (j === n) return -1;
    if ((s.charCodeAt(j) | 32) === L_W) {
      weeks = Number(s.slice(i, j));
      i = j + 1;
      j = digitsEnd(s, i);
      if (j === i || j === n) return -1;
    }
    if ((s.charCodeAt(j) | 32) !== L_D) return -1;
    days = Number(s.slice(i, j));
    i = j + 1;
  }
  if (i < n) {
    if ((s.charCodeAt(i) | 32) !== L_T) return -1;
    i++;
    // the next unit allowed: 0 hours, 1 minutes, 2 seconds, 3 none
    let next = 0;
    while (i < n) {
      j = digitsEnd(s, i);
      if (j === i || j === n) return -1;
      let c = s.charCodeAt(j);
      if (c === 46) {
        // `[0-9]+[.][0-9]+S`
        const k = digitsEnd(s, j + 1);
        if (k === j + 1 || k === n) return -1;
        j = k;
        c = s.charCodeAt(j) | 32;
        if (c !== L_S) return -1;
      } else c |= 32;
      const x = Number(s.slice(i, j));
      if (c === L_H && next === 0) {
        hours = x;
        next = 1;
      } else if (c === L_M && next <= 1) {
        minutes = x;
        next = 2;
      } else if (c === L_S && next <= 2) {
        seconds = x;
        next = 3;
      } else return -1;
      i = j + 1;
    }
  }
  return weeks * 604800 + days * 86400 + hours * 3600 + minutes * 60 + seconds;
}

/** `v | ascii_upcase | capture(...) | ...` for one output `y` of `v`. */
function durationOf(y: Json, v: ArgInfo, env: Env | null, emit: (x: Json) => boolean): boolean {
  const s = numOf(y);
  if (typeof s !== "string") return fail("explode input must be a string");
  // a well-formed duration needs neither the upper-cased copy nor the regex
  const quick = quickDuration(s);
  if (quick >= 0) return emit(quick);
  durationRx ??= trustedRegExp(DURATION_RE);
  const m = execTrusted(asciiCase(s, true), durationRx);
  if (m === null) return false;
  // only the empty match (all groups "") and a match of the `invalid` alternative are invalid
  if (m[0].length === 0 || m[INVALID] !== undefined)
    return raiseWith(ISO_PREFIX, v, captureObject(m, DURATION_NAMES), env);
  const secs =
    num(m[WEEKS], 0) * 604800 +
    num(m[DAYS], 0) * 86400 +
    num(m[HOURS], 0) * 3600 +
    num(m[MINUTES], 0) * 60 +
    num(m[SECONDS], 0);
  return emit(secs);
}

const durationAsSeconds: Native = {
  gen: (i, a, env, emit) => {
    const v = a[0];
    return v.gen(i, env, (t) => {
      if (typeOf(t) !== "string") return raiseWith(ISO_PREFIX, v, i, env);
      return v.gen(i, env, (y) => durationOf(y, v, env, emit));
    });
  },
};

const SI_PREFIX = "Invalid SI Number '";
const SI_NAMES = groupNames(SI_RE);
const [SI_NUMBER, SI_UNIT, SI_INVALID] = ["number", "unit", "invalid"].map((n) => SI_NAMES.indexOf(n) + 1);

/**
 * `v | ascii_downcase | capture(...) as $c | ...` for one output `y` of `v`: no
 * match gives no output; the `invalid` alternative (or an empty match, whose
 * groups all read "") raises with `v` run on the lower-cased string.
 */
function siOf(y: Json, v: ArgInfo, env: Env | null, emit: (x: Json) => boolean): boolean {
  const s = numOf(y);
  if (typeof s !== "string") return fail("explode input must be a string");
  const down = asciiCase(s, false);
  const m = firstExec(down, SI_RE);
  if (m === null) return false;
  if (m[0].length === 0 || m[SI_INVALID] !== undefined) return raiseWith(SI_PREFIX, v, down, env);
  const mult = SI_MULTIPLIERS[m[SI_UNIT] ?? ""];
  return emit(Math.floor(num(m[SI_NUMBER], 0) * mult));
}

/** `if (v|type) == "string" then ... elif (v|type) == "number" then v else invalid(v) end`, output by output. */
const siAsInteger: Native = {
  gen: (i, a, env, emit) => {
    const v = a[0];
    return v.gen(i, env, (t) => {
      if (typeOf(t) === "string") return v.gen(i, env, (y) => siOf(y, v, env, emit));
      return v.gen(i, env, (t2) =>
        typeOf(t2) === "number" ? v.gen(i, env, emit) : raiseWith(SI_PREFIX, v, i, env),
      );
    });
  },
};

/** `{...}[prefix]`: the table indexed by each output of `prefix`. */
const siMultiplier: Native = {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (k) => {
      const v = indexValue(SI_TABLE, k);
      // a literal-carrying number leaving this run: counted so the run's outputs are made plain
      if ((v as unknown) instanceof LitNum) litStats.created++;
      return emit(v);
    }),
};

/** The regex of the jq definition of `timestamp_parsed` (only the first alternative is anchored at the start). */
export const TIMESTAMP_RE =
  "^(?<year>[0-9]{4,})-(?<month>[0-9]{1,2})-(?<day>[0-9]{1,2})(?:T(?<hour>[0-9]{1,2}):(?<minute>[0-9]{1,2})(?::(?<second>[0-9]{1,2}))?(?:(?<z>Z)|(?<offset_hr>[-+][0-9]{2})(?::(?<offset_min>[0-9]{2}))?)?)?|(?<invalid>.*)$";
const TIMESTAMP_FIELDS = ["year", "month", "day", "hour", "minute", "second"] as const;

/** `tonumber` of text the regex matched (a literal-carrying number beyond 2^53, as tonumber makes). */
function digits(s: Json): Json {
  const t = s as string;
  // up to 15 characters the literal is an exact double that prints as its canonical text
  return t.length <= 15 ? Number(t) : numberFromText(t.trim(), formatNumber);
}

/**
 * `ts | capture(...) | ...` for every output of `ts`: the `invalid` alternative
 * raises `Invalid timestamp '<what it matched>'`; otherwise the fields that
 * matched, as numbers (the offset hours keep their sign, the minutes have none),
 * and `Z` reads as offsets 0 and 0.
 */
const timestampParsed: Native = {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (y) => {
      for (const c of captureAll(y, TIMESTAMP_RE, null)) {
        if (c.invalid !== null) throw new JqError(`Invalid timestamp '${interp(c.invalid)}'`);
        const o: JObj = {};
        for (const k of TIMESTAMP_FIELDS) if (c[k] !== null) o[k] = digits(c[k]);
        if (c.z !== null) {
          o.offset_hr = 0;
          o.offset_min = 0;
        } else {
          if (c.offset_hr !== null) o.offset_hr = digits(c.offset_hr);
          if (c.offset_min !== null) o.offset_min = digits(c.offset_min);
        }
        if (emit(o)) return true;
      }
      return false;
    }),
};

/** Module name → `name/arity` → native replacing the jq definition of the same name. */
export const NATIVE_MODULE_FUNCTIONS: Readonly<Record<string, Readonly<Record<string, Native>>>> = {
  "pscheduler/iso8601": { "duration_as_seconds/1": durationAsSeconds, "timestamp_parsed/1": timestampParsed },
  "pscheduler/si": { "as_integer/1": siAsInteger, "multiplier/1": siMultiplier },
};
