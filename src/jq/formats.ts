/** The `@name` string formats of jq 1.7.1. */
import type { Json } from "../engines/common/json.js";
import { printCompact } from "./print.js";
import { JqError, desc, fail, typeOf } from "./values.js";

const FORMATS = new Set(["text", "json", "html", "uri", "csv", "tsv", "sh", "base64", "base64d"]);

function tostr(v: Json): string {
  return typeof v === "string" ? v : printCompact(v);
}

/** Encodes a string as UTF-8 bytes. */
export function utf8(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

/**
 * Decodes UTF-8 bytes as jq does: each bad byte or bad sequence becomes U+FFFD, a sequence cut
 * short by the end of the data is one U+FFFD, and overlong forms and surrogates are invalid.
 */
export function fromUtf8(b: Uint8Array): string {
  let out = "";
  let i = 0;
  while (i < b.length) {
    const first = b[i];
    if (first < 0x80) {
      out += String.fromCharCode(first);
      i++;
      continue;
    }
    const len =
      first >= 0xc0 && first < 0xe0
        ? 2
        : first >= 0xe0 && first < 0xf0
          ? 3
          : first >= 0xf0 && first < 0xf8
            ? 4
            : 0;
    if (len === 0) {
      out += "\uFFFD";
      i++;
      continue;
    }
    if (i + len > b.length) {
      out += "\uFFFD";
      break;
    }
    let cp = first & (0xff >> (len + 1));
    let used = len;
    for (let k = 1; k < len; k++) {
      const c = b[i + k];
      if ((c & 0xc0) !== 0x80) {
        cp = -1;
        used = k;
        break;
      }
      cp = (cp << 6) | (c & 0x3f);
    }
    const min = len === 2 ? 0x80 : len === 3 ? 0x800 : 0x10000;
    out += cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(cp);
    i += used;
  }
  return out;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function base64(s: string): string {
  const b = utf8(s);
  let out = "";
  for (let i = 0; i < b.length; i += 3) {
    const n = (b[i] << 16) | ((b[i + 1] ?? 0) << 8) | (b[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    out += i + 1 < b.length ? B64[(n >> 6) & 63] : "=";
    out += i + 2 < b.length ? B64[n & 63] : "=";
  }
  return out;
}

function base64d(v: Json, s: string): string {
  const bytes: number[] = [];
  let acc = 0;
  let bits = 0;
  let count = 0;
  for (const ch of s) {
    if (ch === "=") break;
    const d = B64.indexOf(ch);
    if (d < 0) return fail(`${desc(s)} is not valid base64 data`);
    count++;
    acc = (acc << 6) | d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((acc >> bits) & 255);
    }
  }
  if (count % 4 === 1) return fail(`${desc(s)} trailing base64 byte found`);
  return fromUtf8(Uint8Array.from(bytes));
}

function nul(s: string): string {
  return s.includes("\0") ? s.replace(/\0/g, "\\0") : s;
}

const TSV_SPECIAL = /[\\\t\n\r\0]/g;
const TSV_ESCAPES: Record<string, string> = {
  "\\": "\\\\",
  "\t": "\\t",
  "\n": "\\n",
  "\r": "\\r",
  "\0": "\\0",
};

function csvField(x: Json, tsv: boolean): string {
  switch (typeOf(x)) {
    case "number":
      return x !== x ? "" : printCompact(x);
    case "boolean":
      return x ? "true" : "false";
    case "null":
      return "";
    case "string": {
      // one pass, as jq's escape_string: a NUL becomes `\0` and that backslash is not escaped again
      if (tsv) return (x as string).replace(TSV_SPECIAL, (c) => TSV_ESCAPES[c] as string);
      return '"' + nul(x as string).replace(/"/g, '""') + '"';
    }
    default:
      return fail(`${desc(x)} is not valid in a csv row`);
  }
}

function shQuote(x: Json): string {
  switch (typeOf(x)) {
    case "string":
      return "'" + nul(x as string).replace(/'/g, "'\\''") + "'";
    case "array":
    case "object":
      return fail(`${desc(x)} can not be escaped for shell`);
    default:
      return printCompact(x);
  }
}

/** Rejects unknown format names when the program is compiled. */
export function checkFormat(name: string): void {
  if (!FORMATS.has(name)) throw new JqError(`${name} is not a valid format`);
}

/** Applies `@name` to a value; unknown names raise `<name> is not a valid format`. */
export function applyFormat(name: string, v: Json): string {
  switch (name) {
    case "text":
      return tostr(v);
    case "json":
      return printCompact(v);
    case "html":
      return nul(tostr(v)).replace(
        /[<>&'"]/g,
        (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c] as string,
      );
    case "uri": {
      let out = "";
      for (const b of utf8(tostr(v))) {
        const c = String.fromCharCode(b);
        out += /[A-Za-z0-9\-_.~]/.test(c) ? c : "%" + b.toString(16).toUpperCase().padStart(2, "0");
      }
      return out;
    }
    case "csv":
    case "tsv":
      if (!Array.isArray(v)) return fail(`${desc(v)} cannot be ${name}-formatted, only array`);
      return v.map((x) => csvField(x, name === "tsv")).join(name === "csv" ? "," : "\t");
    case "sh":
      if (Array.isArray(v)) return v.map(shQuote).join(" ");
      return shQuote(v);
    case "base64":
      return base64(tostr(v));
    case "base64d":
      return base64d(v, tostr(v));
  }
  if (!FORMATS.has(name)) return fail(`${name} is not a valid format`);
  return tostr(v);
}
