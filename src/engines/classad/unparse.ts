/**
 * Unparsing values and expressions exactly as the ClassAd library prints
 * them, since clients compare printed values and `string()`/`unparse()`
 * results byte for byte.
 */
import { ClassAd } from "./classad.js";
import type { Node, Op } from "./node.js";
import { absTimeBody, relTimeText } from "./time.js";
import { AbsTime, ERROR, ListValue, Real, RelTime, UNDEF, type Value } from "./values.js";

const enc = new TextEncoder();

/** `%1.15E` with the library's special cases for zero, NaN and infinities. */
export function realText(d: number): string {
  if (d === 0) return Object.is(d, -0) ? "-0.0" : "0.0";
  if (Number.isNaN(d)) return 'real("NaN")';
  if (d === Infinity) return 'real("INF")';
  if (d === -Infinity) return 'real("-INF")';
  const t = d.toExponential(15);
  const e = t.indexOf("e");
  const exp = t.slice(e + 1);
  const sign = exp[0] === "-" ? "-" : "+";
  const digits = exp.replace(/^[+-]/, "");
  return `${t.slice(0, e)}E${sign}${digits.length < 2 ? "0" + digits : digits}`;
}

function isPlainAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c >= 0x7f || c === 92 || c === 34 || c === 39) return false;
  }
  return true;
}

/** A quoted string (or quoted attribute name) with the library's escapes. */
export function quoteString(s: string, delim = '"'): string {
  if (isPlainAscii(s)) return delim + s + delim;
  let out = delim;
  const bytes = enc.encode(s);
  for (const b of bytes) {
    const ch = String.fromCharCode(b);
    if (ch === delim) {
      out += "\\" + delim;
      continue;
    }
    switch (b) {
      case 7:
        out += "\\a";
        continue;
      case 8:
        out += "\\b";
        continue;
      case 12:
        out += "\\f";
        continue;
      case 10:
        out += "\\n";
        continue;
      case 13:
        out += "\\r";
        continue;
      case 9:
        out += "\\t";
        continue;
      case 11:
        out += "\\v";
        continue;
      case 92:
        out += "\\\\";
        continue;
    }
    if (b < 0x20 || b >= 0x7f) out += "\\" + b.toString(8).padStart(3, "0");
    else out += ch;
  }
  return out + delim;
}

const RESERVED = new Set(["error", "false", "is", "isnt", "parent", "true", "undefined"]);

/** An attribute name, quoted with single quotes when it is not a plain identifier. */
export function identText(name: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !RESERVED.has(name)) return name;
  const q = quoteString(name, "'");
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(q.slice(1, -1)) && !RESERVED.has(q.slice(1, -1))
    ? q.slice(1, -1)
    : q;
}

const OP_TEXT: Record<Op, string> = {
  "||": " || ",
  "&&": " && ",
  "|": " | ",
  "^": " ^ ",
  "&": " & ",
  "==": " == ",
  "!=": " != ",
  "=?=": " =?= ",
  "=!=": " =!= ",
  is: " =?= ",
  isnt: " =!= ",
  "<": " < ",
  "<=": " <= ",
  ">": " > ",
  ">=": " >= ",
  "<<": " << ",
  ">>": " >> ",
  ">>>": " >>> ",
  "+": " + ",
  "-": " - ",
  "*": " * ",
  "/": " / ",
  "%": " % ",
  "u-": " -",
  "u+": " +",
  "~": " ~",
  "!": " !",
  "?:": " ?: ",
  "[]": "",
};

/** Prints an expression tree. */
export function unparseNode(n: Node): string {
  switch (n.k) {
    case "lit":
      return n.text ?? unparseValue(n.v);
    case "attr":
      if (n.scope) return unparseNode(n.scope) + "." + identText(n.name);
      return (n.abs ? "." : "") + identText(n.name);
    case "paren":
      return "(" + unparseNode(n.a) + ")";
    case "cond":
      return unparseNode(n.c) + " ? " + unparseNode(n.a) + " : " + unparseNode(n.b);
    case "op":
      if (n.b === null) return OP_TEXT[n.op] + unparseNode(n.a);
      if (n.op === "[]") return unparseNode(n.a) + "[" + unparseNode(n.b) + "]";
      return unparseNode(n.a) + OP_TEXT[n.op] + unparseNode(n.b);
    case "call":
      return n.name + "(" + n.args.map(unparseNode).join(",") + ")";
    case "list":
      return "{ " + n.items.map(unparseNode).join(",") + " }";
    case "ad":
      return "[ " + n.attrs.map(([k, v]) => identText(k) + " = " + unparseNode(v)).join("; ") + " ]";
  }
}

/** Prints a value as the library unparses it. */
export function unparseValue(v: Value): string {
  switch (typeof v) {
    case "number":
    case "bigint":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return quoteString(v);
  }
  if (v instanceof Real) return realText(v.v);
  if (v === UNDEF) return "undefined";
  if (v === ERROR) return "error";
  if (v instanceof ListValue) return "{ " + v.exprs.map((c) => unparseNode(c.node)).join(",") + " }";
  if (v instanceof AbsTime) return `absTime("${absTimeBody(v)}")`;
  if (v instanceof RelTime) return relTimeText(v.secs);
  if (v instanceof ClassAd) return unparseAd(v);
  return "error";
}

/** Prints an ad `[ a = 1; b = a + 1 ]` in attribute order. */
export function unparseAd(ad: ClassAd): string {
  const parts: string[] = [];
  for (const slot of ad.attributes()) parts.push(identText(slot.name) + " = " + unparseNode(slot.c.node));
  return "[ " + parts.join("; ") + " ]";
}
