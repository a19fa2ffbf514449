/** Compile errors as jq 1.7.1 prints them (src/locfile.c locfile_locate, src/parser.y yyerror). */
import type { PolicyError } from "../engines/common/result.js";

/**
 * The text jq prints for one compile error of `program`: `jq: error: <message> at <top-level>, line N:`
 * (with jq's ` (Unix shell quoting issues?)` after a bison "unexpected" message), then the program's
 * line N followed by as many spaces as the error's byte offset in it. An error without a place (a
 * module that cannot be found or loaded) is `jq: error: <message>` and an empty line, as jq prints it.
 */
export function compileErrorText(program: string, e: PolicyError): string {
  const m = /^(\d+):(\d+)$/.exec(e.at);
  if (m === null) return `jq: error: ${e.message}\n`;
  const line = Number(m[1]);
  const col = Number(m[2]);
  const text = program.split("\n")[line - 1] ?? "";
  const hint = e.message.includes("unexpected") ? " (Unix shell quoting issues?)" : "";
  const offset = new TextEncoder().encode(text.slice(0, col - 1)).length;
  return `jq: error: ${e.message}${hint} at <top-level>, line ${line}:\n${text}${" ".repeat(offset)}`;
}
