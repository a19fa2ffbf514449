/** `arbiter eval jq`: one JSON request line in, one JSON answer out (outputs, printed, error). */
import type { Json } from "../engines/common/json.js";
import {
  compileJq,
  jqType,
  jsonText,
  parseJsonSeq,
  plainJson,
  printCompact,
  type JqProgram,
} from "../jq/index.js";
import type { LineEvaluator } from "./evaluator.js";

const cache = new Map<string, JqProgram | string>();

function compileCached(program: string, args: Record<string, Json> | undefined): JqProgram | string {
  const key = printCompact([program, args ?? null]);
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const r = compileJq(program, { args });
  const v = r.ok ? r.value : r.error.map((e) => `${e.message} (at ${e.at})`).join("; ");
  if (cache.size > 256) cache.clear();
  cache.set(key, v);
  return v;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && jqType(v as Json) === "object";
}

/** Evaluates one `{program, input, args?}` line, answering with outputs and how `jq -c` prints them. */
export function evalJqLine(line: unknown): object {
  if (!isRecord(line) || typeof line.program !== "string")
    return { compile_error: "request must be an object with a string `program`" };
  if (line.args !== undefined && !isRecord(line.args)) return { compile_error: "`args` must be an object" };
  const prog = compileCached(line.program, line.args as Record<string, Json> | undefined);
  if (typeof prog === "string") return { compile_error: prog };
  // run keeping number literals so `printed` matches `jq -c` (`1.000` stays `1.000`); outputs are plain JSON
  const r = prog.run((line.input ?? null) as Json, { keepLiterals: true });
  let printed: string[];
  try {
    printed = r.outputs.map(printCompact);
  } catch (e) {
    if (e instanceof RangeError)
      return { outputs: [], printed: [], error: "output is nested too deeply to print" };
    throw e;
  }
  const out: Record<string, unknown> = { outputs: r.outputs.map(plainJson), printed };
  if (r.error !== undefined) out.error = r.error;
  return out;
}

/**
 * Reads one request line keeping number literals (`1.0`, `100000000000000000000`), as jq reads
 * its input; a line that is not exactly one JSON value is an error with jq's parser message.
 */
export function parseJqLine(text: string): Json {
  let values: Json[];
  try {
    values = parseJsonSeq(text, true);
  } catch (e) {
    throw new SyntaxError(errorText(e));
  }
  if (values.length !== 1)
    throw new SyntaxError(values.length === 0 ? "no JSON value" : "Unexpected extra JSON values");
  return values[0];
}

function errorText(e: unknown): string {
  const v = (e as { value?: unknown }).value;
  return typeof v === "string" ? v : String(e);
}

/** `arbiter eval jq`'s line evaluator. */
export const jqLineEvaluator: LineEvaluator = {
  evaluateLine: evalJqLine,
  parseLine: parseJqLine,
  stringify: jsonText,
};
