/**
 * Where a value of a JSON text is written: the character offset of the value a
 * JSON pointer names, and of one character inside a string value (escapes
 * counted as written). Used only to report an error at the user's own line and
 * column, so it runs on the error path, never while deciding.
 */

/** A 1-based line and column (columns in UTF-16 units, as editors and the playground count). */
export interface TextPlace {
  readonly line: number;
  readonly column: number;
}

/** How deep the locator follows containers: deeper pointers are not located (policy texts are shallower). */
const MAX_DEPTH = 512;

class NotJson extends Error {}

/** Reads JSON text from an offset, recording where the values on one pointer's path start. */
class Reader {
  i = 0;
  constructor(readonly text: string) {}

  skip(): void {
    for (;;) {
      const c = this.text.charCodeAt(this.i);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return;
      this.i++;
    }
  }

  /** Skips a string starting at the quote under the cursor; answers its raw text. */
  string(): string {
    const start = this.i;
    this.i++;
    for (;;) {
      const c = this.text[this.i];
      if (c === undefined) throw new NotJson();
      if (c === '"') break;
      this.i += c === "\\" ? (this.text[this.i + 1] === "u" ? 6 : 2) : 1;
    }
    this.i++;
    return this.text.slice(start, this.i);
  }

  /** Skips any value under the cursor, with an explicit count of open containers instead of recursion. */
  value(): void {
    let open = 0;
    do {
      this.skip();
      const c = this.text[this.i];
      if (c === undefined) throw new NotJson();
      if (c === '"') this.string();
      else if (c === "{" || c === "[") {
        open++;
        this.i++;
      } else if (c === "}" || c === "]") {
        open--;
        this.i++;
      } else if (c === "," || c === ":") this.i++;
      else {
        const start = this.i;
        while (this.i < this.text.length && !/[\s,:\]}[{"]/.test(this.text[this.i]!)) this.i++;
        if (this.i === start) throw new NotJson();
      }
    } while (open > 0);
  }
}

/** The pointer's reference tokens, unescaped (`~1` is `/`, `~0` is `~`); null for a malformed pointer. */
function tokens(pointer: string): string[] | null {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return null;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * The offset where the value a JSON pointer names starts in `text`, or null
 * when the text holds no such value. A key written twice names its last
 * member, as JSON.parse reads it.
 */
export function pointerOffset(text: string, pointer: string): number | null {
  const path = tokens(pointer);
  if (path === null || path.length > MAX_DEPTH) return null;
  const r = new Reader(text);
  try {
    r.skip();
    for (const token of path) {
      const c = text[r.i];
      if (c === "{") {
        let found: number | null = null;
        r.i++;
        r.skip();
        while (text[r.i] !== "}") {
          if (text[r.i] !== '"') return null;
          const key = JSON.parse(r.string()) as string;
          r.skip();
          if (text[r.i] !== ":") return null;
          r.i++;
          r.skip();
          if (key === token) found = r.i;
          r.value();
          r.skip();
          if (text[r.i] === ",") {
            r.i++;
            r.skip();
          } else if (text[r.i] !== "}") return null;
        }
        if (found === null) return null;
        r.i = found;
      } else if (c === "[") {
        if (!/^(0|[1-9]\d*)$/.test(token)) return null;
        const index = Number(token);
        r.i++;
        r.skip();
        for (let n = 0; n < index; n++) {
          if (text[r.i] === "]") return null;
          r.value();
          r.skip();
          if (text[r.i] !== ",") return null;
          r.i++;
          r.skip();
        }
        if (text[r.i] === "]") return null;
      } else return null;
    }
    return r.i;
  } catch (e) {
    if (e instanceof NotJson || e instanceof SyntaxError) return null;
    throw e;
  }
}

/**
 * The offset in `text` of the character at `index` (UTF-16 units) of the
 * decoded string whose opening quote is at `quote`: an escape (`\n`, `\u00e9`)
 * is one decoded character written as several. An index past the end gives
 * the closing quote; null when no string starts at `quote`.
 */
export function stringCharOffset(text: string, quote: number, index: number): number | null {
  if (text[quote] !== '"') return null;
  let i = quote + 1;
  for (let n = 0; n < index; n++) {
    const c = text[i];
    if (c === undefined || c === '"') return i;
    i += c === "\\" ? (text[i + 1] === "u" ? 6 : 2) : 1;
  }
  return i;
}

/** The 1-based line and column of an offset. */
export function placeAt(text: string, offset: number): TextPlace {
  let line = 1;
  let start = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: end - start + 1 };
}

/**
 * The place in `text` of a pointer's value, or, with `charIndex`, of that
 * character inside the string value it names; null when the text holds no
 * such value.
 */
export function locatePointer(text: string, pointer: string, charIndex?: number): TextPlace | null {
  const at = pointerOffset(text, pointer);
  if (at === null) return null;
  if (charIndex === undefined) return placeAt(text, at);
  const inside = stringCharOffset(text, at, charIndex);
  return placeAt(text, inside ?? at);
}
