/**
 * jq 1.7.1's main loop (src/main.c, process()) as `arbiter jq` runs it: each input value
 * through the program, outputs printed with the command line's options, errors written as jq
 * writes them, and the exit status by jq's rules. Pure: the command line feeds it files and
 * the playground's `POST /v1/playground/jq` feeds it the posted text.
 */
import type { Json } from "../engines/common/json.js";
import type { JqInput } from "./cli-input.js";
import type { JqOptions } from "./cli-options.js";
import { printJq, type PrintOptions } from "./cli-print.js";
import { JqError, printCompact, type JqProgram } from "./index.js";

/** Where a run writes. */
export interface JqOutput {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
}

// jq's process() results: exit status, or these below zero (0 unless -e)
const OK_NULL_KIND = -1;
const OK_NO_OUTPUT = -4;

/** jq's main loop over the input values and its exit status rules. */
export function runInputs(
  prog: JqProgram,
  o: JqOptions,
  input: JqInput,
  print: PrintOptions,
  io: JqOutput,
  env: Record<string, string | undefined>,
): number {
  const take = (): Json | undefined => {
    const n = input.next();
    if (n === undefined) return undefined;
    if ("error" in n) throw new JqError(n.error);
    return n.value;
  };
  const debugPrint: PrintOptions = { ...print, indent: 0 };
  const sink = (m: Json): void => {
    if (Array.isArray(m) && m.length === 2 && m[0] === "DEBUG:") io.stderr(printJq(m, debugPrint) + "\n");
    else io.stderr(typeof m === "string" ? m : printCompact(m));
  };
  const runEnv: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) runEnv[k] = v;
  let halted = false;
  const processOne = (value: Json): number => {
    let ret = OK_NO_OUTPUT;
    const r = prog.run(value, { keepLiterals: true, input: take, env: runEnv, debug: sink });
    let failed: string | null = null;
    for (const v of r.outputs) {
      if (o.rawOutput && typeof v === "string") {
        if (o.ascii) io.stdout(printJq(v, print));
        else if (o.rawOutput0 && v.includes("\u0000")) {
          failed = "Cannot dump a string containing NUL with --raw-output0 option";
          break;
        } else io.stdout(v);
        ret = 0;
      } else {
        ret = v === null || v === false ? OK_NULL_KIND : 0;
        if (o.seq) io.stdout("\u001e");
        io.stdout(printJq(v, print));
      }
      if (!o.noNewline) io.stdout("\n");
      if (o.rawOutput0) io.stdout("\u0000");
    }
    if (failed === null && r.halted) {
      halted = true;
      return 0;
    }
    if (failed === null && r.halt !== undefined) {
      halted = true;
      const v = r.halt.value;
      if (typeof v === "string") io.stderr(v);
      else if (v !== null) io.stderr(printCompact(v) + "\n");
      return r.halt.code;
    }
    if (failed === null && r.error === undefined) return ret;
    const at = input.position();
    const value2 = failed !== null ? failed : r.errorValue !== undefined ? r.errorValue : r.error;
    if (typeof value2 === "string") io.stderr(`jq: error (at ${at}): ${value2}\n`);
    else io.stderr(`jq: error (at ${at}) (not a string): ${printCompact(value2 as Json)}\n`);
    return 5;
  };
  let ret = OK_NO_OUTPUT;
  let last = -1;
  if (o.nullInput) ret = processOne(null);
  else
    while (input.failures === 0) {
      const n = input.next();
      if (n === undefined) break;
      if ("value" in n) {
        ret = processOne(n.value);
        if (ret <= 0 && ret !== OK_NO_OUTPUT) last = ret !== OK_NULL_KIND ? 1 : 0;
        if (halted) break;
        continue;
      }
      if (o.seq) {
        io.stderr(`jq: ignoring parse error: ${n.error}\n`);
        continue;
      }
      ret = 5;
      io.stderr(`jq: parse error: ${n.error}\n`);
      break;
    }
  if (input.failures !== 0) ret = 2;
  if (o.exitStatus) {
    if (ret !== OK_NO_OUTPUT) return Math.abs(ret);
    return last === -1 ? 4 : last === 0 ? 1 : 0;
  }
  return ret > 0 ? ret : 0;
}
