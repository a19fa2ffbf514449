/**
 * The one place the limits engine touches the jq engine: compile a jq
 * transform spec once, run it many times, and report errors as pScheduler's
 * texts expect them.
 */
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { jqBackend } from "./jq-backend.js";

/** The outcome of one run, as the limits stages read it. */
export type JqFirst = { kind: "value"; value: Json } | { kind: "none" } | { kind: "error"; message: string };

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
 * Compiles jq text with `args` bound as `$name` variables; the error is the jq
 * compile message and the `line:column` of the user's script it points at
 * (`firstLine`: the script's first line within `text`).
 */
export function compileJqText(text: string, args: Json | undefined, firstLine = 1): Result<CompiledJq, string> {
  const bound: JsonObject = isJsonObject(args) ? args : {};
  return jqBackend.compile(text, bound, firstLine);
}

const IMPORT = /(^|[\s;])((?:import|include)\s[^;]*;)/g;

/**
 * Moves `import`/`include` statements to the very top so that definitions
 * prepended to a user script do not break them (jq wants imports first).
 */
export function hoistImports(script: string): { imports: string; body: string } {
  const found: string[] = [];
  const body = script.replace(IMPORT, (_m, lead: string, stmt: string) => {
    found.push(stmt);
    return lead;
  });
  return { imports: found.join("\n"), body };
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
