/**
 * JSON with exact integers. JSON.parse turns every number into a double, so an
 * integer past 2^53 (a Ganeti reason-trail timestamp in nanoseconds, such as
 * 1795482117065516288) silently changes. Here an integer literal that is not a
 * safe integer becomes a `bigint` with exactly its digits, and every other
 * number stays a double; so each value has one form (a safe integer is always a
 * number), and `===` and `<` compare mixed values exactly. Works wherever the
 * engines run (Workers and Node 20, which lacks JSON.parse's source text).
 */

/** A JSON value whose integers beyond 2^53 are bigints. */
export type ExactJson =
  null | boolean | number | bigint | string | ExactJson[] | { [key: string]: ExactJson };

/** Called for each number written with a fraction or an exponent (`1.0`, `1e3`), with the object or array holding it. */
export type FloatLiteralHook = (holder: object, key: string | number) => void;

/** Nesting deeper than this is refused rather than risking the stack (callers' shape limits are far lower). */
const MAX_DEPTH = 1_000;

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
/** Sixteen digits in a row: the only way an unsafe integer literal can appear. */
const LONG_DIGITS = /\d{16}/;

class Reader {
  i = 0;
  constructor(
    private readonly s: string,
    private readonly onFloat: FloatLiteralHook | undefined,
  ) {}

  fail(what: string): never {
    throw new SyntaxError(`${what} in JSON at position ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else return;
    }
  }

  value(depth: number, holder: object | undefined, key: string | number): ExactJson {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 123) return this.object(depth + 1);
    if (c === 91) return this.array(depth + 1);
    if (c === 34) return this.string();
    if (c === 45 || (c >= 48 && c <= 57)) return this.number(holder, key);
    const word = c === 116 ? "true" : c === 102 ? "false" : c === 110 ? "null" : null;
    if (word !== null && this.s.startsWith(word, this.i)) {
      this.i += word.length;
      return c === 116 ? true : c === 102 ? false : null;
    }
    return this.fail(
      Number.isNaN(c) ? "Unexpected end of input" : `Unexpected token ${JSON.stringify(this.s[this.i])}`,
    );
  }

  number(holder: object | undefined, key: string | number): number | bigint {
    // an integer literal (the usual number) is found by a scan; anything else by the pattern
    const s = this.s;
    let k = s.charCodeAt(this.i) === 45 ? this.i + 1 : this.i;
    const first = s.charCodeAt(k);
    if (first >= 48 && first <= 57) {
      k++;
      if (first !== 48) {
        while (k < s.length) {
          const d = s.charCodeAt(k);
          if (d < 48 || d > 57) break;
          k++;
        }
      }
      const next = s.charCodeAt(k);
      if (next !== 46 && next !== 101 && next !== 69 && !(next >= 48 && next <= 57)) {
        const literal = s.slice(this.i, k);
        this.i = k;
        const n = Number(literal);
        return Number.isSafeInteger(n) ? n : BigInt(literal);
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (m === null) return this.fail("Bad number");
    this.i += m[0].length;
    const float = m[1] !== undefined || m[2] !== undefined;
    if (float) {
      if (this.onFloat && holder) this.onFloat(holder, key);
      return Number(m[0]);
    }
    const n = Number(m[0]);
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  }

  string(): string {
    // the usual string, without escapes or control characters, is found by a scan
    const s = this.s;
    const start = this.i;
    for (let j = start + 1; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === 34) {
        this.i = j + 1;
        return s.slice(start + 1, j);
      }
      if (c === 92 || c < 32) break;
    }
    STRING.lastIndex = this.i;
    const m = STRING.exec(this.s);
    if (m === null) return this.fail("Bad string");
    this.i += m[0].length;
    return m[0].indexOf("\\") < 0 ? m[0].slice(1, -1) : (JSON.parse(m[0]) as string);
  }

  array(depth: number): ExactJson[] {
    if (depth > MAX_DEPTH) this.fail("Nesting too deep");
    this.i++;
    const out: ExactJson[] = [];
    this.ws();
    if (this.s.charCodeAt(this.i) === 93) {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth, out, out.length));
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 93) return out;
      if (c !== 44) this.fail("Expected ',' or ']'");
    }
  }

  object(depth: number): { [key: string]: ExactJson } {
    if (depth > MAX_DEPTH) this.fail("Nesting too deep");
    this.i++;
    const out: { [key: string]: ExactJson } = {};
    this.ws();
    if (this.s.charCodeAt(this.i) === 125) {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) !== 34) this.fail("Expected a property name");
      const key = this.string();
      this.ws();
      if (this.s.charCodeAt(this.i++) !== 58) this.fail("Expected ':'");
      const v = this.value(depth, out, key);
      // JSON.parse defines `__proto__` as an own property; plain assignment would set the prototype.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
      this.ws();
      const c = this.s.charCodeAt(this.i++);
      if (c === 125) return out;
      if (c !== 44) this.fail("Expected ',' or '}'");
    }
  }
}

/**
 * Parses JSON text as JSON.parse does (same texts accepted, a SyntaxError
 * otherwise), except that integers beyond 2^53 keep their exact value as
 * bigints. `onFloat` learns which numbers were written as floats.
 */
export function parseExactJson(text: string, onFloat?: FloatLiteralHook): ExactJson {
  if (onFloat === undefined && !LONG_DIGITS.test(text)) return JSON.parse(text) as ExactJson;
  const reader = new Reader(text, onFloat);
  const value = reader.value(0, undefined, "");
  reader.ws();
  if (reader.i < text.length) reader.fail(`Unexpected token ${JSON.stringify(text[reader.i])}`);
  return value;
}

function write(v: unknown, out: string[]): void {
  if (typeof v === "bigint") {
    out.push(v.toString());
  } else if (Array.isArray(v)) {
    out.push("[");
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(",");
      const x: unknown = v[i];
      if (x === undefined || typeof x === "function" || typeof x === "symbol") out.push("null");
      else write(x, out);
    }
    out.push("]");
  } else if (
    typeof v === "object" &&
    v !== null &&
    typeof (v as { toJSON?: unknown }).toJSON !== "function"
  ) {
    out.push("{");
    let first = true;
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || typeof x === "function" || typeof x === "symbol") continue;
      if (!first) out.push(",");
      first = false;
      out.push(JSON.stringify(k), ":");
      write(x, out);
    }
    out.push("}");
  } else {
    out.push(JSON.stringify(v) ?? "null");
  }
}

/** JSON.stringify that writes bigints as their exact digits (JSON.stringify itself refuses them). */
export function stringifyExactJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    const out: string[] = [];
    write(value, out);
    return out.join("");
  }
}
