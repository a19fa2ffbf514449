/** Tokens of the jq language, with source offsets so errors can say line:column. */
import { fromJson } from "./json-parse.js";
import { JqError } from "./values.js";

export type Token =
  | { t: "num"; v: number; text: string; pos: number }
  | { t: "str"; parts: Array<string | Token[]>; pos: number }
  | { t: "fmt"; v: string; pos: number }
  | { t: "ident"; v: string; pos: number }
  | { t: "kw"; v: string; pos: number }
  | { t: "field"; v: string; pos: number }
  | { t: "var"; v: string; pos: number }
  | { t: "op"; v: string; pos: number }
  | { t: "eof"; pos: number };

/** A syntax error with the source offset where it was found. */
export class JqSyntaxError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

const KEYWORDS = new Set([
  "def",
  "if",
  "then",
  "elif",
  "else",
  "end",
  "as",
  "reduce",
  "foreach",
  "try",
  "catch",
  "label",
  "import",
  "include",
  "and",
  "or",
  "__loc__",
]);

const OPS = [
  "?//",
  "//=",
  "|=",
  "+=",
  "-=",
  "*=",
  "/=",
  "%=",
  "==",
  "!=",
  "<=",
  ">=",
  "//",
  "..",
  "|",
  ",",
  "+",
  "-",
  "*",
  "/",
  "%",
  "=",
  "<",
  ">",
  ".",
  "[",
  "]",
  "{",
  "}",
  "(",
  ")",
  ":",
  ";",
  "?",
  "$",
];

const NUM_RE = /(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;

const OPS_BY_LEN: Record<number, Set<string>> = {
  1: new Set(OPS.filter((o) => o.length === 1)),
  2: new Set(OPS.filter((o) => o.length === 2)),
  3: new Set(OPS.filter((o) => o.length === 3)),
};

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Splits program text into tokens; string interpolations become nested token lists. */
export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  const end = lexInto(src, 0, out, false);
  out.push({ t: "eof", pos: end });
  return out;
}

/** How deeply string interpolations may nest (`"\("\(…)")"`). */
export const MAX_INTERPOLATION_DEPTH = 64;

/** Lexes from `start`; in nested mode stops at the `)` that closes an interpolation. */
function lexInto(src: string, start: number, out: Token[], nested: boolean, level = 0): number {
  let i = start;
  let depth = 0;
  const n = src.length;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13) {
      i++;
      continue;
    }
    if (c === 35) {
      while (i < n && src.charCodeAt(i) !== 10) i++;
      continue;
    }
    const pos = i;
    if (c === 34) {
      i = lexString(src, i + 1, out, pos, level);
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(src.charCodeAt(i + 1)))) {
      NUM_RE.lastIndex = i;
      const m = NUM_RE.exec(src);
      const text = m ? m[0] : src[i];
      out.push({ t: "num", v: Number(text), text, pos });
      i += text.length;
      continue;
    }
    if (c === 64) {
      let j = i + 1;
      while (j < n && isIdentChar(src.charCodeAt(j))) j++;
      if (j === i + 1) throw new JqSyntaxError("syntax error, unexpected '@'", pos);
      out.push({ t: "fmt", v: src.slice(i + 1, j), pos });
      i = j;
      continue;
    }
    if (c === 46 && isIdentStart(src.charCodeAt(i + 1))) {
      let j = i + 1;
      while (j < n && isIdentChar(src.charCodeAt(j))) j++;
      out.push({ t: "field", v: src.slice(i + 1, j), pos });
      i = j;
      continue;
    }
    if (c === 36 && isIdentStart(src.charCodeAt(i + 1))) {
      let j = i + 1;
      for (;;) {
        while (j < n && isIdentChar(src.charCodeAt(j))) j++;
        if (src.startsWith("::", j) && isIdentStart(src.charCodeAt(j + 2))) j += 2;
        else break;
      }
      out.push({ t: "var", v: src.slice(i + 1, j), pos });
      i = j;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i;
      for (;;) {
        while (j < n && isIdentChar(src.charCodeAt(j))) j++;
        if (src.startsWith("::", j) && isIdentStart(src.charCodeAt(j + 2))) j += 2;
        else break;
      }
      const word = src.slice(i, j);
      out.push(KEYWORDS.has(word) ? { t: "kw", v: word, pos } : { t: "ident", v: word, pos });
      i = j;
      continue;
    }
    let op: string | undefined;
    const s3 = src.substr(i, 3);
    if (OPS_BY_LEN[3].has(s3)) op = s3;
    else if (OPS_BY_LEN[2].has(s3.slice(0, 2))) op = s3.slice(0, 2);
    else if (OPS_BY_LEN[1].has(src[i])) op = src[i];
    if (op === undefined) throw new JqSyntaxError(`syntax error, unexpected INVALID_CHARACTER`, pos);
    if (nested) {
      if (op === "(") depth++;
      else if (op === ")") {
        if (depth === 0) return i + 1;
        depth--;
      }
    }
    out.push({ t: "op", v: op, pos });
    i += op.length;
  }
  if (nested) throw new JqSyntaxError("unterminated string interpolation", start);
  return i;
}

/**
 * jq's lexer takes a run of escapes as one token and decodes it as the JSON string `"<run>"`, so a bad
 * escape is reported with the JSON parser's message for that text (`Invalid escape at line 1, column
 * 4 (while parsing '"\\ "')`), at the run's start.
 */
function escapeError(src: string, runStart: number): JqSyntaxError {
  const run =
    /^(?:\\[^u(]|\\u[a-zA-Z0-9]{0,4})+/.exec(src.slice(runStart))?.[0] ?? src.slice(runStart, runStart + 2);
  try {
    fromJson(`"${run}"`);
  } catch (e) {
    if (e instanceof JqError && typeof e.value === "string") return new JqSyntaxError(e.value, runStart);
  }
  return new JqSyntaxError(`Invalid escape (while parsing '"${run}"')`, runStart);
}

/** Lexes a string literal body starting after the opening quote. */
function lexString(src: string, start: number, out: Token[], pos: number, level: number): number {
  const parts: Array<string | Token[]> = [];
  let buf = "";
  let i = start;
  const n = src.length;
  // where the run of escapes around the current one starts (jq lexes such a run as one token)
  let runStart = -1;
  let runEnd = -1;
  for (;;) {
    if (i >= n) throw new JqSyntaxError("unterminated string literal", pos);
    const c = src[i];
    if (c === '"') {
      i++;
      break;
    }
    if (c !== "\\") {
      buf += c;
      i++;
      continue;
    }
    if (i !== runEnd) runStart = i;
    const e = src[i + 1];
    i += 2;
    switch (e) {
      case '"':
        buf += '"';
        break;
      case "\\":
        buf += "\\";
        break;
      case "/":
        buf += "/";
        break;
      case "b":
        buf += "\b";
        break;
      case "f":
        buf += "\f";
        break;
      case "n":
        buf += "\n";
        break;
      case "r":
        buf += "\r";
        break;
      case "t":
        buf += "\t";
        break;
      case "u": {
        const hex = src.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw escapeError(src, runStart);
        buf += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        break;
      }
      case "(": {
        if (buf !== "" || parts.length === 0) parts.push(buf);
        buf = "";
        const inner: Token[] = [];
        if (level >= MAX_INTERPOLATION_DEPTH)
          throw new JqSyntaxError(
            `string interpolation nested too deeply (more than ${MAX_INTERPOLATION_DEPTH} levels)`,
            i - 2,
          );
        i = lexInto(src, i, inner, true, level + 1);
        inner.push({ t: "eof", pos: i - 1 });
        parts.push(inner);
        break;
      }
      default:
        throw escapeError(src, runStart);
    }
    runEnd = e === "(" ? -1 : i;
  }
  parts.push(buf);
  out.push({ t: "str", parts: fixSurrogates(parts), pos });
  return i;
}

/** Replaces lone surrogates produced by \u escapes with U+FFFD, as jq does. */
function fixSurrogates(parts: Array<string | Token[]>): Array<string | Token[]> {
  return parts.map((p) => (typeof p === "string" ? wellFormed(p) : p));
}

/** Converts a source offset to the 1-based "line:column" jq reports. */
export function lineCol(src: string, pos: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < pos && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return `${line}:${col}`;
}

/** Replaces unpaired UTF-16 surrogates with U+FFFD so strings are valid Unicode. */
export function wellFormed(s: string): string {
  return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}
