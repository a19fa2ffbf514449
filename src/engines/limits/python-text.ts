/**
 * Python-style renderings that pScheduler's texts are made of: `repr()` in
 * schema messages, `str()` in the Hints lines, type names in `%d` errors.
 */
import type { Json } from "../common/json.js";

/** Python's repr() of a string: single quotes unless the text holds a single quote and no double quote. */
export function pyStringRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's repr() of a number as json.loads would have produced it (int or float). */
export function pyNumber(n: number): string {
  if (Number.isInteger(n)) return BigInt(n).toString();
  const s = String(n);
  return s.includes("e") ? s.replace(/e([+-])(\d)$/, "e$10$2") : s;
}

/** Python's repr() of a JSON value (`True`, `None`, `{'a': [1, 'b']}`). */
export function pyRepr(value: Json | undefined): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return pyNumber(value);
  if (typeof value === "string") return pyStringRepr(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pyStringRepr(k)}: ${pyRepr(v)}`)
    .join(", ")}}`;
}

/** Python's str(): strings as they are, everything else as repr(). */
export function pyStr(value: Json | undefined): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** The Python type name of a JSON value, as `%d` formatting errors print it. */
export function pyTypeName(value: Json | undefined): string {
  if (value === null || value === undefined) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "string") return "str";
  return Array.isArray(value) ? "list" : "dict";
}

const URL_SAFE = /[A-Za-z0-9_.\-~]/;
const utf8 = new TextEncoder();

/** Python's `quote_plus(s, safe="")`: UTF-8 bytes percent-encoded (upper-case hex), spaces as `+`. */
export function pyQuotePlus(s: string): string {
  let out = "";
  for (const ch of s) {
    if (ch === " ") out += "+";
    else if (URL_SAFE.test(ch)) out += ch;
    else for (const b of utf8.encode(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * Python's `urllib.parse.urlencode(query)` of a JSON value: an object gives
 * `key=value` pairs of their str() forms joined with `&`; an empty array or
 * string gives ""; anything else is the TypeError text urlencode raises.
 */
export function pyUrlencode(query: Json): { text: string } | { error: string } {
  if (query !== null && typeof query === "object" && !Array.isArray(query)) {
    return {
      text: Object.entries(query)
        .map(([k, v]) => `${pyQuotePlus(k)}=${pyQuotePlus(pyStr(v))}`)
        .join("&"),
    };
  }
  if ((Array.isArray(query) || typeof query === "string") && query.length === 0) return { text: "" };
  return { error: "not a valid non-string sequence or mapping object" };
}
