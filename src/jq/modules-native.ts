/**
 * Native versions of the hot pScheduler module functions (`iso::duration_as_seconds`,
 * `si::as_integer`). Each reproduces its jq definition in modules.ts step for step,
 * including the closure semantics of the non-`$` parameter `v` (re-evaluated, with the
 * input current at that point of the jq body) and every error text.
 */
import type { Json } from "../engines/common/json.js";
import { asciiCase } from "./builtins-strings.js";
import type { Native } from "./compile.js";
import { printCompact } from "./print.js";
import { firstExec, groupNames } from "./regex.js";
import type { ArgInfo, Env } from "./runtime.js";
import { JqError, fail, numOf, typeOf, type JObj } from "./values.js";

/** The regex of the jq definition of `duration_as_seconds`, as jq sees it after string unescaping. */
export const DURATION_RE =
  "^P(?:(?<weeks>[0-9]+)W(?=[0-9]+D))?(?:(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:\\.[0-9]*)?)S)?)?$|^(?<invalid>.*)$";
/** The regex of the jq definition of `as_integer`. */
export const SI_RE = "^(?<n>[0-9]+(?:\\.[0-9]+)?)(?<u>[kmgtpezy]i?)?$";

const SI_MULTIPLIERS: Readonly<Record<string, number>> = {
  k: 1000, m: 1000000, g: 1000000000, t: 1000000000000, p: 1000000000000000,
  e: 1000000000000000000, z: 1000000000000000000000, y: 1000000000000000000000000,
  ki: 1024, mi: 1048576, gi: 1073741824, ti: 1099511627776, pi: 1125899906842624,
  ei: 1152921504606846976, zi: 1180591620717411303424, yi: 1208925819614629174706176,
};

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

/** `tonumber` of a string the regex already checked: jq's value is the double of the trimmed text. */
function num(s: Json | undefined, dflt: number): number {
  return s === null || s === undefined ? dflt : Number((s as string).trim());
}

const ISO_PREFIX = "Invalid ISO 8601 duration '";

const DURATION_NAMES = groupNames(DURATION_RE);
const [WEEKS, DAYS, HOURS, MINUTES, SECONDS, INVALID] = ["weeks", "days", "hours", "minutes", "seconds", "invalid"].map(
  (n) => DURATION_NAMES.indexOf(n) + 1,
);

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

/** `v | ascii_upcase | capture(...) | ...` for one output `y` of `v`. */
function durationOf(y: Json, v: ArgInfo, env: Env | null, emit: (x: Json) => boolean): boolean {
  const s = numOf(y);
  if (typeof s !== "string") return fail("explode input must be a string");
  const m = firstExec(asciiCase(s, true), DURATION_RE);
  if (m === null) return false;
  // only the empty match (all groups "") and a match of the `invalid` alternative are invalid
  if (m[0].length === 0 || m[INVALID] !== undefined) return raiseWith(ISO_PREFIX, v, captureObject(m, DURATION_NAMES), env);
  const secs = num(m[WEEKS], 0) * 604800 + num(m[DAYS], 0) * 86400 + num(m[HOURS], 0) * 3600 + num(m[MINUTES], 0) * 60 + num(m[SECONDS], 0);
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
const SI_N = SI_NAMES.indexOf("n") + 1;
const SI_U = SI_NAMES.indexOf("u") + 1;

/** `v | ascii_downcase | ([capture(...)] | .[0]) as $m | ...` for one output `y` of `v`. */
function siOf(y: Json, v: ArgInfo, env: Env | null, emit: (x: Json) => boolean): boolean {
  const s = numOf(y);
  if (typeof s !== "string") return fail("explode input must be a string");
  const down = asciiCase(s, false);
  const m = firstExec(down, SI_RE);
  if (m === null) return raiseWith(SI_PREFIX, v, down, env);
  // the pattern cannot match the empty string, so groups are as matched
  const u = m[SI_U];
  const mult = u === undefined ? 1 : SI_MULTIPLIERS[u];
  return emit(Math.floor(num(m[SI_N], 0) * mult));
}

const siAsInteger: Native = {
  gen: (i, a, env, emit) => {
    const v = a[0];
    return v.gen(i, env, (t) => {
      const type = typeOf(t);
      if (type === "number") return v.gen(i, env, emit);
      return v.gen(i, env, (t2) => {
        if (typeOf(t2) !== "string") return raiseWith(SI_PREFIX, v, i, env);
        return v.gen(i, env, (y) => siOf(y, v, env, emit));
      });
    });
  },
};

/** Module name → `name/arity` → native replacing the jq definition of the same name. */
export const NATIVE_MODULE_FUNCTIONS: Readonly<Record<string, Readonly<Record<string, Native>>>> = {
  "pscheduler/iso8601": { "duration_as_seconds/1": durationAsSeconds },
  "pscheduler/si": { "as_integer/1": siAsInteger },
};
