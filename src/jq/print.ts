/** Serialises values exactly as jq 1.7.1 prints them (number format, escapes, indentation). */
import type { Json } from "../engines/common/json.js";
import { keysOf, orderOf } from "./key-order.js";
import { LitNum } from "./litnum.js";

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
    s = digits[0] + (nd > 1 ? "." + digits.slice(1) : "") + "e" + (x < 0 ? "-" : "+") + (ax < 10 ? "0" + ax : String(ax));
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

/** Prints a value as `jq -c` does. */
export function printCompact(v: Json): string {
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
  if (Array.isArray(v)) {
    let s = "[";
    for (let i = 0; i < v.length; i++) {
      if (i > 0) s += ",";
      s += printCompact(v[i]);
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
      s += quoteString(k) + ":" + printCompact(v[k]);
    }
  } else
    for (const k of ord) {
      if (!first) s += ",";
      first = false;
      s += quoteString(k) + ":" + printCompact(v[k]);
    }
  return s + "}";
}

/**
 * JSON text as JSON.stringify writes it (numbers as JavaScript prints them, non-finite as null),
 * but with every object's keys in jq's insertion order: for handing jq values to JSON consumers.
 */
export function jsonText(v: unknown): string {
  if (v === null || typeof v !== "object") return JSON.stringify(v) ?? "null";
  if ((v as unknown) instanceof LitNum) return JSON.stringify((v as LitNum).n);
  if (Array.isArray(v)) return "[" + v.map(jsonText).join(",") + "]";
  const o = v as { [k: string]: unknown };
  const parts: string[] = [];
  for (const k of keysOf(o)) if (o[k] !== undefined) parts.push(JSON.stringify(k) + ":" + jsonText(o[k]));
  return "{" + parts.join(",") + "}";
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
  return pretty(v, unit, "", opts.sortKeys === true);
}

function pretty(v: Json, unit: string, cur: string, sortKeys: boolean): string {
  if (v === null || typeof v !== "object" || (v as unknown) instanceof LitNum) return printCompact(v);
  const inner = cur + unit;
  const nl = unit === "" ? "" : "\n";
  const colon = unit === "" ? ":" : ": ";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    const items = v.map((x) => inner + pretty(x, unit, inner, sortKeys));
    return "[" + nl + items.join("," + nl) + nl + cur + "]";
  }
  let keys = keysOf(v);
  if (keys.length === 0) return "{}";
  if (sortKeys) keys = keys.slice().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const items = keys.map((k) => inner + quoteString(k) + colon + pretty(v[k], unit, inner, sortKeys));
  return "{" + nl + items.join("," + nl) + nl + cur + "}";
}
