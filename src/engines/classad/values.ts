/**
 * ClassAd runtime values. Integers are JS numbers while they fit the safe
 * range and bigints beyond it (always normalised, so one integer has one
 * representation); booleans and strings are JS primitives; everything else is
 * a small class so `instanceof` and `typeof` tell the types apart cheaply.
 */
import type { ClassAd } from "./classad.js";
import type { Compiled } from "./node.js";
import type { EvalState } from "./state.js";

/** The UNDEFINED value (a singleton). */
export class UndefinedValue {
  readonly kind = "undefined";
}
/** The ERROR value (a singleton). */
export class ErrorValue {
  readonly kind = "error";
}
export const UNDEF = new UndefinedValue();
export const ERROR = new ErrorValue();

/** An IEEE double, boxed so it is never confused with an Integer. */
export class Real {
  constructor(readonly v: number) {}
}

/** Seconds since the epoch plus the UTC offset the value is shown in. */
export class AbsTime {
  readonly secs: number;
  readonly offset: number;
  /** Seconds and offset are kept whole and finite (NaN and infinities read as 0), as a C integer would hold them. */
  constructor(secs: number, offset: number) {
    this.secs = Number.isFinite(secs) ? Math.trunc(secs) + 0 : 0;
    this.offset = Number.isFinite(offset) ? Math.trunc(offset) + 0 : 0;
  }
}

/** A duration in seconds (may carry a fraction). */
export class RelTime {
  constructor(readonly secs: number) {}
}

/**
 * A list keeps its element expressions (they unparse as written) and the ad
 * they are evaluated in; values are computed on first use.
 */
export class ListValue {
  private vals: (Value | undefined)[] | null = null;
  constructor(
    readonly exprs: readonly Compiled[],
    readonly scope: ClassAd,
  ) {}
  get length(): number {
    return this.exprs.length;
  }
  /** The value of element i, evaluated in the list's scope the first time. */
  at(i: number, st: EvalState): Value {
    if (this.vals === null) this.vals = new Array<Value | undefined>(this.exprs.length);
    let v = this.vals[i];
    if (v === undefined) {
      // two units of the decision's work budget per element evaluated (evaluating it, and the
      // built-in's work on it, like member()'s comparison); a spent budget makes it ERROR
      v = st.spend(2) ? this.exprs[i].ev(this.scope, st) : ERROR;
      this.vals[i] = v;
    }
    return v;
  }
}

/** Every ClassAd value. */
export type Value =
  | number
  | bigint
  | boolean
  | string
  | Real
  | AbsTime
  | RelTime
  | ListValue
  | ClassAd
  | UndefinedValue
  | ErrorValue;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Brings a bigint back into int64 range and to a number when it is safe. */
export function normInt(b: bigint): number | bigint {
  const w = BigInt.asIntN(64, b);
  if (w >= -9007199254740991n && w <= 9007199254740991n) return Number(w);
  return w;
}

/** True for Integer values. */
export function isInt(v: Value): v is number | bigint {
  return typeof v === "number" || typeof v === "bigint";
}

/** An integer as a bigint, for the slow exact paths. */
export function big(v: number | bigint): bigint {
  return typeof v === "bigint" ? v : BigInt(v);
}

/**
 * Converts a double to Integer the way the library does: NaN, infinities and
 * values outside int64 become INT64_MIN, otherwise truncation toward zero.
 */
export function realToInt(d: number): number | bigint {
  if (!Number.isFinite(d) || d >= 9223372036854775808 || d < -9223372036854775808) return INT64_MIN;
  const t = Math.trunc(d) + 0;
  if (Number.isSafeInteger(t)) return t;
  return normInt(BigInt(t));
}

/** An Integer as a double. */
export function intToReal(v: number | bigint): number {
  return typeof v === "number" ? v : Number(v);
}

/** The type name reported to clients. */
export function typeName(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return "integer";
    case "boolean":
      return "boolean";
    case "string":
      return "string";
  }
  if (v instanceof Real) return "real";
  if (v === UNDEF) return "undefined";
  if (v === ERROR) return "error";
  if (v instanceof ListValue) return "list";
  if (v instanceof AbsTime) return "abstime";
  if (v instanceof RelTime) return "reltime";
  return "classad";
}

/**
 * Boolean-equivalent truth: Boolean as is, numbers non-zero; null for values
 * that are not Boolean-equivalent (strings, lists, ads, time, exceptional).
 */
export function truth(v: Value): boolean | null {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "bigint") return v !== 0n;
  if (v instanceof Real) return v.v !== 0;
  return null;
}

/** The numeric value of an Integer, Real or Boolean (0/1), else null. */
export function numberOf(v: Value): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Real) return v.v;
  if (typeof v === "bigint") return Number(v);
  return null;
}
