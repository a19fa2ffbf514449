/**
 * Shared pieces of the built-in functions: the function signature, eager
 * argument evaluation, and the library's to-string and to-number conversions.
 */
import type { ClassAd } from "../classad.js";
import type { EvalFn, Node } from "../node.js";
import type { EvalState } from "../state.js";
import { absTimeBody, relTimeBody } from "../time.js";
import { unparseValue } from "../unparse.js";
import { AbsTime, ERROR, Real, RelTime, UNDEF, intToReal, realToInt, type Value } from "../values.js";

/** A built-in: argument closures (evaluated as the function chooses), the current ad, the state. */
export type Builtin = (args: readonly EvalFn[], ad: ClassAd, st: EvalState, nodes: readonly Node[]) => Value;

/** Evaluates every argument left to right. */
export function evalAll(args: readonly EvalFn[], ad: ClassAd, st: EvalState): Value[] {
  const out = new Array<Value>(args.length);
  for (let i = 0; i < args.length; i++) out[i] = args[i](ad, st);
  return out;
}

/** The default strictness: ERROR if any argument is ERROR, else UNDEFINED if any is UNDEFINED, else null. */
export function strictArgs(vals: readonly Value[]): Value | null {
  for (const v of vals) if (v === ERROR) return ERROR;
  for (const v of vals) if (v === UNDEF) return UNDEF;
  return null;
}

/** Wraps a function of evaluated arguments with an exact argument count range and default strictness. */
export function eager(
  min: number,
  max: number,
  fn: (vals: Value[], st: EvalState, ad: ClassAd) => Value,
): Builtin {
  return (args, ad, st) => {
    if (args.length < min || args.length > max) return ERROR;
    const vals = evalAll(args, ad, st);
    const s = strictArgs(vals);
    if (s !== null) return s;
    return fn(vals, st, ad);
  };
}

/** To-string conversion: strings as is, other values unparsed, time without its wrapper; null for UNDEFINED/ERROR. */
export function toStr(v: Value): string | null {
  if (typeof v === "string") return v;
  if (v === UNDEF || v === ERROR) return null;
  if (v instanceof AbsTime) return absTimeBody(v);
  if (v instanceof RelTime) return relTimeBody(v.secs);
  return unparseValue(v);
}

const STRTOD =
  /^[ \t\n\v\f\r]*([+-]?(?:inf(?:inity)?|nan(?:\([0-9a-z_]*\))?|0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?\d+)?|(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?))/i;

/** C strtod: the longest numeric prefix after leading whitespace, or null when there is none. */
export function strtod(s: string): number | null {
  const m = STRTOD.exec(s);
  if (m === null) return null;
  let t = m[1];
  let sign = 1;
  if (t[0] === "+" || t[0] === "-") {
    if (t[0] === "-") sign = -1;
    t = t.slice(1);
  }
  const l = t.toLowerCase();
  if (l.startsWith("inf")) return sign * Infinity;
  if (l.startsWith("nan")) return NaN;
  if (l.startsWith("0x")) {
    const hm = /^0x([0-9a-f]*)\.?([0-9a-f]*)(?:p([+-]?\d+))?$/i.exec(t);
    if (hm === null) return null;
    let v = hm[1] ? parseInt(hm[1], 16) : 0;
    for (let i = 0; i < hm[2].length; i++) v += parseInt(hm[2][i], 16) / 16 ** (i + 1);
    if (hm[3]) v *= 2 ** parseInt(hm[3], 10);
    return sign * v;
  }
  return sign * Number(t);
}

/** To-real conversion (strings via strtod); UNDEF/ERROR returned as values when it fails. */
export function toReal(v: Value): number | Value {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Real) return v.v;
  if (v instanceof AbsTime) return v.secs;
  if (v instanceof RelTime) return v.secs;
  if (typeof v === "string") {
    const d = strtod(v);
    return d === null ? ERROR : d;
  }
  if (v === UNDEF) return UNDEF;
  return ERROR;
}

/** To-integer conversion as int() does it. */
export function toInt(v: Value): Value {
  if (typeof v === "number" || typeof v === "bigint") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Real) return realToInt(v.v);
  if (v instanceof AbsTime) return realToInt(v.secs);
  if (v instanceof RelTime) return realToInt(v.secs);
  if (typeof v === "string") {
    const d = strtod(v);
    return d === null ? ERROR : realToInt(d);
  }
  if (v === UNDEF) return UNDEF;
  return ERROR;
}

/** An Integer or Real as a double, else null. */
export function numOrNull(v: Value): number | null {
  if (typeof v === "number" || typeof v === "bigint") return intToReal(v);
  if (v instanceof Real) return v.v;
  return null;
}
