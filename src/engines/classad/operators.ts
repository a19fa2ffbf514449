/**
 * Operator semantics: comparisons with numeric promotion and case-folded
 * strings, the meta (identity) comparisons, 64-bit integer arithmetic with a
 * fast path that leaves JS numbers only on overflow, real and time
 * arithmetic, and the bitwise operators.
 */
import { ClassAd } from "./classad.js";
import { cInt32 } from "./time.js";
import {
  AbsTime,
  ERROR,
  INT64_MIN,
  ListValue,
  Real,
  RelTime,
  UNDEF,
  big,
  intToReal,
  isInt,
  normInt,
  typeName,
  type Value,
} from "./values.js";

/** ASCII-only case folding of one char code. */
function fold(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

/** strcasecmp: byte-wise with ASCII case folding; returns <0, 0, >0. */
export function cmpFold(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const d = fold(x) - fold(y);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/** Case-insensitive (ASCII) string equality. */
export function eqFold(a: string, b: string): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y && fold(x) !== fold(y)) return false;
  }
  return true;
}

/** strcmp: byte-wise; returns <0, 0, >0. */
export function cmpBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type CmpOp = "<" | "<=" | ">" | ">=" | "==" | "!=";

function cmpResult(op: CmpOp, c: number): boolean {
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case ">":
      return c > 0;
    case ">=":
      return c >= 0;
    case "==":
      return c === 0;
    case "!=":
      return c !== 0;
  }
}

function numCompare(op: CmpOp, x: number | bigint, y: number | bigint): boolean {
  switch (op) {
    case "<":
      return x < y;
    case "<=":
      return x <= y;
    case ">":
      return x > y;
    case ">=":
      return x >= y;
    case "==":
      return x == y;
    case "!=":
      return x != y;
  }
}

/** A strict comparison operator on any two values. */
export function compare(op: CmpOp, a: Value, b: Value): Value {
  if (a === ERROR || b === ERROR) return ERROR;
  if (a === UNDEF || b === UNDEF) return UNDEF;
  if (a instanceof ClassAd || b instanceof ClassAd || a instanceof ListValue || b instanceof ListValue)
    return ERROR;
  if (typeof a === "string" || typeof b === "string") {
    if (typeof a !== "string" || typeof b !== "string") return ERROR;
    return cmpResult(op, cmpFold(a, b));
  }
  if (a instanceof AbsTime || b instanceof AbsTime) {
    if (!(a instanceof AbsTime && b instanceof AbsTime)) return ERROR;
    return numCompare(op, a.secs, b.secs);
  }
  if (a instanceof RelTime || b instanceof RelTime) {
    if (!(a instanceof RelTime && b instanceof RelTime)) return ERROR;
    return numCompare(op, a.secs, b.secs);
  }
  const x = typeof a === "boolean" ? (a ? 1 : 0) : a;
  const y = typeof b === "boolean" ? (b ? 1 : 0) : b;
  if (isInt(x) && isInt(y)) return numCompare(op, x, y);
  const rx = x instanceof Real ? x.v : intToReal(x as number | bigint);
  const ry = y instanceof Real ? y.v : intToReal(y as number | bigint);
  return numCompare(op, rx, ry);
}

/** `=?=`: same type and same value (never UNDEFINED; lists and ads give ERROR). */
export function metaEqual(a: Value, b: Value): Value {
  const ta = typeName(a);
  if (ta !== typeName(b)) return false;
  switch (ta) {
    case "undefined":
    case "error":
      return true;
    case "string":
      return a === b;
    case "integer":
      return (a as number | bigint) == (b as number | bigint);
    case "real":
      return (a as Real).v === (b as Real).v;
    case "boolean":
      return a === b;
    case "abstime":
      return (a as AbsTime).secs === (b as AbsTime).secs && (a as AbsTime).offset === (b as AbsTime).offset;
    case "reltime":
      return (a as RelTime).secs === (b as RelTime).secs;
    default:
      return ERROR;
  }
}

/** `=!=`: the negation of `=?=` (ERROR stays ERROR). */
export function metaNotEqual(a: Value, b: Value): Value {
  const r = metaEqual(a, b);
  return r === ERROR ? ERROR : !r;
}

export type ArithOp = "+" | "-" | "*" | "/" | "%";

/** Integer arithmetic, exact and wrapping modulo 2^64. */
export function intArith(op: ArithOp, x: number | bigint, y: number | bigint): Value {
  if (typeof x === "number" && typeof y === "number") {
    let r: number;
    switch (op) {
      case "+":
        r = x + y;
        if (Number.isSafeInteger(r)) return r;
        break;
      case "-":
        r = x - y;
        if (Number.isSafeInteger(r)) return r;
        break;
      case "*":
        r = x * y;
        if (Number.isSafeInteger(r)) return r + 0;
        break;
      case "/":
        if (y === 0) return ERROR;
        return Math.trunc(x / y) + 0;
      case "%":
        if (y === 0) return ERROR;
        return (x % y) + 0;
    }
  }
  const a = big(x);
  const b = big(y);
  switch (op) {
    case "+":
      return normInt(a + b);
    case "-":
      return normInt(a - b);
    case "*":
      return normInt(a * b);
    case "/":
      if (b === 0n) return ERROR;
      if (a === INT64_MIN && b === -1n) return normInt(-(INT64_MIN + 1n));
      return normInt(a / b);
    case "%":
      if (b === 0n) return ERROR;
      if (a === INT64_MIN && b === -1n) return 0;
      return normInt(a % b);
  }
}

function realArith(op: ArithOp, x: number, y: number): Value {
  let r: number;
  switch (op) {
    case "+":
      r = x + y;
      break;
    case "-":
      r = x - y;
      break;
    case "*":
      r = x * y;
      break;
    case "/":
      r = x / y;
      break;
    case "%":
      return ERROR;
  }
  return r === Infinity ? ERROR : new Real(r);
}

/** C `(int)` of a double: truncation, with out-of-range and NaN giving INT32_MIN as x86 does. */

function timeArith(op: ArithOp, a: Value, b: Value): Value {
  if (op === "+") {
    if (a instanceof AbsTime && b instanceof RelTime) return new AbsTime(a.secs + cInt32(b.secs), a.offset);
    if (a instanceof RelTime && b instanceof AbsTime) return new AbsTime(b.secs + cInt32(a.secs), b.offset);
    if (a instanceof RelTime && b instanceof RelTime) return new RelTime(a.secs + b.secs);
  } else if (op === "-") {
    if (a instanceof AbsTime && b instanceof AbsTime) return new RelTime(a.secs - b.secs);
    if (a instanceof AbsTime && b instanceof RelTime) return new AbsTime(a.secs - cInt32(b.secs), a.offset);
    if (a instanceof RelTime && b instanceof RelTime) return new RelTime(a.secs - b.secs);
  } else if (op === "*" || op === "/") {
    if (a instanceof RelTime && (isInt(b) || b instanceof Real)) {
      const n = b instanceof Real ? b.v : intToReal(b);
      return new RelTime(op === "*" ? a.secs * n : a.secs / n);
    }
    if (op === "*" && b instanceof RelTime && (isInt(a) || a instanceof Real)) {
      return new RelTime((a instanceof Real ? a.v : intToReal(a)) * b.secs);
    }
  }
  return ERROR;
}

function arithOperand(v: Value): boolean {
  return (
    isInt(v) || v instanceof Real || typeof v === "boolean" || v instanceof AbsTime || v instanceof RelTime
  );
}

/** A strict arithmetic operator on any two values. */
export function arith(op: ArithOp, a: Value, b: Value): Value {
  if (a === ERROR || b === ERROR) return ERROR;
  if (a === UNDEF || b === UNDEF) return UNDEF;
  if (!arithOperand(a) || !arithOperand(b)) return ERROR;
  if (a instanceof AbsTime || b instanceof AbsTime || a instanceof RelTime || b instanceof RelTime)
    return timeArith(op, a, b);
  const x = typeof a === "boolean" ? (a ? 1 : 0) : a;
  const y = typeof b === "boolean" ? (b ? 1 : 0) : b;
  if (isInt(x) && isInt(y)) return intArith(op, x, y);
  return realArith(
    op,
    x instanceof Real ? x.v : intToReal(x as number | bigint),
    y instanceof Real ? y.v : intToReal(y as number | bigint),
  );
}

/** Unary minus: numbers and RelTime; Booleans and everything else are ERROR. */
export function negate(a: Value): Value {
  if (typeof a === "number") return a === 0 ? 0 : -a;
  if (typeof a === "bigint") return normInt(-a);
  if (a instanceof Real) return new Real(-a.v);
  if (a instanceof RelTime) return new RelTime(-a.secs);
  if (a === UNDEF || a === ERROR) return a;
  return ERROR;
}

/** Unary plus: numbers, RelTime, UNDEFINED and ERROR pass through. */
export function unaryPlus(a: Value): Value {
  if (
    typeof a === "boolean" ||
    typeof a === "string" ||
    a instanceof ListValue ||
    a instanceof ClassAd ||
    a instanceof AbsTime
  )
    return ERROR;
  return a;
}

export type BitOp = "&" | "|" | "^" | "<<" | ">>" | ">>>";

const MASK63 = (1n << 63n) - 1n;

/** A strict bitwise operator: Integers only. */
export function bitwise(op: BitOp, a: Value, b: Value): Value {
  if (a === ERROR || b === ERROR) return ERROR;
  if (a === UNDEF || b === UNDEF) return UNDEF;
  if (!isInt(a) || !isInt(b)) return ERROR;
  const x = big(a);
  const y = big(b);
  switch (op) {
    case "&":
      return normInt(x & y);
    case "|":
      return normInt(x | y);
    case "^":
      return normInt(x ^ y);
    case "<<":
      return normInt(x << (y & 63n));
    case ">>":
      if (x >= 0n) return normInt(x >> (y & 63n));
      if (y <= 0n) return normInt(x);
      return normInt(x >> (y > 64n ? 64n : y));
    case ">>>":
      if (x >= 0n) return normInt(x >> (y & 63n));
      return normInt(((x >> 1n) & MASK63) >> ((y - 1n) & 63n));
  }
}

/** Bitwise complement: Integers only. */
export function bitNot(a: Value): Value {
  if (a === ERROR || a === UNDEF) return a;
  if (!isInt(a)) return ERROR;
  return normInt(~big(a));
}
