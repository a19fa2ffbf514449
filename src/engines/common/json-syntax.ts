/**
 * Where a JSON text stops being JSON, told as Python's json module tells it
 * (`Expecting ',' delimiter: line 3 column 18 (char 30)`): pScheduler and
 * Ganeti read their files with it, so their users know these messages. Only
 * called after JSON.parse has failed, so it costs nothing on the good path.
 */

/** A JSON syntax error: Python's message and its place (1-based line and column, 0-based character). */
export interface JsonSyntaxError {
  readonly message: string;
  readonly line: number;
  readonly column: number;
  readonly char: number;
}

class Stop {
  constructor(
    readonly message: string,
    readonly pos: number,
  ) {}
}

const WS = new Set([" ", "\t", "\n", "\r"]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;
const MAX_DEPTH = 10_000;

/** Finds the first syntax error of a JSON text as CPython's json.loads does; null when the text is JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  let i = 0;
  const skip = (from: number) => {
    let j = from;
    while (j < text.length && WS.has(text[j])) j++;
    return j;
  };
  const string = (quote: number): number => {
    let j = quote + 1;
    for (;;) {
      if (j >= text.length) throw new Stop("Unterminated string starting at", quote);
      const c = text[j];
      if (c === '"') return j + 1;
      if (c === "\\") {
        const e = text[j + 1];
        if (e === undefined) throw new Stop("Unterminated string starting at", quote);
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6))) throw new Stop("Invalid \\uXXXX escape", j + 1);
          j += 6;
        } else if ('"\\/bfnrt'.includes(e)) {
          j += 2;
        } else {
          throw new Stop("Invalid \\escape", j);
        }
        continue;
      }
      if (c.charCodeAt(0) < 0x20) throw new Stop("Invalid control character at", j);
      j++;
    }
  };
  const value = (at: number, depth: number): number => {
    if (depth > MAX_DEPTH) throw new Stop("Expecting value", at);
    const c = text[at];
    if (c === '"') return string(at);
    if (c === "{") return object(at, depth);
    if (c === "[") return array(at, depth);
    for (const word of ["null", "true", "false"]) if (text.startsWith(word, at)) return at + word.length;
    NUMBER.lastIndex = at;
    const m = NUMBER.exec(text);
    if (m !== null) return at + m[0].length;
    throw new Stop("Expecting value", at);
  };
  const object = (open: number, depth: number): number => {
    let end = skip(open + 1);
    if (text[end] === "}") return end + 1;
    if (text[end] !== '"') throw new Stop("Expecting property name enclosed in double quotes", end);
    for (;;) {
      end = skip(string(end));
      if (text[end] !== ":") throw new Stop("Expecting ':' delimiter", end);
      end = skip(value(skip(end + 1), depth + 1));
      if (text[end] === "}") return end + 1;
      if (text[end] !== ",") throw new Stop("Expecting ',' delimiter", end);
      end = skip(end + 1);
      if (text[end] !== '"') throw new Stop("Expecting property name enclosed in double quotes", end);
    }
  };
  const array = (open: number, depth: number): number => {
    let end = skip(open + 1);
    if (text[end] === "]") return end + 1;
    for (;;) {
      end = skip(value(end, depth + 1));
      if (text[end] === "]") return end + 1;
      if (text[end] !== ",") throw new Stop("Expecting ',' delimiter", end);
      end = skip(end + 1);
    }
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) throw new Stop("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    i = skip(value(skip(0), 0));
    if (i !== text.length) throw new Stop("Extra data", i);
    return null;
  } catch (e) {
    if (!(e instanceof Stop)) throw e;
    return place(text, e.message, e.pos);
  }
}

/** Python counts characters (code points), not UTF-16 units: line, column and char are in its terms. */
function place(text: string, message: string, pos: number): JsonSyntaxError {
  let line = 1;
  let column = 1;
  let char = 0;
  for (let j = 0; j < pos && j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code >= 0xd800 && code < 0xdc00 && j + 1 < pos) {
      const next = text.charCodeAt(j + 1);
      if (next >= 0xdc00 && next < 0xe000) j++;
    }
    char++;
    if (code === 10) {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { message, line, column, char };
}

/** Python's whole text: `Expecting value: line 1 column 1 (char 0)`. */
export function pythonJsonMessage(e: JsonSyntaxError): string {
  return `${e.message}: line ${e.line} column ${e.column} (char ${e.char})`;
}

/**
 * Parses JSON with JSON.parse; on failure, the error in Python's terms and its
 * `line:column`. A text JSON.parse refuses that Python would read (NaN) is
 * reported as Python's "Expecting value" at its start.
 */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, error: findJsonSyntaxError(text) ?? place(text, "Expecting value", 0) };
  }
}
