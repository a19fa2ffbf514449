/**
 * A millisecond timestamp as `Date#toISOString` writes it, remembering the
 * last one: a decision and its log line read the same clock (in workerd the
 * clock only moves across I/O), so the second formatting of the same
 * millisecond is a comparison instead of a Date and a string.
 *
 * Another millisecond of the same UTC day is written from the day's text,
 * kept, and the time of day in whole-number arithmetic: in workerd,
 * `toISOString` costs about 9,300 instructions a call (a Date and V8's
 * runtime formatter), the arithmetic and table lookups a small part of that
 * (the decision log line writes one timestamp per request, each a new
 * millisecond). A time outside the kept day, a fraction of a millisecond or a
 * time Date cannot write goes through `toISOString`, so the text (or the
 * RangeError) is always Date's.
 */
let lastMs = NaN;
let lastText = "";

const DAY_MS = 86_400_000;
/** The largest time value Date holds (ECMAScript's TimeClip), either side of 1970. */
const MAX_TIME = 8.64e15;
/** The kept day: its first millisecond and its text up to the time (`YYYY-MM-DDT`, or with a signed year). */
let dayStart = NaN;
let dayText = "";

const TWO_DIGITS = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, "0"));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"));

/** `new Date(ms).toISOString()`, the same text for the same millisecond (a RangeError for an invalid time, as Date's). */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  const t = ms - dayStart;
  // false for NaN (no day kept yet, or `ms` NaN): Date's own text then
  if (t >= 0 && t < DAY_MS && Number.isInteger(t) && ms <= MAX_TIME && ms >= -MAX_TIME) {
    const seconds = Math.floor(t / 1000);
    const minutes = Math.floor(seconds / 60);
    lastText = `${dayText}${TWO_DIGITS[Math.floor(minutes / 60)]}:${TWO_DIGITS[minutes % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[t % 1000]}Z`;
  } else {
    lastText = new Date(ms).toISOString();
    if (Number.isInteger(ms)) {
      dayStart = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      dayText = lastText.slice(0, lastText.indexOf("T") + 1);
    }
  }
  lastMs = ms;
  return lastText;
}
