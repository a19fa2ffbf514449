/** jq's operators and indexing primitives with jq 1.7.1's error messages. */
import type { Json } from "../engines/common/json.js";
import { keysOf } from "./key-order.js";
import { ALLOC, charge, COPY_KEY, sizeOf } from "./runtime.js";
import { walked } from "./work-guard.js";
import {
  compare,
  compareWithLiteral,
  copyObj,
  desc,
  equals,
  fail,
  getKey,
  isObject,
  numOf,
  setKey,
  typeOf,
  type JObj,
} from "./values.js";

const isObj = isObject;

/** `a + b` (null is the identity, so `null + 1.0` keeps the literal, as jq's binop_plus). */
export function add(a: Json, b: Json): Json {
  if (typeof a === "number" && typeof b === "number") return a + b;
  if (a === null) return b;
  if (b === null) return a;
  const x = numOf(a);
  const y = numOf(b);
  if (typeof x === "number" && typeof y === "number") return x + y;
  // budget: strings are joined without copying (the shorter side is what is new), arrays and objects are copied
  if (typeof a === "string" && typeof b === "string") {
    charge(a.length < b.length ? a.length : b.length);
    return a + b;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    charge(a.length + b.length);
    return a.concat(b);
  }
  if (isObj(a) && isObj(b)) {
    // charged before the copy: every key of both sides is copied into the result
    const kb = keysOf(b);
    charge(COPY_KEY * (sizeOf(a) + kb.length) + ALLOC);
    const r = copyObj(a);
    for (const k of kb) setKey(r, k, b[k]);
    return r;
  }
  return fail(`${desc(a)} and ${desc(b)} cannot be added`);
}

/** `a - b`. */
export function sub(a: Json, b: Json): Json {
  const x = numOf(a);
  const y = numOf(b);
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (Array.isArray(a) && Array.isArray(b)) {
    charge(a.length * b.length + a.length);
    return a.filter((v) => !b.some((w) => equals(v, w)));
  }
  return fail(`${desc(a)} and ${desc(b)} cannot be subtracted`);
}

function deepMerge(a: JObj, b: JObj): JObj {
  charge(COPY_KEY * (sizeOf(a) + sizeOf(b)) + ALLOC);
  const r = copyObj(a);
  for (const k of keysOf(b)) {
    const av = getKey(r, k);
    const bv = b[k];
    setKey(r, k, isObj(av) && isObj(bv) ? deepMerge(av, bv) : bv);
  }
  return r;
}

function repeatString(s: string, n: number): Json {
  if (n !== n || n < 0) return null;
  // jq 1.7.1 converts the count to a C int: past INT_MAX that gives INT_MIN on the reference build, so ""
  const count = n >= 2147483648 ? 0 : Math.trunc(n);
  // charged before the string is built (its length), so the budget ends a huge repeat before it happens
  charge(count + s.length * count);
  if (s.length * count > 1e8) return fail("Repeat string result too long");
  return s.repeat(count);
}

/** `a * b`. */
export function mul(a: Json, b: Json): Json {
  const x = numOf(a);
  const y = numOf(b);
  if (typeof x === "number" && typeof y === "number") return x * y;
  if (typeof x === "string" && typeof y === "number") return repeatString(x, y);
  if (typeof x === "number" && typeof y === "string") return repeatString(y, x);
  if (isObj(a) && isObj(b)) return deepMerge(a, b);
  return fail(`${desc(a)} and ${desc(b)} cannot be multiplied`);
}

/** Splits a string on a literal separator as jq's `/` and `split/1` do. */
export function splitString(s: string, sep: string): Json[] {
  if (s === "") return [];
  if (sep === "") return Array.from(s);
  return s.split(sep);
}

/** `a / b`. */
export function div(a: Json, b: Json): Json {
  const x = numOf(a);
  const y = numOf(b);
  if (typeof x === "number" && typeof y === "number") {
    if (y === 0) return fail(`${desc(a)} and ${desc(b)} cannot be divided because the divisor is zero`);
    return x / y;
  }
  if (typeof a === "string" && typeof b === "string") {
    const parts = splitString(a, b);
    charge(a.length + parts.length);
    return parts;
  }
  return fail(`${desc(a)} and ${desc(b)} cannot be divided`);
}

const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;
function toIntmax(x: number): bigint {
  if (x !== x) return 0n;
  if (x >= 9223372036854775807) return I64_MAX;
  if (x <= -9223372036854775808) return I64_MIN;
  return BigInt(Math.trunc(x));
}

/** `a % b` (operands truncated to integers). */
export function mod(a: Json, b: Json): Json {
  const x = numOf(a);
  const y = numOf(b);
  if (typeof x === "number" && typeof y === "number") {
    if (x !== x || y !== y) return NaN;
    if (Math.abs(x) < 2 ** 53 && Math.abs(y) < 2 ** 53) {
      const d = Math.trunc(y);
      if (d === 0)
        return fail(`${desc(a)} and ${desc(b)} cannot be divided (remainder) because the divisor is zero`);
      const r = Math.trunc(x) % Math.abs(d);
      return r === 0 ? 0 : r;
    }
    const xi = toIntmax(x);
    const yi = toIntmax(y);
    if (yi === 0n)
      return fail(`${desc(a)} and ${desc(b)} cannot be divided (remainder) because the divisor is zero`);
    return Number(xi % yi);
  }
  return fail(`${desc(a)} and ${desc(b)} cannot be divided (remainder)`);
}

const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const MIRRORED: Record<string, string> = {
  "==": "==",
  "!=": "!=",
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
};

/** A comparison of an operand with a number literal, chosen once per operator (no switch per call). */
function numberLiteralOp(op: string): (a: Json, lit: number) => boolean {
  switch (op) {
    case "==":
      return (a, lit) => compareWithLiteral(a, lit) === 0;
    case "!=":
      return (a, lit) => compareWithLiteral(a, lit) !== 0;
    case "<":
      return (a, lit) => compareWithLiteral(a, lit) < 0;
    case "<=":
      return (a, lit) => compareWithLiteral(a, lit) <= 0;
    case ">":
      return (a, lit) => compareWithLiteral(a, lit) > 0;
    default:
      return (a, lit) => compareWithLiteral(a, lit) >= 0;
  }
}

/**
 * `x == lit` / `x != lit` for a null, boolean or string literal: equal only when identical, and
 * a miss counts one node visited, as `equals` does (the same charge, without its type tests).
 */
function scalarLiteralEquality(
  op: string,
  lit: null | boolean | string,
  litOnRight: boolean,
): (a: Json, b: Json) => boolean {
  const eq = op === "==";
  if (litOnRight) return (a) => (a === lit ? eq : (walked(), !eq));
  return (_a, b) => (b === lit ? eq : (walked(), !eq));
}

function isScalarLiteral(n: { k: string; v?: unknown }): n is { k: "literal"; v: null | boolean | string } {
  return n.k === "literal" && (n.v === null || typeof n.v === "boolean" || typeof n.v === "string");
}

/**
 * A comparison with a plain number literal of the program on one side, as a function of both
 * operand values (left, right), or null for any other operator or operand: a literal compares with
 * a number that kept its literal as a decimal (see compareWithLiteral). `==` and `!=` with a null,
 * boolean or string literal are an identity test (see scalarLiteralEquality).
 */
export function literalComparison(
  op: string,
  left: { k: string; v?: unknown },
  right: { k: string; v?: unknown },
): ((a: Json, b: Json) => Json) | null {
  if (!COMPARISONS.has(op)) return null;
  if (right.k === "literal" && typeof right.v === "number") {
    const f = numberLiteralOp(op);
    return (a, b) => f(a, b as number);
  }
  if (left.k === "literal" && typeof left.v === "number") {
    const f = numberLiteralOp(MIRRORED[op]);
    return (a, b) => f(b, a as number);
  }
  if (op === "==" || op === "!=") {
    if (isScalarLiteral(right)) return scalarLiteralEquality(op, right.v, true);
    if (isScalarLiteral(left)) return scalarLiteralEquality(op, left.v, false);
  }
  return null;
}

/** Each binary operator as a function of its two operand values; plain numbers take the first branch. */
const BINOPS: Readonly<Record<string, (a: Json, b: Json) => Json>> = {
  "+": add,
  "-": (a, b) => (typeof a === "number" && typeof b === "number" ? a - b : sub(a, b)),
  "*": (a, b) => (typeof a === "number" && typeof b === "number" ? a * b : mul(a, b)),
  "/": div,
  "%": mod,
  "==": equals,
  "!=": (a, b) => !equals(a, b),
  "<": (a, b) => compare(a, b) < 0,
  "<=": (a, b) => compare(a, b) <= 0,
  ">": (a, b) => compare(a, b) > 0,
  ">=": (a, b) => compare(a, b) >= 0,
};

/** A binary operator as a function of its two operand values, chosen once at compile time (no lookup per call). */
export function binopFn(op: string): (a: Json, b: Json) => Json {
  const f = Object.hasOwn(BINOPS, op) ? BINOPS[op] : undefined;
  if (f === undefined) throw new Error("unknown operator " + op);
  return f;
}

/** Applies a binary operator by its source symbol. */
export function binop(op: string, a: Json, b: Json): Json {
  return binopFn(op)(a, b);
}

/** How jq 1.7.1's jv_get names a key it cannot use: a string under 30 UTF-8 bytes is quoted raw. */
function keyWhat(k: Json): string {
  if (typeof k !== "string") return typeOf(k);
  return k.length < 30 && new TextEncoder().encode(k).length < 30 ? `string "${k}"` : "string";
}

/** `t[k]` for every key kind jq allows, with jq's errors. */
export function indexValue(t: Json, k: Json): Json {
  if (typeof k === "object") k = numOf(k);
  if (typeof k === "string") {
    if (isObj(t)) return getKey(t, k);
    if (t === null) return null;
  } else if (typeof k === "number") {
    if (Array.isArray(t)) {
      if (k !== k) return null;
      // jq 1.7.1 (jv_get) clamps to an int and truncates toward zero: `.[-2.8]` is `.[-2]`
      let i = k < -2147483648 ? -2147483648 : k > 2147483647 ? 2147483647 : Math.trunc(k);
      if (i < 0) i += t.length;
      return i >= 0 && i < t.length ? t[i] : null;
    }
    if (t === null) return null;
  } else if (isObj(k) && (t === null || Array.isArray(t) || typeof t === "string")) {
    if (t === null) return null;
    return sliceValue(t, sliceEnd(k, "start"), sliceEnd(k, "end"));
  } else if (Array.isArray(k) && Array.isArray(t)) {
    return indicesOf(t, k);
  }
  if (isObj(t) && typeof k !== "string") return fail(`Cannot index object with ${typeOf(k)}`);
  return fail(`Cannot index ${typeOf(t)} with ${keyWhat(k)}`);
}

/** Positions where array `sub` occurs in `t` (jq's `_indices` on arrays); none for an empty `sub`. */
export function indicesOf(t: Json[], sub: Json[]): Json {
  if (sub.length === 0) return [];
  charge(t.length * Math.min(sub.length, t.length) + sub.length);
  const r: number[] = [];
  for (let i = 0; i + sub.length <= t.length; i++) {
    let m = true;
    for (let j = 0; j < sub.length; j++)
      if (!equals(t[i + j], sub[j])) {
        m = false;
        break;
      }
    if (m) r.push(i);
  }
  return r;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code point length of a string. */
export function cpLength(s: string): number {
  if (!SURROGATE.test(s)) return s.length;
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

/** One end of a slice key object: its value, or undefined when the key is missing (jq 1.7.1 then fails). */
export function sliceEnd(k: JObj, name: "start" | "end"): Json | undefined {
  return Object.prototype.hasOwnProperty.call(k, name) ? k[name] : undefined;
}

/** Resolves the bounds of a slice key object `{start, end}` against a length (see {@link sliceBounds}). */
export function sliceKeyBounds(len: number, k: JObj): [number, number] {
  return sliceBounds(len, sliceEnd(k, "start"), sliceEnd(k, "end"));
}

/**
 * Resolves slice bounds as jq 1.7.1's parse_slice does (start floored, end ceiled, clamped; null
 * means the whole side; a missing or non-numeric bound fails).
 */
export function sliceBounds(len: number, from: Json | undefined, to: Json | undefined): [number, number] {
  from = from === undefined ? undefined : numOf(from);
  to = to === undefined ? undefined : numOf(to);
  if ((from !== null && typeof from !== "number") || (to !== null && typeof to !== "number"))
    return fail("Array/string slice indices must be integers");
  let s = from === null ? 0 : from;
  let e = to === null ? len : to;
  if (s !== s) s = 0;
  if (e !== e) e = len;
  if (s < 0) s += len;
  if (e < 0) e += len;
  s = Math.floor(s);
  e = Math.ceil(e);
  if (s < 0) s = 0;
  if (s > len) s = len;
  if (e > len) e = len;
  if (e < s) e = s;
  return [s, e];
}

/** `t[from:to]` on arrays, strings (by code point) and null. */
export function sliceValue(t: Json, from: Json | undefined, to: Json | undefined): Json {
  if (t === null) return null;
  if (Array.isArray(t)) {
    const [s, e] = sliceBounds(t.length, from, to);
    // jq 1.7.1 shares the array when the slice is all of it, so it stays a path (`.[:1] as $x | path($x)`)
    if (s === 0 && e === t.length && e > 0) return t;
    // a copy costs its elements (else `[.[range(length):]]` copies n²/2 elements for n steps)
    charge(e - s + ALLOC);
    return t.slice(s, e);
  }
  if (typeof t === "string") {
    if (!SURROGATE.test(t)) {
      const [s, e] = sliceBounds(t.length, from, to);
      charge(e - s + ALLOC);
      return t.slice(s, e);
    }
    const cps = Array.from(t);
    const [s, e] = sliceBounds(cps.length, from, to);
    charge(cps.length + ALLOC);
    return cps.slice(s, e).join("");
  }
  return fail(`Cannot index ${typeOf(t)} with object`);
}

/** The error for iterating a scalar. */
export function cannotIterate(v: Json): never {
  return fail(`Cannot iterate over ${desc(v)}`);
}
