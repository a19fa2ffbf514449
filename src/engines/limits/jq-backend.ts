/**
 * Adapter to the jq engine in src/jq: compile with `args` bound as variables,
 * take the first output (stopping early), and recover error texts.
 */
import type { Json, JsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileJq, type JqProgram } from "../../jq/index.js";
import type { CompiledJq, JqFirst } from "./jq-bridge.js";

/** What the limits engine needs from a jq implementation. */
export interface JqBackend {
  /** Compiles `text`; the user's script starts on line `firstLine` of it (earlier lines are Arbiter's own definitions). */
  compile(text: string, args: JsonObject, firstLine?: number): Result<CompiledJq, string>;
}

/** `line:column` of a compile error in the user's script, or null when it lies in the lines before it. */
function scriptPosition(at: string, firstLine: number): string | null {
  const m = /^(\d+):(\d+)$/.exec(at);
  if (m === null || Number(m[1]) < firstLine) return null;
  return `${Number(m[1]) - firstLine + 1}:${m[2]}`;
}

const NOT_A_STRING = " (not a string)";

/**
 * jq reports a non-string error value as `<json> (not a string)`; pScheduler's
 * texts (per our spec) show the value's compact JSON alone.
 */
function errorText(message: string): string {
  if (!message.endsWith(NOT_A_STRING)) return message;
  const body = message.slice(0, -NOT_A_STRING.length);
  try {
    JSON.parse(body);
    return body;
  } catch {
    return message;
  }
}

function wrap(program: JqProgram): CompiledJq {
  // runs are synchronous and never keep their options, so one options object per program is reused
  const opts = { now: 0 };
  return {
    first(input: Json, now: number): JqFirst {
      opts.now = now;
      const v = program.first(input, opts);
      if (v !== undefined) return { kind: "value", value: v };
      // No first output: either there was none or the run failed; only this rare path runs twice.
      const r = program.run(input, opts);
      if (r.error !== undefined) return { kind: "error", message: errorText(r.error) };
      return r.outputs.length > 0 ? { kind: "value", value: r.outputs[0] } : { kind: "none" };
    },
    all(input: Json, now: number) {
      const r = program.run(input, { now });
      return r.error !== undefined ? { error: errorText(r.error) } : { outputs: r.outputs };
    },
  };
}

/** The jq implementation in use. */
export const jqBackend: JqBackend = {
  compile(text, args, firstLine = 1) {
    const c = compileJq(text, { args });
    if (!c.ok) {
      // the message names where in the script it failed, as jq's own ("at <top-level>, line 2") does
      const first = c.error[0];
      const where = first === undefined ? null : scriptPosition(first.at, firstLine);
      return err(`${first?.message ?? "jq compile error"}${where === null ? "" : ` at ${where}`}`);
    }
    return ok(wrap(c.value));
  },
};
