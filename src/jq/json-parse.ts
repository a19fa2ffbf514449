/**
 * JSON text reader for input, `fromjson` and `tonumber`, behaving as jq 1.7.1's parser (src/jv_parse.c):
 * the same accepted texts (`nan`, `+1`, `Infinity`), the same depth limit (256 open containers and
 * keys) and the same error texts and positions (line, and column counted in UTF-8 bytes).
 */
import type { Json } from "../engines/common/json.js";
import { numberFromText } from "./litnum.js";
import { formatNumber } from "./print.js";
import { JqError, setKey, type JObj } from "./values.js";

/** jq's parser nesting limit (MAX_PARSING_DEPTH): open arrays, objects and pending keys together. */
const MAX_DEPTH = 256;

const NUMBER =
  /^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?|[sS]?[nN][aA][nN][0-9]*)$/;

/** A parse failure's message, before its position is added. */
class Failure {
  constructor(readonly message: string) {}
}

/** Characters that end a literal token (jq's WHITESPACE, QUOTE and STRUCTURE classes). */
function isDelimiter(c: number): boolean {
  return (
    c === 32 ||
    c === 9 ||
    c === 10 ||
    c === 13 ||
    c === 34 ||
    c === 91 ||
    c === 93 ||
    c === 123 ||
    c === 125 ||
    c === 44 ||
    c === 58
  );
}

/** Turns a literal token into a value, or the message jq gives for it. */
function literal(token: string, keep: boolean): Json | Failure {
  const c = token[0];
  const word = c === "t" ? "true" : c === "f" ? "false" : c === "n" && token[1] === "u" ? "null" : null;
  if (word !== null)
    return token === word
      ? word === "true"
        ? true
        : word === "false"
          ? false
          : null
      : new Failure("Invalid literal");
  if (!NUMBER.test(token)) return new Failure("Invalid numeric literal");
  const t = token.toLowerCase();
  if (t.includes("nan")) return NaN;
  if (t.includes("inf")) return t.startsWith("-") ? -Infinity : Infinity;
  return keep ? numberFromText(token, formatNumber) : Number(token);
}

function hex4(s: string, i: number): number {
  const h = s.slice(i, i + 4);
  return /^[0-9a-fA-F]{4}$/.test(h) ? parseInt(h, 16) : -1;
}

/** Decodes a string token's escapes as jq's found_string does (control characters refused). */
function stringValue(raw: string): string | Failure {
  if (!raw.includes("\\") && !/[\u0000-\u001f]/.test(raw)) return raw;
  let out = "";
  for (let i = 0; i < raw.length;) {
    const ch = raw[i++];
    if (ch !== "\\") {
      if (ch.charCodeAt(0) <= 0x1f)
        return new Failure("Invalid string: control characters from U+0000 through U+001F must be escaped");
      out += ch;
      continue;
    }
    if (i >= raw.length) return new Failure("Expected escape character at end of string");
    const e = raw[i++];
    switch (e) {
      case "\\":
      case '"':
      case "/":
        out += e;
        break;
      case "b":
        out += "\b";
        break;
      case "f":
        out += "\f";
        break;
      case "t":
        out += "\t";
        break;
      case "n":
        out += "\n";
        break;
      case "r":
        out += "\r";
        break;
      case "u": {
        if (i + 4 > raw.length) return new Failure("Invalid \\uXXXX escape");
        let cp = hex4(raw, i);
        if (cp < 0) return new Failure("Invalid characters in \\uXXXX escape");
        i += 4;
        if (cp >= 0xd800 && cp <= 0xdbff) {
          const low = i + 6 <= raw.length && raw[i] === "\\" && raw[i + 1] === "u" ? hex4(raw, i + 2) : -1;
          if (low < 0xdc00 || low > 0xdfff)
            return new Failure("Invalid \\uXXXX\\uXXXX surrogate pair escape");
          i += 6;
          cp = 0x10000 + (((cp - 0xd800) << 10) | (low - 0xdc00));
        }
        // a lone low surrogate is not valid UTF-8 once encoded: jq replaces it
        out += cp >= 0xdc00 && cp <= 0xdfff ? "\uFFFD" : String.fromCodePoint(cp);
        break;
      }
      default:
        return new Failure("Invalid escape");
    }
  }
  return out;
}

/** A key read before its value (jq keeps it on the parser stack, counted in the depth). */
class KeyFrame {
  constructor(readonly key: string) {}
}

type Frame = Json[] | JObj | KeyFrame;

/** The scanner state, fed one character at a time (jq's `scan`); the CLI reads its input stream with it. */
export class Reader {
  line = 1;
  column = 0;
  private stack: Frame[] = [];
  /** The value waiting for a separator or a closing bracket (jq's `p->next`); undefined when none. */
  private next: Json | undefined = undefined;
  /** Where the open literal token starts, -1 when none is open. */
  private tokenStart = -1;
  private inString = false;
  private escaped = false;
  private stringStart = 0;
  pos = 0;

  constructor(
    readonly text: string,
    readonly keep: boolean,
  ) {
    if (text.charCodeAt(0) === 0xfeff) this.pos = 1;
  }

  private fail(message: string, atEnd: boolean): never {
    throw new JqError(`${message} at ${atEnd ? "EOF at " : ""}line ${this.line}, column ${this.column}`);
  }

  private setValue(v: Json): void {
    if (this.next !== undefined) this.fail("Expected separator between values", false);
    this.next = v;
  }

  /** Ends the literal token that runs up to `end` (exclusive), if one is open. */
  private endToken(end: number, atEnd: boolean): void {
    if (this.tokenStart < 0) return;
    const v = literal(this.text.slice(this.tokenStart, end), this.keep);
    this.tokenStart = -1;
    if (v instanceof Failure) this.fail(v.message, atEnd);
    this.setValue(v);
  }

  private structure(ch: string): void {
    const top = this.stack[this.stack.length - 1];
    switch (ch) {
      case "[":
      case "{":
        if (this.stack.length >= MAX_DEPTH) this.fail("Exceeds depth limit for parsing", false);
        if (this.next !== undefined) this.fail("Expected separator between values", false);
        this.stack.push(ch === "[" ? [] : ({} as JObj));
        return;
      case ":":
        if (this.next === undefined) this.fail("Expected string key before ':'", false);
        if (top === undefined || Array.isArray(top) || top instanceof KeyFrame)
          this.fail("':' not as part of an object", false);
        if (typeof this.next !== "string") this.fail("Object keys must be strings", false);
        this.stack.push(new KeyFrame(this.next));
        this.next = undefined;
        return;
      case ",":
        if (this.next === undefined) this.fail("Expected value before ','", false);
        if (top === undefined) this.fail("',' not as part of an object or array", false);
        if (Array.isArray(top)) top.push(this.next);
        else if (top instanceof KeyFrame) {
          this.stack.pop();
          setKey(this.stack[this.stack.length - 1] as JObj, top.key, this.next);
        } else this.fail("Objects must consist of key:value pairs", false);
        this.next = undefined;
        return;
      case "]":
        if (top === undefined || !Array.isArray(top)) this.fail("Unmatched ']'", false);
        if (this.next !== undefined) top.push(this.next);
        else if (top.length !== 0) this.fail("Expected another array element", false);
        this.stack.pop();
        this.next = top;
        return;
      case "}":
        if (top === undefined) this.fail("Unmatched '}'", false);
        if (this.next !== undefined) {
          if (!(top instanceof KeyFrame)) this.fail("Objects must consist of key:value pairs", false);
          this.stack.pop();
          setKey(this.stack[this.stack.length - 1] as JObj, top.key, this.next);
        } else {
          if (Array.isArray(top) || top instanceof KeyFrame) this.fail("Unmatched '}'", false);
          if (Object.keys(top).length !== 0) this.fail("Expected another key-value pair", false);
        }
        this.next = this.stack.pop() as Json;
        return;
    }
  }

  /** A complete top-level value, taken out of the scanner. */
  private done(): Json | undefined {
    if (this.stack.length !== 0 || this.next === undefined) return undefined;
    const v = this.next;
    this.next = undefined;
    return v;
  }

  /** Reads up to the end of the next value; undefined when the text ends with no value. */
  read(): Json | undefined {
    const s = this.text;
    const n = s.length;
    while (this.pos < n) {
      const code = s.charCodeAt(this.pos++);
      // columns count UTF-8 bytes: a surrogate pair is 4, counted at its first half
      if (code === 10) {
        this.line++;
        this.column = 0;
      } else
        this.column +=
          code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0xd800 || code > 0xdfff ? 3 : code < 0xdc00 ? 4 : 0;
      if (this.inString) {
        if (code === 34 && !this.escaped) {
          this.inString = false;
          const v = stringValue(s.slice(this.stringStart, this.pos - 1));
          if (v instanceof Failure) this.fail(v.message, false);
          this.setValue(v);
          const out = this.done();
          if (out !== undefined) return out;
        } else this.escaped = code === 92 && !this.escaped;
        continue;
      }
      if (!isDelimiter(code)) {
        if (this.tokenStart < 0) this.tokenStart = this.pos - 1;
        continue;
      }
      this.endToken(this.pos - 1, false);
      let out = this.done();
      if (code === 34) {
        this.inString = true;
        this.escaped = false;
        this.stringStart = this.pos;
      } else if (code !== 32 && code !== 9 && code !== 10 && code !== 13) this.structure(s[this.pos - 1]);
      // a top-level null is a value: only undefined means none is done (`??=` would drop it)
      if (out === undefined) out = this.done();
      if (out !== undefined) return out;
    }
    if (this.inString) this.fail("Unfinished string", true);
    this.endToken(n, true);
    if (this.stack.length !== 0) this.fail("Unfinished JSON term", true);
    return this.done();
  }
}

/** Parses every JSON value in a text (whitespace separated), as jq reads its input; `literals` keeps number literals. */
export function parseJsonSeq(text: string, literals = false): Json[] {
  const r = new Reader(text, literals);
  const out: Json[] = [];
  for (;;) {
    const v = r.read();
    if (v === undefined) return out;
    out.push(v);
  }
}

const LITERAL_SENSITIVE = /[0-9]\.[0-9]*0(?![0-9])|[0-9][eE]|[0-9]\.(?![0-9])|(?<![0-9.])0[0-9]|[0-9]{16}/;
/** Keys like "1" (their place in the key order) and lone surrogate escapes (jq replaces them). */
const JSON_PARSE_DIFFERS = /"[0-9]|\\u[dD][89a-fA-F]/;

/** True when the text cannot reach the depth limit (fewer opening brackets than the limit). */
function shallow(text: string): boolean {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c === 91 || c === 123) && ++n >= MAX_DEPTH / 2) return false;
  }
  return true;
}

/** `fromjson`: exactly one JSON value, or jq's parse error message. */
export function fromJson(text: string): Json {
  // JSON.parse gives the same value for plain JSON; numbers whose literal would print differently
  // (1.0, 1e2, long digit runs), keys like "1", lone surrogates and deep nesting need the reader
  if (!LITERAL_SENSITIVE.test(text) && !JSON_PARSE_DIFFERS.test(text) && shallow(text)) {
    try {
      return JSON.parse(text) as Json;
    } catch {
      // the reader gives jq's message (or accepts nan, +1, Infinity...)
    }
  }
  const r = new Reader(text, true);
  try {
    const v = r.read();
    if (v === undefined) throw new JqError("Expected JSON value");
    if (r.read() !== undefined) throw new JqError("Unexpected extra JSON values");
    return v;
  } catch (e) {
    if (e instanceof JqError) throw new JqError(`${String(e.value)} (while parsing '${text}')`);
    throw e;
  }
}
