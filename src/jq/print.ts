/** Serialises values exactly as jq 1.7.1 prints them (number format, escapes, indentation). */
import type { Json } from "../engines/common/json.js";
import { keysOf, orderOf } from "./key-order.js";
import { LitNum } from "./litnum.js";
import { guarding, walked, walkedMany } from "./work-guard.js";

/**
 * Walks a value's nodes only to charge them (for outputs leaving a run: their printing is not charged
 * later), and returns how deep its containers nest, so that a caller bounding the depth needs no walk
 * of its own: 0 for a scalar, 1 for a container holding no container, … — any figure above 256 means
 * "deeper than 256 levels". −1 when nothing was walked (no run's budget is installed).
 */
export function chargeTree(v: Json): number {
  if (!guarding()) return -1;
  if (v === null || typeof v !== "object" || (v as unknown) instanceof LitNum) return 0;
  deepest = 0;
  chargeAt(v, 0);
  return deepest + 1;
}

/** Below this depth {@link chargeTree} recurses (no stack array); deeper containers go through {@link chargeDeep}. */
const CHARGE_RECURSE_DEPTH = 256;

/** The deepest container level (the root's is 0) {@link chargeAt} has reached in the current walk. */
let deepest = 0;

/** {@link chargeTree} of a container at `depth`: its nodes counted and charged a container at a time. */
function chargeAt(c: Json, depth: number): void {
  if (depth >= CHARGE_RECURSE_DEPTH) {
    deepest = CHARGE_RECURSE_DEPTH;
    return chargeDeep(c);
  }
  if (depth > deepest) deepest = depth;
  let n = 1;
  if (Array.isArray(c)) {
    for (let i = 0; i < c.length; i++) {
      const x = c[i];
      if (x !== null && typeof x === "object" && !((x as unknown) instanceof LitNum)) chargeAt(x, depth + 1);
      else n++;
    }
  } else {
    const o = c as { [k: string]: Json };
    for (const k in o) {
      const x = o[k];
      if (x !== null && typeof x === "object" && !((x as unknown) instanceof LitNum)) chargeAt(x, depth + 1);
      else n++;
    }
  }
  walkedMany(n);
}

/** {@link chargeTree} with an explicit stack, for containers of any depth. */
function chargeDeep(v: Json): void {
  // nodes are counted and charged a container at a time; no array is made per container
  let stack: Json[] | null = null;
  let c: Json = v;
  for (;;) {
    let n = 1;
    if (Array.isArray(c)) {
      for (const x of c)
        if (x !== null && typeof x === "object" && !((x as unknown) instanceof LitNum))
          (stack ??= []).push(x);
        else n++;
    } else {
      const o = c as { [k: string]: Json };
      for (const k in o) {
        const x = o[k];
        if (x !== null && typeof x === "object" && !((x as unknown) instanceof LitNum))
          (stack ??= []).push(x);
        else n++;
      }
    }
    walkedMany(n);
    if (stack === null || stack.length === 0) return;
    c = stack.pop() as Json;
  }
}

/** Formats a double the way jq 1.7.1's dtoa-based printer does. */
export function formatNumber(n: number): string {
  if (Number.isInteger(n) && n < 1e16 && n > -1e16) {
    if (n === 0 && Object.is(n, -0)) return "-0";
    return String(n);
  }
  if (n !== n) return "null";
  if (n === Infinity) return "1.7976931348623157e+308";
  if (n === -Infinity) return "-1.7976931348623157e+308";
  const neg = n < 0;
  const e = Math.abs(n).toExponential();
  const ePos = e.indexOf("e");
  const digits = e.slice(0, ePos).replace(".", "");
  const exp = Number(e.slice(ePos + 1));
  const p = exp + 1;
  const nd = digits.length;
  let s: string;
  if (p <= -4 || p > nd + 15) {
    const x = exp;
    const ax = Math.abs(x);
    s =
      digits[0] +
      (nd > 1 ? "." + digits.slice(1) : "") +
      "e" +
      (x < 0 ? "-" : "+") +
      (ax < 10 ? "0" + ax : String(ax));
  } else if (p <= 0) {
    s = "0." + "0".repeat(-p) + digits;
  } else if (p >= nd) {
    s = digits + "0".repeat(p - nd);
  } else {
    s = digits.slice(0, p) + "." + digits.slice(p);
  }
  return neg ? "-" + s : s;
}

const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f]/;

/** Quotes a string as jq does (JSON escapes, DEL as \u007f). */
export function quoteString(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  return JSON.stringify(s).replace(/\u007f/g, "\\u007f");
}

/** Below this depth the compact printer recurses (fast); deeper values go through {@link writeJson}. */
const RECURSE_DEPTH = 256;

/** Prints a value as `jq -c` does, at any depth (deep values never overflow the stack). */
export function printCompact(v: Json): string {
  return compact(v, 0);
}

function compact(v: Json, depth: number): string {
  walked();
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "number":
      return formatNumber(v);
    case "string":
      return quoteString(v);
  }
  if ((v as unknown) instanceof LitNum) return (v as unknown as LitNum).text;
  if (depth >= RECURSE_DEPTH) return writeJson(v, JQ_TEXT, "", false, Infinity);
  if (Array.isArray(v)) {
    let s = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ",";
      s += compact(v[i], depth + 1);
    }
    return s + "]";
  }
  let s = "{";
  let first = true;
  const ord = orderOf(v);
  if (ord === undefined) {
    for (const k in v) {
      if (!first) s += ",";
      first = false;
      s += quoteString(k) + ":" + compact(v[k], depth + 1);
    }
  } else
    for (const k of ord) {
      if (!first) s += ",";
      first = false;
      s += quoteString(k) + ":" + compact(v[k], depth + 1);
    }
  return s + "}";
}

/**
 * The start of `v`'s compact text: at least `max` characters of it when it is longer (it may go on a
 * little), found without printing the rest. For error previews, which keep a few bytes of a value
 * that may be large or deep.
 */
export function printPrefix(v: Json, max: number): string {
  return writeJson(
    v,
    {
      scalar: (x) => (typeof x === "string" && x.length > max ? quoteString(x.slice(0, max)) : scalarText(x)),
      key: quoteString,
    },
    "",
    false,
    max,
  );
}

/** How a serializer writes scalars and keys. */
interface Dialect {
  scalar(v: Json): string;
  key(k: string): string;
  /** Leave out object members whose value is undefined (values from outside the engine). */
  skipUndefined?: boolean;
}

function scalarText(v: Json): string {
  if (v === null) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return formatNumber(v);
  if (typeof v === "string") return quoteString(v);
  return (v as unknown as LitNum).text;
}

const JQ_TEXT: Dialect = { scalar: scalarText, key: quoteString };

const JSON_TEXT: Dialect = {
  scalar: (v) =>
    (v as unknown) instanceof LitNum
      ? JSON.stringify((v as unknown as LitNum).n)
      : (JSON.stringify(v) ?? "null"),
  key: (k) => JSON.stringify(k),
  skipUndefined: true,
};

interface Frame {
  c: Json[] | { [k: string]: Json };
  keys: readonly string[] | null;
  i: number;
  outer: string;
}

/**
 * Serializes with an explicit stack (any depth): `unit` is one level of indentation ("" for
 * compact), `sortKeys` sorts object keys by code unit, and writing stops once the text is longer
 * than `limit` characters.
 */
function writeJson(v: Json, d: Dialect, unit: string, sortKeys: boolean, limit: number): string {
  const nl = unit === "" ? "" : "\n";
  const colon = unit === "" ? ":" : ": ";
  const stack: Frame[] = [];
  let out = "";
  let cur: Json = v;
  let indent = "";
  let open = true;
  for (;;) {
    if (open) {
      open = false;
      walked();
      if (cur === null || typeof cur !== "object" || (cur as unknown) instanceof LitNum) out += d.scalar(cur);
      else if (Array.isArray(cur)) {
        if (cur.length === 0) out += "[]";
        else {
          out += "[";
          stack.push({ c: cur, keys: null, i: 0, outer: indent });
        }
      } else {
        const o = cur as { [k: string]: Json };
        let keys = keysOf(o);
        if (sortKeys) keys = keys.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if (d.skipUndefined) keys = keys.filter((k) => o[k] !== undefined);
        if (keys.length === 0) out += "{}";
        else {
          out += "{";
          stack.push({ c: o, keys, i: 0, outer: indent });
        }
      }
    }
    if (out.length > limit) return out;
    const f = stack[stack.length - 1];
    if (f === undefined) return out;
    const n = f.keys === null ? (f.c as Json[]).length : f.keys.length;
    if (f.i < n) {
      indent = f.outer + unit;
      out += (f.i > 0 ? "," : "") + nl + indent;
      if (f.keys === null) cur = (f.c as Json[])[f.i];
      else {
        const k = f.keys[f.i];
        out += d.key(k) + colon;
        cur = (f.c as { [k: string]: Json })[k];
      }
      f.i++;
      open = true;
    } else {
      stack.pop();
      out += nl + f.outer + (f.keys === null ? "]" : "}");
      indent = f.outer;
    }
  }
}

/**
 * JSON text as JSON.stringify writes it (numbers as JavaScript prints them, non-finite as null),
 * but with every object's keys in jq's insertion order: for handing jq values to JSON consumers.
 * Any depth (no recursion).
 */
export function jsonText(v: unknown): string {
  return writeJson(v as Json, JSON_TEXT, "", false, Infinity);
}

export interface FormatOptions {
  indent?: number;
  tab?: boolean;
  sortKeys?: boolean;
}

/** Prints a value as jq does with its default pretty printer (`--indent n`, `--tab`, `-S`); indent 0 is compact. */
export function formatJson(v: Json, opts: FormatOptions = {}): string {
  const unit = opts.tab ? "\t" : " ".repeat(Math.min(opts.indent ?? 2, 7));
  if (unit === "" && !opts.sortKeys) return printCompact(v);
  return writeJson(v, JQ_TEXT, unit, opts.sortKeys === true, Infinity);
}
