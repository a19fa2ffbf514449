/** JSON text parser for input, `fromjson` and `tonumber`: accepts `nan`, reports jq-style errors. */
import type { Json } from "../engines/common/json.js";
import { numberFromText } from "./litnum.js";
import { formatNumber } from "./print.js";
import { JqError, setKey, type JObj } from "./values.js";

class P {
  i = 0;
  constructor(
    readonly s: string,
    readonly literals = false,
  ) {}

  lineCol(): string {
    let line = 1;
    let col = 0;
    for (let j = 0; j < this.i && j < this.s.length; j++) {
      if (this.s[j] === "\n") {
        line++;
        col = 0;
      } else col++;
    }
    return `line ${line}, column ${col}`;
  }

  err(what: string): never {
    throw new JqError(`${what} at ${this.i >= this.s.length ? "EOF at " : ""}${this.lineCol()}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) this.i++;
      else break;
    }
  }

  value(depth: number): Json {
    if (depth > 10000) this.err("Exceeds depth limit for parsing");
    this.ws();
    const s = this.s;
    if (this.i >= s.length) this.err("Unfinished JSON term");
    const c = s[this.i];
    if (c === "{") {
      this.i++;
      const o: JObj = {};
      this.ws();
      if (s[this.i] === "}") {
        this.i++;
        return o;
      }
      for (;;) {
        this.ws();
        if (s[this.i] !== '"') {
          if (this.i >= s.length) this.err("Unfinished JSON term");
          this.err("Object keys must be strings");
        }
        const k = this.string();
        this.ws();
        if (s[this.i] !== ":") {
          if (this.i >= s.length) this.err("Unfinished JSON term");
          this.err("Objects must consist of key:value pairs");
        }
        this.i++;
        setKey(o, k, this.value(depth + 1));
        this.ws();
        if (s[this.i] === ",") {
          this.i++;
          continue;
        }
        if (s[this.i] === "}") {
          this.i++;
          return o;
        }
        if (this.i >= s.length) this.err("Unfinished JSON term");
        this.err("Expected separator between values");
      }
    }
    if (c === "[") {
      this.i++;
      const a: Json[] = [];
      this.ws();
      if (s[this.i] === "]") {
        this.i++;
        return a;
      }
      for (;;) {
        a.push(this.value(depth + 1));
        this.ws();
        if (s[this.i] === ",") {
          this.i++;
          continue;
        }
        if (s[this.i] === "]") {
          this.i++;
          return a;
        }
        if (this.i >= s.length) this.err("Unfinished JSON term");
        this.err("Expected separator between values");
      }
    }
    if (c === '"') return this.string();
    // a literal token is a run of these characters; jq names the error by its first letter
    let end = this.i;
    while (end < s.length && /[A-Za-z0-9.+-]/.test(s[end])) end++;
    if (end === this.i) {
      this.i++;
      this.err("Invalid literal");
    }
    const t = s.slice(this.i, end);
    // jq's scanner has consumed the delimiter after the token when it reports a bad literal
    if (t === "true" || t === "false" || t === "null" || /^-?nan[0-9]*$/i.test(t) || /^-?infinity$/i.test(t)) {
      this.i = end;
      if (t === "true") return true;
      if (t === "false") return false;
      if (t === "null") return null;
      if (/^-?nan[0-9]*$/i.test(t)) return NaN;
      return t.startsWith("-") ? -Infinity : Infinity;
    }
    this.i = end < s.length ? end + 1 : end;
    if (/^[tfn]/.test(t)) this.err("Invalid literal");
    if (!/^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) this.err("Invalid numeric literal");
    this.i = end;
    return this.literals ? numberFromText(t, formatNumber) : Number(t);
  }

  string(): string {
    const s = this.s;
    const start = ++this.i;
    let j = start;
    while (j < s.length) {
      const c = s.charCodeAt(j);
      if (c === 34) break;
      if (c === 92) {
        j += 2;
        continue;
      }
      if (c < 32) {
        this.i = j;
        this.err("Invalid string: control characters from U+0000 through U+001F must be escaped");
      }
      j++;
    }
    if (j >= s.length) {
      this.i = s.length;
      this.err("Unfinished string");
    }
    const raw = s.slice(start, j);
    this.i = j + 1;
    if (!raw.includes("\\")) return raw;
    try {
      return JSON.parse('"' + raw + '"') as string;
    } catch {
      this.i = j;
      return this.err("Invalid escape");
    }
  }
}

/** Parses every JSON value in a text (whitespace separated), as jq reads its input; `literals` keeps number literals. */
export function parseJsonSeq(text: string, literals = false): Json[] {
  const p = new P(text, literals);
  const out: Json[] = [];
  for (;;) {
    p.ws();
    if (p.i >= text.length) return out;
    out.push(p.value(0));
  }
}

const LITERAL_SENSITIVE = /[0-9]\.[0-9]*0(?![0-9])|[0-9][eE]|[0-9]\.(?![0-9])|(?<![0-9.])0[0-9]|[0-9]{16}/;
/** A string starting with a digit may be an array-index-like key, whose place JSON.parse would lose. */
const INDEX_LIKE_KEY = /"[0-9]/;

/** `fromjson`: exactly one JSON value, or jq's parse error message. */
export function fromJson(text: string): Json {
  // numbers whose literal would print differently (1.0, 1e2, long digit runs) and keys like "1"
  // (their place in the key order) need this parser
  if (!LITERAL_SENSITIVE.test(text) && !INDEX_LIKE_KEY.test(text)) {
    try {
      return JSON.parse(text) as Json;
    } catch {
      // fall through to the slower parser for nan and jq's messages
    }
  }
  const p = new P(text, true);
  try {
    p.ws();
    if (p.i >= text.length) throw new JqError("Expected JSON value");
    const v = p.value(0);
    p.ws();
    if (p.i < text.length) throw new JqError("Unexpected extra JSON values");
    return v;
  } catch (e) {
    if (e instanceof JqError) {
      const msg = String(e.value);
      throw new JqError(msg === "Expected JSON value" ? `${msg} (while parsing '${text}')` : `${msg} (while parsing '${text}')`);
    }
    throw e;
  }
}
