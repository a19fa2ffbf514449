/**
 * Adapter to the jq engine in src/jq: compile with `args` bound as variables,
 * take the first output (stopping early), and recover error texts.
 */
import type { Json, JsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileJq, firstOutputDepth, type JqProgram, type REWRITER_NATIVES } from "../../jq/index.js";
import type { CompiledJq, JqFirst } from "./jq-bridge.js";

/** A compile failure: the jq message and the offset in the compiled text it points at (null when it names no place there). */
export interface JqCompileFailure {
  readonly message: string;
  readonly offset: number | null;
}

/** Native versions of a library's jq definitions, as the jq engine takes them. */
export type JqNatives = typeof REWRITER_NATIVES;

/** What the limits engine needs from a jq implementation. */
export interface JqBackend {
  /** `natives`: native versions of the text's own top-level definitions, by `name/arity` (see CompileOptions.natives). */
  compile(text: string, args: JsonObject, natives?: JqNatives): Result<CompiledJq, JqCompileFailure>;
}

/** The offset of a compile error's `line:column` in `text`, or null when `at` is not such a place (an error inside a module). */
function offsetOfPlace(text: string, at: string): number | null {
  const m = /^(\d+):(\d+)$/.exec(at);
  if (m === null) return null;
  let line = 1;
  let i = 0;
  while (line < Number(m[1])) {
    const next = text.indexOf("\n", i);
    if (next < 0) return null;
    i = next + 1;
    line++;
  }
  return i + Number(m[2]) - 1;
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
      if (v !== undefined) return { kind: "value", value: v, depth: firstOutputDepth() };
      // No first output: either there was none or the run failed; only this rare path runs twice.
      const r = program.run(input, opts);
      if (r.error !== undefined) return { kind: "error", message: errorText(r.error) };
      return r.outputs.length > 0 ? { kind: "value", value: r.outputs[0], depth: -1 } : { kind: "none" };
    },
    all(input: Json, now: number) {
      const r = program.run(input, { now });
      return r.error !== undefined ? { error: errorText(r.error) } : { outputs: r.outputs };
    },
  };
}

/** The jq implementation in use. */
export const jqBackend: JqBackend = {
  compile(text, args, natives) {
    const c = compileJq(text, natives === undefined ? { args } : { args, natives });
    if (!c.ok) {
      const first = c.error[0];
      return err({
        message: first?.message ?? "jq compile error",
        offset: first === undefined ? null : offsetOfPlace(text, first.at),
      });
    }
    return ok(wrap(c.value));
  },
};
