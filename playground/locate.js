// @ts-check
/**
 * Where an error points in an editor's text. Policy errors carry `at` as
 * `line:column` (text formats) or a JSON pointer (JSON policies, request
 * fields); both become a 1-based line and column here, so the page can mark
 * the line. Pure: no DOM, so Node tests import it as the browser does.
 */

/** @typedef {{ line: number, column: number }} Place */
/** @typedef {{ ok: true, places: Map<string, number> } | { ok: false, offset: number, message: string }} Scan */

const MAX_DEPTH = 512;

/** A syntax error found by `scanJson`, at a character offset. */
class ScanError extends Error {
  /** @param {number} offset @param {string} message */
  constructor(offset, message) {
    super(message);
    this.offset = offset;
  }
}

/**
 * The 1-based line and column of a character offset in `text`.
 * @param {string} text
 * @param {number} offset
 * @returns {Place}
 */
export function placeOf(text, offset) {
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
 * The character offset of a 1-based line and column, clamped to the text.
 * @param {string} text
 * @param {Place} place
 */
export function offsetOf(text, place) {
  let line = 1;
  let i = 0;
  while (line < place.line && i < text.length) {
    const next = text.indexOf("\n", i);
    if (next < 0) return text.length;
    i = next + 1;
    line++;
  }
  const lineEnd = text.indexOf("\n", i);
  const max = lineEnd < 0 ? text.length : lineEnd;
  return Math.min(i + Math.max(place.column - 1, 0), max);
}

/** Escapes one JSON pointer segment. @param {string} key */
function segment(key) {
  return "/" + key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/**
 * Scans JSON text (with pScheduler's `#` line comments when `comments`), and
 * records where each value starts by its JSON pointer; an object member is
 * placed at its key, where "unknown field" errors point. A syntax error gives
 * its offset and what was expected.
 * @param {string} text
 * @param {{ comments?: boolean }} [options]
 * @returns {Scan}
 */
export function scanJson(text, options = {}) {
  /** @type {Map<string, number>} */
  const places = new Map();
  let i = 0;
  /** @param {string} message @returns {never} */
  const fail = (message) => {
    throw new ScanError(i, message);
  };
  const skip = () => {
    for (;;) {
      const c = text[i];
      if (c === " " || c === "\t" || c === "\n" || c === "\r") i++;
      else if (c === "#" && options.comments) {
        while (i < text.length && text[i] !== "\n") i++;
      } else return;
    }
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const c = text[i];
      if (c === '"') return void i++;
      if (c === "\\") {
        i++;
        if (text[i] === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail("invalid \\u escape");
          i += 5;
          continue;
        }
        if (!'"\\/bfnrt'.includes(text[i] ?? "")) fail("invalid escape");
      } else if (c.charCodeAt(0) < 0x20) fail("control character in a string");
      i++;
    }
    fail("unterminated string");
  };
  /** @param {string} pointer @param {number} depth @returns {void} */
  const value = (pointer, depth) => {
    if (depth > MAX_DEPTH) fail("nested too deeply");
    skip();
    if (!places.has(pointer)) places.set(pointer, i);
    const c = text[i];
    if (c === "{") {
      i++;
      skip();
      if (text[i] === "}") return void i++;
      for (;;) {
        skip();
        if (text[i] !== '"') fail("expected a property name in double quotes");
        const keyStart = i;
        string();
        const key = JSON.parse(text.slice(keyStart, i));
        const member = pointer + segment(key);
        places.set(member, keyStart);
        skip();
        if (text[i] !== ":") fail("expected ':' after a property name");
        i++;
        value(member, depth + 1);
        skip();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "}") return void i++;
        fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      skip();
      if (text[i] === "]") return void i++;
      for (let n = 0; ; n++) {
        value(`${pointer}/${n}`, depth + 1);
        skip();
        if (text[i] === ",") {
          i++;
          continue;
        }
        if (text[i] === "]") return void i++;
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i, i + 400),
    );
    if (literal === null) fail(i >= text.length ? "unexpected end of input" : "expected a value");
    i += /** @type {RegExpExecArray} */ (literal)[0].length;
  };
  try {
    value("", 0);
    skip();
    if (i < text.length) fail("unexpected text after the value");
    return { ok: true, places };
  } catch (e) {
    if (e instanceof ScanError) return { ok: false, offset: e.offset, message: e.message };
    throw e;
  }
}

/**
 * The place an error's `at` names in `text`: `line:column` as given, or the
 * value (member key) a JSON pointer names, else its nearest ancestor that the
 * text holds. Null when `at` names no place (an empty pointer into text that is
 * not JSON, or nothing at all).
 * @param {string | undefined} at
 * @param {string} text
 * @param {{ comments?: boolean, strip?: string }} [options] `strip`: a pointer prefix to remove first (`/request`)
 * @returns {Place | null}
 */
export function locate(at, text, options = {}) {
  if (typeof at !== "string") return null;
  const lc = /^(\d+):(\d+)$/.exec(at);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  if (!at.startsWith("/") && at !== "") return null;
  let pointer = at;
  if (options.strip !== undefined) {
    if (pointer !== options.strip && !pointer.startsWith(options.strip + "/")) return null;
    pointer = pointer.slice(options.strip.length);
  }
  const scan = scanJson(text, options);
  if (!scan.ok) return null;
  for (;;) {
    const offset = scan.places.get(pointer);
    if (offset !== undefined) return placeOf(text, offset);
    if (pointer === "") return null;
    pointer = pointer.slice(0, pointer.lastIndexOf("/"));
  }
}

/**
 * JSON text with the whitespace between tokens removed, every literal kept as
 * written (so integers past 2^53 keep their digits): one line for `arbiter eval`.
 * @param {string} text
 */
export function compactJson(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === "\\") i++;
      out += text.slice(start, i + 1);
    } else if (c !== " " && c !== "\t" && c !== "\n" && c !== "\r") out += c;
  }
  return out;
}
