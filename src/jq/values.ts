/** jq value helpers: type names, total order, equality, error previews and the error classes. */
import type { Json } from "../engines/common/json.js";
import { copyOrdered, setOrderedKey } from "./key-order.js";
import { LitNum, compareDecimal } from "./litnum.js";
import { formatNumber, printPrefix } from "./print.js";
import { walked } from "./work-guard.js";

export type JObj = { [key: string]: Json };

/** A jq runtime error carrying its error value (catchable by `try`). */
export class JqError {
  constructor(readonly value: Json) {}
}

/** The uncatchable end of a run when the step budget or recursion limit is exhausted. */
export class BudgetError {}

/** `halt` / `halt_error`: ends the run, not catchable. */
export class HaltSignal {
  constructor(
    readonly value: Json,
    readonly code: number,
    readonly isError: boolean,
  ) {}
}

/** The budget error message the embedding API reports. */
export const BUDGET_MESSAGE = "jq: evaluation exceeded its step budget";

/** Throws a jq error with a string message; typed `never` so callers can `return fail(...)`. */
export function fail(msg: string): never {
  throw new JqError(msg);
}

/** jq's name for a value's type. */
export function typeOf(v: Json): string {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      return Array.isArray(v) ? "array" : (v as unknown) instanceof LitNum ? "number" : "object";
  }
}

/** The double value of a number that may carry a literal. */
export function numOf(v: Json): Json {
  return typeof v === "object" && v !== null && (v as unknown) instanceof LitNum
    ? (v as unknown as LitNum).n
    : v;
}

/** True for plain objects (not arrays, not literal numbers). */
export function isObject(v: Json): v is JObj {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !((v as unknown) instanceof LitNum);
}

/** True unless the value is false or null. */
export function truthy(v: Json): boolean {
  return v !== null && v !== false;
}

function rank(v: Json): number {
  if (v === null) return 0;
  if (v === false) return 1;
  if (v === true) return 2;
  switch (typeof v) {
    case "number":
      return 3;
    case "string":
      return 4;
    default:
      return Array.isArray(v) ? 5 : (v as unknown) instanceof LitNum ? 3 : 6;
  }
}

/** Compares strings by Unicode code point (jq compares UTF-8 bytes). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca !== cb) {
      if (ca >= 0xd800 && cb >= 0xd800) {
        ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000;
        cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000;
      }
      return ca < cb ? -1 : 1;
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
}

/** Sorted keys of an object, in code point order. */
export function sortedKeys(o: JObj): string[] {
  return Object.keys(o).sort(compareStrings);
}

/** jq's total order: null < false < true < numbers < strings < arrays < objects. */
export function compare(a: Json, b: Json): number {
  walked();
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 3: {
      if (typeof a !== "number" || typeof b !== "number") {
        if ((a as unknown) instanceof LitNum && (b as unknown) instanceof LitNum)
          return compareDecimal((a as unknown as LitNum).text, (b as unknown as LitNum).text);
        a = numOf(a);
        b = numOf(b);
      }
      const x = a as number;
      const y = b as number;
      if (x !== x) return -1;
      if (y !== y) return 1;
      return x < y ? -1 : x === y ? 0 : 1;
    }
    case 4:
      return compareStrings(a as string, b as string);
    case 5: {
      const x = a as Json[];
      const y = b as Json[];
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i], y[i]);
        if (c !== 0) return c;
      }
      return x.length < y.length ? -1 : x.length > y.length ? 1 : 0;
    }
    case 6: {
      const ka = sortedKeys(a as JObj);
      const kb = sortedKeys(b as JObj);
      const c = compare(ka, kb);
      if (c !== 0) return c;
      for (const k of ka) {
        const d = compare((a as JObj)[k], (b as JObj)[k]);
        if (d !== 0) return d;
      }
      return 0;
    }
    default:
      return 0;
  }
}

/**
 * `compare` where `b` is known to come from a number literal of the program that kept no literal
 * object (its text is how the double prints): jq 1.7.1 compares two literals as decimals, so
 * `1E-400 == 0` is false there, while a computed double compares with a literal as doubles.
 */
export function compareWithLiteral(a: Json, b: Json): number {
  if (
    (a as unknown) instanceof LitNum &&
    typeof b === "number" &&
    b === b &&
    b !== Infinity &&
    b !== -Infinity
  )
    return compareDecimal((a as unknown as LitNum).text, formatNumber(b));
  return compare(a, b);
}

/** jq equality (structural; NaN is never equal). */
export function equals(a: Json, b: Json): boolean {
  if (a === b) return true;
  walked();
  if ((a as unknown) instanceof LitNum || (b as unknown) instanceof LitNum)
    return typeOf(a) === "number" && typeOf(b) === "number" && compare(a, b) === 0;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !equals(a[k], (b as JObj)[k])) return false;
  }
  return true;
}

/** Truncates text to `max` UTF-8 bytes jq-style (`max-3` bytes then `...`). */
export function truncateUtf8(s: string, max: number): string {
  let bytes = 0;
  let cut = -1;
  let i = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    const len = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    if (cut < 0 && bytes + len > max - 3) cut = i;
    bytes += len;
    if (bytes > max) return s.slice(0, cut) + "...";
    i += ch.length;
  }
  return s;
}

/** The value preview used in jq's error messages (14-byte buffer). */
export function preview(v: Json): string {
  return truncateUtf8(printPrefix(v, 64), 14);
}

/** The longer preview used by path-expression errors (30-byte buffer). */
export function preview30(v: Json): string {
  return truncateUtf8(printPrefix(v, 64), 29);
}

/** `<type> (<preview>)`, the usual way jq names a value in errors. */
export function desc(v: Json): string {
  return `${typeOf(v)} (${preview(v)})`;
}

/** Own-property lookup that is safe for keys like `__proto__` or `toString`. */
export function getKey(o: JObj, k: string): Json {
  return Object.prototype.hasOwnProperty.call(o, k) ? o[k] : null;
}

/** Sets a key (safe for `__proto__`); a new key goes last in the object's key order. */
export function setKey(o: JObj, k: string, v: Json): void {
  setOrderedKey(o, k, v);
}

/** A shallow copy of an object preserving key order. */
export function copyObj(o: JObj): JObj {
  return copyOrdered(o);
}
