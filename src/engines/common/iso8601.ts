/**
 * ISO 8601 durations and timestamps as pScheduler reads them, with exact
 * arithmetic in integer microseconds (numbers stay below 2^53 for any
 * realistic duration or date).
 */
import { err, ok, type Result } from "./result.js";

const NUM = "(\\d+(?:[.,]\\d+)?)";
const DURATION = new RegExp(
  `^(-)?P(?:${NUM}Y)?(?:${NUM}M)?(?:${NUM}W)?(?:${NUM}D)?(?:T(?:${NUM}H)?(?:${NUM}M)?(?:${NUM}S)?)?$`,
);

const MICROS = {
  W: 604_800_000_000,
  D: 86_400_000_000,
  H: 3_600_000_000,
  M: 60_000_000,
  S: 1_000_000,
} as const;

/** Converts a decimal text (`1`, `1.5`, `0,25`) times a unit in µs to exact integer µs (rounded half up). */
function decimalMicros(text: string, unit: number): number {
  const [whole, frac = ""] = text.split(/[.,]/);
  let value = Number(whole) * unit;
  if (frac !== "") {
    // unit is a multiple of 10^6, so at most 6+ digits matter; round the rest.
    const scaled = Number(`0.${frac}`) * unit;
    value += Math.round(scaled);
  }
  return value;
}

/**
 * Parses an ISO 8601 duration into microseconds; the error texts are pScheduler's
 * because they appear verbatim in limit diagnostics.
 */
export function parseIsoDuration(value: unknown): Result<number, string> {
  if (typeof value !== "string") return err("Invalid duration; must be ISO8601 string or timedelta.");
  const m = DURATION.exec(value);
  const bare = value === "P" || value === "-P";
  const danglingT = value.endsWith("T") && value !== "PT" && value !== "-PT";
  if (!m || bare || danglingT) return err("Invalid ISO duration");
  const [, neg, y, mo, w, d, h, mi, s] = m;
  const nonZero = (t: string | undefined): boolean => t !== undefined && Number(t.replace(",", ".")) !== 0;
  if (nonZero(y) || nonZero(mo)) return err("Cannot support months or years");
  let total = 0;
  if (w) total += decimalMicros(w, MICROS.W);
  if (d) total += decimalMicros(d, MICROS.D);
  if (h) total += decimalMicros(h, MICROS.H);
  if (mi) total += decimalMicros(mi, MICROS.M);
  if (s) total += decimalMicros(s, MICROS.S);
  return ok(neg ? -total : total);
}

/** A parsed timestamp: the instant in epoch µs and the UTC offset it was written with. */
export interface IsoTimestamp {
  /** Microseconds since the epoch (UTC). */
  readonly micros: number;
  /** Offset in minutes east of UTC as written; null when the text had none (treated as UTC). */
  readonly offsetMinutes: number | null;
}

const TIMESTAMP =
  /^(\d{4})(?:-(\d{2})-(\d{2})T(\d{2})(?::(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?|(\d{2})(\d{2})T(\d{2})(?:(\d{2})(?:(\d{2})(?:[.,](\d+))?)?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses an ISO 8601 date-time (extended or basic format), or `Invalid ISO8601 date`. */
export function parseIsoTimestamp(value: unknown): Result<IsoTimestamp, string> {
  const bad = err("Invalid ISO8601 date");
  if (typeof value !== "string") return bad;
  const m = TIMESTAMP.exec(value);
  if (!m) return bad;
  const year = Number(m[1]);
  const month = Number(m[2] ?? m[8]);
  const day = Number(m[3] ?? m[9]);
  const hour = Number(m[4] ?? m[10]);
  const minute = Number(m[5] ?? m[11] ?? 0);
  const second = Number(m[6] ?? m[12] ?? 0);
  const frac = m[7] ?? m[13] ?? "";
  const zone = m[14];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return bad;
  const monthDays = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day > monthDays) return bad;
  let offset: number | null = null;
  if (zone !== undefined) {
    if (zone === "Z") offset = 0;
    else {
      const digits = zone.slice(1).replace(":", "");
      const oh = Number(digits.slice(0, 2));
      const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
      if (oh > 23 || om > 59) return bad;
      offset = (zone[0] === "-" ? -1 : 1) * (oh * 60 + om);
    }
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const date = new Date(base);
  date.setUTCFullYear(year);
  const fracMicros = frac === "" ? 0 : Math.round(Number(`0.${frac}`) * 1_000_000);
  const micros = date.getTime() * 1000 + fracMicros - (offset ?? 0) * 60_000_000;
  return ok({ micros, offsetMinutes: offset });
}

/** Calendar fields of an instant seen at a UTC offset, for run-schedule checks. */
export interface CalendarFields {
  year: number;
  month: number;
  /** ISO week number 1-53. */
  week: number;
  /** ISO weekday 1 = Monday .. 7 = Sunday. */
  weekday: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Breaks an instant into calendar fields as seen at `offsetMinutes` (the timestamp's own zone). */
export function calendarFields(micros: number, offsetMinutes: number): CalendarFields {
  const d = new Date(Math.floor(micros / 1000) + offsetMinutes * 60_000);
  const weekday = d.getUTCDay() === 0 ? 7 : d.getUTCDay();
  // ISO week: the week containing this date's Thursday.
  const thursday = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 4 - weekday));
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  const week = Math.floor((thursday.getTime() - yearStart) / 86_400_000 / 7) + 1;
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    week,
    weekday,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}
