/**
 * The one place the limits engine touches the jq engine: compile a jq
 * transform spec once, run it many times, and report errors as pScheduler's
 * texts expect them.
 */
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { jqBackend, type JqCompileFailure, type JqNatives } from "./jq-backend.js";

/** The outcome of one run, as the limits stages read it. */
export type JqFirst =
  | {
      kind: "value";
      value: Json;
      /**
       * How deep `value` nests, as the run's output charge measured it (0 a scalar, 1 a container
       * holding none, …; above 256: deeper than that), or −1 when not measured: a caller bounding
       * the depth walks the value only then.
       */
      depth: number;
    }
  | { kind: "none" }
  | { kind: "error"; message: string };

/** A compiled transform, reusable across decisions. */
export interface CompiledJq {
  /** Runs and keeps only the first output (pScheduler reads `[0]`); `now` is what jq's `now` returns, in seconds. */
  first(input: Json, now: number): JqFirst;
  /** Runs and keeps every output (the CIDR list transform joins them). */
  all(input: Json, now: number): { outputs: Json[] } | { error: string };
}

/** The jq transform spec as written in a limits file (already shape-checked). */
export interface JqSpec {
  script: string | string[];
  args?: Json;
  "output-raw"?: boolean;
}

/** Joins an array script with newlines; an empty array means `.` unless `emptyIsEmpty` is set. */
export function scriptText(spec: JqSpec, emptyIsEmpty = false): string {
  if (typeof spec.script === "string") return spec.script;
  if (spec.script.length === 0 && !emptyIsEmpty) return ".";
  return spec.script.join("\n");
}

/**
 * A jq script that does not compile, placed in the limits file: `path` leads
 * from the entry's `data` (or the rewrite/priority spec) to the string
 * holding the script (`["script"]`, `["script", 2]` for a line of an array
 * script, `["transform", "script"]`), `index` is the character of that string
 * the error points at (null: the script as a whole).
 */
export interface ScriptError {
  readonly message: string;
  readonly path: readonly (string | number)[];
  readonly index: number | null;
}

/** A data check's failure: pScheduler's text, or a script error with its place. */
export type DataError = string | ScriptError;

/** The text of a data error. */
export function dataErrorText(e: DataError): string {
  return typeof e === "string" ? e : e.message;
}

/**
 * Compiles jq text with `args` bound as `$name` variables. The user's script
 * starts at `userStart` of `text` (what comes before is Arbiter's own
 * definitions); `unmap` turns an offset in the text after `userStart` back into
 * one in the script as written (hoisted imports removed lines' parts). The
 * failure's offset is in the script as written, null when the error lies
 * outside it.
 */
export function compileJqText(
  text: string,
  args: Json | undefined,
  userStart = 0,
  unmap: (offset: number) => number = (o) => o,
  natives?: JqNatives,
): Result<CompiledJq, JqCompileFailure> {
  const bound: JsonObject = isJsonObject(args) ? args : {};
  const c = jqBackend.compile(text, bound, natives);
  if (c.ok) return c;
  const o = c.error.offset;
  return err({ message: c.error.message, offset: o === null || o < userStart ? null : unmap(o - userStart) });
}

/**
 * Places an offset of a spec's script text (array scripts joined with
 * newlines) on the string it was written in: the line of an array script and
 * the character within it.
 */
export function scriptError(
  spec: JqSpec,
  path: readonly (string | number)[],
  failure: JqCompileFailure,
): ScriptError {
  const at = [...path, "script"];
  const offset = failure.offset;
  if (offset === null) return { message: failure.message, path: at, index: null };
  if (typeof spec.script === "string") return { message: failure.message, path: at, index: offset };
  let start = 0;
  for (let k = 0; k < spec.script.length; k++) {
    const line = spec.script[k];
    if (offset <= start + line.length)
      return { message: failure.message, path: [...at, k], index: offset - start };
    start += line.length + 1;
  }
  return { message: failure.message, path: at, index: null };
}

/**
 * Compiles a spec's script as written (`prefix`, Arbiter's own definitions,
 * in front of it); a failure is placed in the spec by `path`.
 */
export function compileSpec(
  spec: JqSpec,
  path: readonly (string | number)[] = [],
  prefix = "",
): Result<CompiledJq, ScriptError> {
  const c = compileJqText(prefix + scriptText(spec), spec.args, prefix.length);
  return c.ok ? c : err(scriptError(spec, path, c.error));
}

const IMPORT = /(^|[\s;])((?:import|include)\s[^;]*;)/g;

/** Imports moved to the top: the statements, the rest of the script, and where text was taken out of it. */
export interface Hoisted {
  readonly imports: string;
  readonly body: string;
  /** Offsets in `body` where a statement of the given length was removed, in order. */
  readonly removed: readonly { readonly at: number; readonly length: number }[];
}

/**
 * Moves `import`/`include` statements to the very top so that definitions
 * prepended to a user script do not break them (jq wants imports first).
 */
export function hoistImports(script: string): Hoisted {
  const found: string[] = [];
  const removed: { at: number; length: number }[] = [];
  let taken = 0;
  const body = script.replace(IMPORT, (_m, lead: string, stmt: string, offset: number) => {
    found.push(stmt);
    removed.push({ at: offset + lead.length - taken, length: stmt.length });
    taken += stmt.length;
    return lead;
  });
  return { imports: found.join("\n"), body, removed };
}

/** The offset in the script as written of an offset in a hoisted body. */
export function unhoist(h: Hoisted, offset: number): number {
  let out = offset;
  for (const r of h.removed) if (r.at <= offset) out += r.length;
  return out;
}

const NOW = /\bnow\b/;

/**
 * True when a script may read the clock (jq's `now`): verdicts of a policy
 * holding such a script depend on time and are never cached.
 */
export function readsClock(spec: JqSpec): boolean {
  return NOW.test(typeof spec.script === "string" ? spec.script : spec.script.join("\n"));
}

/** Message text of a jq runtime error: strings as is, other error values as compact JSON. */
export function jqErrorText(message: string, value: Json | undefined): string {
  if (value === undefined) return message;
  return typeof value === "string" ? value : JSON.stringify(value);
}

export { err, ok };
