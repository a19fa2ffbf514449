/**
 * The one way Arbiter writes a log line: one JSON object on one line, whatever
 * the fields hold. `JSON.stringify` already escapes every control character
 * (`\n`, `\r`, NUL, ESC, …) inside strings, but leaves U+0085, U+2028 and
 * U+2029 raw: valid JSON, yet line breaks to readers that split on Unicode line
 * terminators (JavaScript's `m` flag, some log viewers). They are escaped too,
 * so no user-supplied text (a user name, a queue name, a request id, an error
 * message quoting input) can end a line early and forge the next one.
 */

/** Characters JSON text may hold raw that some readers take for a line break. */
const LINE_BREAK = /[\u0085\u2028\u2029]/;
const LINE_BREAKS = new RegExp(LINE_BREAK.source, "g");

const escapeBreak = (ch: string) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** JSON text with the Unicode line terminators it holds raw escaped (the same JSON value, on one line). */
export function oneLine(jsonText: string): string {
  // The common case holds none: test before replacing, so a line costs one scan.
  return LINE_BREAK.test(jsonText) ? jsonText.replace(LINE_BREAKS, escapeBreak) : jsonText;
}

/** A log line's text: the fields as one JSON object on one line. */
export function logLine(fields: Record<string, unknown>): string {
  return oneLine(JSON.stringify(fields));
}

/** Where a line goes: Workers Logs keeps the level of each console call. */
export type LogLevel = "log" | "warn" | "error";

/** Writes one log line (see `logLine`) at a level. */
export function writeLog(fields: Record<string, unknown>, level: LogLevel = "log"): void {
  console[level](logLine(fields));
}

/** Writes a line already made as one-line JSON text (every string member's JSON passed through {@link oneLine}). */
export function writeLineText(oneLineText: string, level: LogLevel = "log"): void {
  console[level](oneLineText);
}

/** Writes a line already made as JSON text (a decision line with captured members), kept on one line. */
export function writeLogText(jsonText: string, level: LogLevel = "log"): void {
  console[level](oneLine(jsonText));
}
