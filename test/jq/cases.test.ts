/**
 * Case-file runner for test/cases/jq: each case is one `arbiter eval jq` request line, built
 * as text (so the input keeps its number literals and key order) and read by the command's own
 * literal-preserving line parser. `want` lists the outputs as `jq -c` prints them; `want_error`
 * is the runtime error (a string, or `{message, outputs}` when outputs come first) or
 * `{compile: message}`. `from` names the jq 1.7.1 test, manual section or source the case comes from.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { evalJqLine, parseJqLine } from "../../src/cli/eval-jq.js";
import { loadCases } from "../support/cases.js";

const Want = z.array(z.string());
const WantError = z.union([
  z.string(),
  z.strictObject({ message: z.string(), outputs: Want }),
  z.strictObject({ compile: z.string() }),
]);

const cases = loadCases("jq", {
  /** The JSON text of the input value; absent means null (as `jq -n`). */
  input: z.string().optional(),
  from: z.string().min(1),
  program: z.string(),
  args: z.record(z.string(), z.string()).optional(),
});

/** The request line: program, the input's JSON text (null when absent) and args given as JSON texts. */
function lineText(
  program: string,
  input: string | undefined,
  args: Record<string, string> | undefined,
): string {
  const argText =
    args === undefined
      ? ""
      : `, "args": {${Object.entries(args)
          .map(([k, v]) => `${JSON.stringify(k)}: ${v}`)
          .join(", ")}}`;
  return `{"program": ${JSON.stringify(program)}, "input": ${input ?? "null"}${argText}}`;
}

describe("jq case files", () => {
  for (const c of cases) {
    const v = c.value;
    const run = v.skip ? it.skip : it;
    run(`${c.name} [${v.from}]`, () => {
      const answer = evalJqLine(parseJqLine(lineText(v.program, v.input, v.args))) as {
        printed?: string[];
        error?: string;
        compile_error?: string;
      };
      if (v.want !== undefined) {
        expect(answer.compile_error, "compile error").toBeUndefined();
        expect({ printed: answer.printed, error: answer.error }).toEqual({
          printed: Want.parse(v.want),
          error: undefined,
        });
        return;
      }
      const we = WantError.parse(v.want_error);
      if (typeof we === "object" && "compile" in we) {
        expect(answer.compile_error ?? "").toMatch(
          new RegExp(`^${escape(we.compile)}( \\(at \\d+:\\d+\\))?$`),
        );
        return;
      }
      expect(answer.compile_error, "compile error").toBeUndefined();
      const want = typeof we === "string" ? { message: we, outputs: [] } : we;
      expect({ printed: answer.printed, error: answer.error }).toEqual({
        printed: want.outputs,
        error: want.message,
      });
    });
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
