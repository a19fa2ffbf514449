/** Compile errors as jq 1.7.1 prints them (src/locfile.c locfile_locate, src/parser.y yyerror). */
import type { PolicyError } from "../engines/common/result.js";

/**
 * The text jq prints for one compile error of `program`: `jq: error: <message> at <top-level>, line N:`
 * (with jq's ` (Unix shell quoting issues?)` after a bison "unexpected" message), then the program's
 * line N followed by as many spaces as the error's byte offset in it. An error in an imported module
 * names the module instead of `<top-level>`; one without a place (a module that cannot be found or
 * loaded) is `jq: error: <message>` and an empty line, as jq prints it.
 */
export function compileErrorText(program: string, e: PolicyError): string {
  const m = /^(?:(.+):)?(\d+):(\d+)$/.exec(e.at);
  if (m === null)
    return e.message.startsWith("error loading data file")
      ? `jq: ${e.message}\n`
      : `jq: error: ${e.message}\n`;
  const line = Number(m[2]);
  const hint = e.message.includes("unexpected") ? " (Unix shell quoting issues?)" : "";
  if (m[1] !== undefined) return `jq: error: ${e.message}${hint} at ${m[1]}, line ${line}:`;
  const text = program.split("\n")[line - 1] ?? "";
  const offset = new TextEncoder().encode(text.slice(0, Number(m[3]) - 1)).length;
  return `jq: error: ${e.message}${hint} at <top-level>, line ${line}:\n${text}${" ".repeat(offset)}`;
}
