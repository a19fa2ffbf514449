/** How `arbiter jq` prints a value: jq 1.7.1's src/jv_print.c (indent, tabs, sorted keys, -a, colours). */
import type { Json } from "../engines/common/json.js";
import { jqKeys, jqType, printCompact } from "./index.js";

export interface PrintOptions {
  /** Spaces per level (0: compact) or tabs. */
  indent: number | "tab";
  sortKeys: boolean;
  /** `-a`: every non-ASCII character as a `\uXXXX` escape. */
  ascii: boolean;
  /** The eight colour codes (null, false, true, numbers, strings, arrays, objects, object keys), or null for none. */
  colors: string[] | null;
}

/** jq 1.7.1's default colours (def_colors in src/jv_print.c). */
export const DEFAULT_COLORS = ["0;90", "0;39", "0;39", "0;39", "0;32", "1;39", "1;39", "1;34"];

/** The colours `JQ_COLORS` asks for (`1;31:0;32:...`, missing ones default), or null when it is invalid (jq_set_colors). */
export function parseJqColors(spec: string): string[] | null {
  const out = DEFAULT_COLORS.slice();
  if (spec === "") return out;
  const parts = spec.split(":");
  for (let i = 0; i < parts.length && i < out.length; i++) {
    if (parts[i].length > 12 || !/^[0-9;]*$/.test(parts[i])) return null;
    out[i] = parts[i];
  }
  return out;
}

const RESET = "\u001b[0m";
const MAX_PRINT_DEPTH = 256;

function quote(s: string, ascii: boolean): string {
  const q = printCompact(s);
  if (!ascii) return q;
  let out = "";
  for (let i = 0; i < q.length; i++) {
    const c = q.charCodeAt(i);
    out += c < 0x80 ? q[i] : "\\u" + c.toString(16).padStart(4, "0");
  }
  return out;
}

/** Code point order, as jq sorts keys (its strings are UTF-8, compared bytewise). */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = (x[i].codePointAt(0) as number) - (y[i].codePointAt(0) as number);
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

function colorOf(v: Json, colors: string[]): string {
  if (v === null) return colors[0];
  if (v === false) return colors[1];
  if (v === true) return colors[2];
  if (typeof v === "string") return colors[4];
  if (Array.isArray(v)) return colors[5];
  return jqType(v) === "object" ? colors[6] : colors[3];
}

/** An object's keys, or null for a number carrying its literal (an object in JavaScript, a number in jq). */
function jqKeysOrNull(v: Json): readonly string[] | null {
  return jqType(v) === "object" ? jqKeys(v as Record<string, unknown>) : null;
}

/** Prints one value as jq prints an output with these options (without the trailing newline). */
export function printJq(v: Json, o: PrintOptions): string {
  const pretty = o.indent === "tab" || o.indent > 0;
  const unit = o.indent === "tab" ? "\t" : " ".repeat(o.indent);
  const parts: string[] = [];
  const dump = (x: Json, depth: number): void => {
    const col = o.colors === null ? null : `\u001b[${colorOf(x, o.colors)}m`;
    if (col !== null) parts.push(col);
    if (depth > MAX_PRINT_DEPTH) parts.push("<skipped: too deep>");
    else if (x === null || typeof x !== "object")
      parts.push(typeof x === "string" ? quote(x, o.ascii) : printCompact(x));
    else if (Array.isArray(x)) {
      if (x.length === 0) parts.push("[]");
      else {
        parts.push("[");
        if (pretty) parts.push("\n" + unit.repeat(depth + 1));
        x.forEach((e, i) => {
          if (i > 0) parts.push(pretty ? ",\n" + unit.repeat(depth + 1) : ",");
          dump(e, depth + 1);
          if (col !== null) parts.push(col);
        });
        if (pretty) parts.push("\n" + unit.repeat(depth));
        if (col !== null) parts.push(col);
        parts.push("]");
      }
    } else {
      const keys = jqKeysOrNull(x);
      if (keys === null) parts.push(printCompact(x));
      else if (keys.length === 0) parts.push("{}");
      else {
        const obj = x as Record<string, Json>;
        parts.push("{");
        if (pretty) parts.push("\n" + unit.repeat(depth + 1));
        const order = o.sortKeys ? keys.slice().sort(byCodePoint) : keys;
        order.forEach((k, i) => {
          if (i > 0) parts.push(pretty ? ",\n" + unit.repeat(depth + 1) : ",");
          if (col !== null) parts.push(RESET, `\u001b[${(o.colors as string[])[7]}m`);
          parts.push(quote(k, o.ascii));
          if (col !== null) parts.push(RESET, col);
          parts.push(pretty ? ": " : ":");
          if (col !== null) parts.push(RESET);
          dump(obj[k], depth + 1);
          if (col !== null) parts.push(col);
        });
        if (pretty) parts.push("\n" + unit.repeat(depth));
        if (col !== null) parts.push(col);
        parts.push("}");
      }
    }
    if (col !== null) parts.push(RESET);
  };
  dump(v, 0);
  return parts.join("");
}
