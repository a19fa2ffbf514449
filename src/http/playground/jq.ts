import { BUDGET_EXCEEDED_MESSAGE, type Budget } from "../../engines/common/budget.js";
import { BUDGET_MESSAGE, compileErrorText, compileJq } from "../../jq/index.js";
import { JqInput } from "../../jq/cli-input.js";
import { DIE_HINT, JqUsageError, parseJqArgs } from "../../jq/cli-options.js";
import type { PrintOptions } from "../../jq/cli-print.js";
import { runInputs } from "../../jq/cli-run.js";
import { ApiError } from "../errors.js";
import type { JqPlaygroundBody, JqPlaygroundAnswer } from "../schemas/playground-jq.js";

/** How much a run may print (standard output and error together); the rest is cut and the answer says `truncated`. */
export const JQ_OUTPUT_LIMIT = 1024 * 1024;

/** Thrown by the output sink once the limit is reached, to stop the run. */
class OutputFull extends Error {}

/**
 * The `arbiter jq` command line a playground body stands for: its toggles, each
 * `--arg`/`--argjson` pair, then `--` and the program (so a program starting with
 * `-` is never read as an option). The input is standard input.
 */
export function jqArgv(body: JqPlaygroundBody): string[] {
  const argv: string[] = [];
  if (body.compact) argv.push("-c");
  if (body.raw_output) argv.push("-r");
  if (body.slurp) argv.push("-s");
  if (body.null_input) argv.push("-n");
  for (const a of body.args) argv.push(a.json ? "--argjson" : "--arg", a.name, a.value);
  argv.push("--", body.program);
  return argv;
}

/**
 * Runs a program on the posted input as `arbiter jq` would (jq 1.7.1's options,
 * printing, error texts and exit status), with no files, modules or environment,
 * drawing its steps from the decision budget: a run that spends it all (or recurses
 * too deep) is the 422 `budget_exceeded`, not a jq error.
 */
export function runPlaygroundJq(body: JqPlaygroundBody, budget: Budget): JqPlaygroundAnswer {
  const argv = jqArgv(body);
  let stdout = "";
  let stderr = "";
  let truncated = false;
  const room = () => JQ_OUTPUT_LIMIT - stdout.length - stderr.length;
  const out = {
    stdout: (s: string) => {
      if (s.length > room()) {
        stdout += s.slice(0, Math.max(room(), 0));
        truncated = true;
        throw new OutputFull();
      }
      stdout += s;
    },
    stderr: (s: string) => {
      if (s.length > room()) truncated = true;
      stderr += s.slice(0, Math.max(room(), 0));
    },
  };
  const answer = (exit_status: number): JqPlaygroundAnswer => ({
    stdout,
    stderr,
    exit_status,
    truncated,
    argv,
  });
  let o;
  try {
    o = parseJqArgs(argv);
  } catch (e) {
    if (!(e instanceof JqUsageError)) throw e;
    out.stderr(`${e.message}\n${DIE_HINT}`);
    return answer(2);
  }
  const program = o.program ?? ".";
  const compiled = compileJq(program, {
    args: Object.fromEntries([...o.named].map(([k, v]) => [k, "value" in v ? v.value : null])),
    positional: o.positional,
  });
  if (!compiled.ok) {
    for (const e of compiled.error) out.stderr(compileErrorText(program, e) + "\n");
    out.stderr(`jq: ${compiled.error.length} compile error${compiled.error.length === 1 ? "" : "s"}\n`);
    return answer(3);
  }
  const input = new JqInput(
    [{ name: "<stdin>", text: body.input }],
    { raw: o.rawInput, slurp: o.slurp, stream: o.stream, seq: o.seq },
    out.stderr,
  );
  const print: PrintOptions = { indent: o.indent, sortKeys: o.sortKeys, ascii: o.ascii, colors: null };
  let status: number;
  try {
    status = runInputs(compiled.value, o, input, print, out, {});
  } catch (e) {
    if (!(e instanceof OutputFull)) throw e;
    status = 0;
  }
  // A run stopped for its steps (or its depth) prints jq's budget message; here it is the decision's 422.
  if (
    budget.exhausted() ||
    budget.remaining() === 0 ||
    stderr.includes(BUDGET_EXCEEDED_MESSAGE) ||
    stderr.includes(BUDGET_MESSAGE)
  )
    throw new ApiError(
      "budget_exceeded",
      `the jq program spent the decision's work budget (DECISION_BUDGET): ${stderr.trim().split("\n").pop()}`,
    );
  return answer(status);
}
