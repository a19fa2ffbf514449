/**
 * A millisecond timestamp as `Date#toISOString` writes it, remembering the
 * last one: a decision and its log line read the same clock (in workerd the
 * clock only moves across I/O), so the second formatting of the same
 * millisecond is a comparison instead of a Date and a string.
 */
let lastMs = NaN;
let lastText = "";

/** `new Date(ms).toISOString()`, the same text for the same millisecond (a RangeError for an invalid time, as Date's). */
export function isoTime(ms: number): string {
  if (ms !== lastMs) {
    lastText = new Date(ms).toISOString();
    lastMs = ms;
  }
  return lastText;
}
