/**
 * Where a JSON text stops being JSON, told as Python's json module tells it
 * (`Expecting ',' delimiter: line 3 column 18 (char 30)`): pScheduler and
 * Ganeti read their files with it, so their users know these messages. Only
 * called after JSON.parse has failed, so it costs nothing on the good path.
 * Policy texts are also held to the JSON shape limits here: a container nested
 * past the limit is reported the way the shape check reports it, whether the
 * parser read the text or refused it first.
 */

import {
  checkJsonShape,
  POLICY_JSON_LIMITS,
  type JsonShapeLimits,
  type JsonShapeViolation,
} from "./json-shape.js";
import { finish, type Steps } from "./slices.js";

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

/** The first container nested past the limit, met before any syntax error. */
class TooDeep {
  constructor(readonly violation: JsonShapeViolation) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/** What the reader knows of each open container: its kind and the key (or index) of the member being read. */
interface Open {
  readonly array: boolean;
  key: string | number;
}

/**
 * The first problem of a JSON text in reading order: a syntax error (as
 * CPython's json.loads reports it), or, with `maxDepth`, the first container
 * nested deeper than that (as {@link checkJsonShape} reports it); null when the
 * text is JSON within the limit. Reads with an explicit stack, never
 * recursion, so any depth is safe, and in time linear in the text.
 */
export function locateJsonProblem(
  text: string,
  maxDepth = Number.POSITIVE_INFINITY,
): { syntax: JsonSyntaxError } | { depth: JsonShapeViolation } | null {
  const skip = (from: number) => {
    let j = from;
    for (;;) {
      const c = text.charCodeAt(j);
      if (c !== 32 && c !== 10 && c !== 13 && c !== 9) return j;
      j++;
    }
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
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(j + 2, j + 6)))
            throw new Stop("Invalid \\uXXXX escape", j + 1);
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
  const stack: Open[] = [];
  /** Reads an object's key at `at` (a quote) and its `:`; returns where the member's value starts. */
  const member = (at: number): number => {
    const end = string(at);
    // the key is only needed to name a container nested too deeply
    if (maxDepth !== Number.POSITIVE_INFINITY)
      stack[stack.length - 1].key = JSON.parse(text.slice(at, end)) as string;
    const colon = skip(end);
    if (text[colon] !== ":") throw new Stop("Expecting ':' delimiter", colon);
    return skip(colon + 1);
  };
  try {
    if (text.charCodeAt(0) === 0xfeff) throw new Stop("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
    let i = skip(0);
    for (;;) {
      // a value starts at i (white space skipped)
      const c = text[i];
      if (c === "{" || c === "[") {
        if (stack.length + 1 > maxDepth)
          throw new TooDeep({ kind: "depth", path: stack.map((o) => o.key), limit: maxDepth });
        stack.push({ array: c === "[", key: 0 });
        i = skip(i + 1);
        if (c === "[" && text[i] !== "]") continue;
        if (c === "{" && text[i] !== "}") {
          if (text[i] !== '"') throw new Stop("Expecting property name enclosed in double quotes", i);
          i = member(i);
          continue;
        }
        stack.pop();
        i++;
      } else if (c === '"') {
        i = string(i);
      } else {
        const word = ["null", "true", "false"].find((w) => text.startsWith(w, i));
        if (word !== undefined) {
          i += word.length;
        } else {
          NUMBER.lastIndex = i;
          const m = NUMBER.exec(text);
          if (m === null) throw new Stop("Expecting value", i);
          i += m[0].length;
        }
      }
      // after a value: close containers, or find the next member's value
      let next = false;
      while (!next) {
        i = skip(i);
        const open = stack[stack.length - 1];
        if (open === undefined) {
          if (i !== text.length) throw new Stop("Extra data", i);
          return null;
        }
        if (text[i] === (open.array ? "]" : "}")) {
          stack.pop();
          i++;
        } else if (text[i] !== ",") {
          throw new Stop("Expecting ',' delimiter", i);
        } else if (open.array) {
          open.key = (open.key as number) + 1;
          i = skip(i + 1);
          next = true;
        } else {
          i = skip(i + 1);
          if (text[i] !== '"') throw new Stop("Expecting property name enclosed in double quotes", i);
          i = member(i);
          next = true;
        }
      }
    }
  } catch (e) {
    if (e instanceof TooDeep) return { depth: e.violation };
    if (!(e instanceof Stop)) throw e;
    return { syntax: place(text, e.message, e.pos) };
  }
}

/** Finds the first syntax error of a JSON text as CPython's json.loads does; null when the text is JSON. */
export function findJsonSyntaxError(text: string): JsonSyntaxError | null {
  const problem = locateJsonProblem(text);
  return problem !== null && "syntax" in problem ? problem.syntax : null;
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
 * Parses a JSON policy text with JSON.parse and checks its shape: the value,
 * or the first problem in reading order, a syntax error in Python's terms (a
 * text JSON.parse refuses that Python would read, NaN, is "Expecting value" at
 * its start) or the first container nested past the limit.
 */
export function parseJsonText(text: string, limits: JsonShapeLimits = POLICY_JSON_LIMITS): JsonTextRead {
  return finish(parseJsonTextSteps(text, limits));
}

/** What reading a JSON policy text gives: the value, a syntax error, or a shape past the limits. */
export type JsonTextRead =
  | { ok: true; value: unknown }
  | { ok: false; error: JsonSyntaxError }
  | { ok: false; shape: JsonShapeViolation };

/**
 * {@link parseJsonText} as resumable work (slices.ts): the depth scan, the
 * JSON.parse and the shape check, each a piece of its own (each about 5–10 ms
 * for 1 MB).
 */
export function* parseJsonTextSteps(
  text: string,
  limits: JsonShapeLimits = POLICY_JSON_LIMITS,
): Steps<JsonTextRead> {
  const early = deepFailure(text, limits);
  if (early !== null) return early;
  yield;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return readFailure(text, limits);
  }
  yield;
  const shape = checkJsonShape(value, limits);
  return shape === null ? { ok: true, value } : { ok: false, shape };
}

/**
 * Why a JSON policy text that a parser refused cannot be read: its first
 * syntax error, or its first container nested past the limit (which a
 * parser may refuse before the shape check can see it).
 */
export function readFailure(
  text: string,
  limits: JsonShapeLimits = POLICY_JSON_LIMITS,
): { ok: false; error: JsonSyntaxError } | { ok: false; shape: JsonShapeViolation } {
  return (
    asFailure(locateJsonProblem(text, limits.maxDepth)) ?? {
      ok: false,
      error: place(text, "Expecting value", 0),
    }
  );
}

/** A located problem (locateJsonProblem) as the failure parseJsonText answers, or null for none. */
function asFailure(
  problem: ReturnType<typeof locateJsonProblem>,
): { ok: false; error: JsonSyntaxError } | { ok: false; shape: JsonShapeViolation } | null {
  if (problem === null) return null;
  return "depth" in problem ? { ok: false, shape: problem.depth } : { ok: false, error: problem.syntax };
}

/**
 * Whether a JSON text opens more than `maxDepth` containers inside one another
 * anywhere (brackets inside strings not counted): one linear scan with a
 * counter, stopping at the first container past the limit.
 */
export function nestsPast(text: string, maxDepth: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 91 || c === 123) {
      if (++depth > maxDepth) return true;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 34) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    }
  }
  return false;
}

/**
 * The failure of a text nested past the limit, found without JSON.parse (which
 * reads a text nested a million deep to its end before refusing it, about 100 ms
 * of CPU per MiB in one native call): its first problem in reading order, a
 * syntax error before the deep container or the container itself. The limit
 * holds for the text, so a deep value a repeated key would later replace is
 * refused too. Null for a text within the limit.
 */
export function deepFailure(
  text: string,
  limits: JsonShapeLimits = POLICY_JSON_LIMITS,
): { ok: false; error: JsonSyntaxError } | { ok: false; shape: JsonShapeViolation } | null {
  return nestsPast(text, limits.maxDepth) ? asFailure(locateJsonProblem(text, limits.maxDepth)) : null;
}
