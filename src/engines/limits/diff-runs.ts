/**
 * The runs (`run: {start, duration}`) the limits diff tries, from the schedule
 * limits: around each run-daterange's start and end, one-second runs starting
 * and ending a second either side; for each run-schedule field, a one-second
 * run at each edge of its allowed values and one past it, on a date the
 * limit's other fields allow where one is found.
 */
import { calendarFields, parseIsoTimestamp, type CalendarFields } from "../common/iso8601.js";
import type { JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { FIELD_WRAP } from "./limit-types.js";

/** One run as a limits request carries it. */
export interface Run {
  start: string;
  duration: string;
}

const SECOND = 1_000_000;
const DAY_MS = 86_400_000;
type Field = keyof CalendarFields;
const TIME_FIELDS: readonly Field[] = ["hour", "minute", "second"];
const DATE_FIELDS: readonly Field[] = ["year", "month", "week", "weekday", "day"];
/** The schedule limits' field ranges, the year ending where JavaScript dates do (275760). */
const WRAP: Record<Field, [number, number]> = { ...FIELD_WRAP, year: [1, 275759] };
/** Days searched for a date with the wanted fields: two years, so week 53 and 29 February can be found. */
const SEARCH_DAYS = 3 * 366;

function iso(micros: number): string | null {
  const ms = Math.floor(micros / 1000);
  if (!Number.isFinite(ms) || Math.abs(ms) > 8.64e15) return null;
  return new Date(ms).toISOString().replace(/\.000Z$/, "Z");
}

function addRun(out: Map<string, Run>, startMicros: number, seconds: number): void {
  const start = iso(startMicros);
  if (start !== null) out.set(`${start}/${seconds}`, { start, duration: `PT${seconds}S` });
}

/** Runs around a run-daterange's start and end. */
function dateRangeRuns(data: JsonObject, out: Map<string, Run>): void {
  for (const key of ["start", "end"]) {
    const t = parseIsoTimestamp(data[key]);
    if (!t.ok) continue;
    const m = t.value.micros;
    addRun(out, m - SECOND, 1);
    addRun(out, m - SECOND, 2);
    addRun(out, m, 1);
  }
}

/** The allowed values of each field a run-schedule names. */
function allowedSets(data: JsonObject): Map<Field, Set<number>> {
  const out = new Map<Field, Set<number>>();
  for (const f of [...DATE_FIELDS, ...TIME_FIELDS]) {
    const items = data[f];
    if (!Array.isArray(items)) continue;
    const set = new Set<number>();
    for (const item of items) {
      if (typeof item === "number") set.add(item);
      else if (isJsonObject(item) && typeof item.lower === "number" && typeof item.upper === "number")
        for (let v = item.lower; v <= Math.min(item.upper, WRAP[f][1]); v++) set.add(v);
    }
    out.set(f, set);
  }
  return out;
}

/** Each edge of the allowed runs of values and the value just past it, within the field's range. */
function edges(f: Field, allowed: Set<number>): number[] {
  const [lo, hi] = WRAP[f];
  const out = new Set<number>();
  for (const v of allowed) {
    if (v < lo || v > hi) continue;
    if (!allowed.has(v - 1)) for (const x of [v - 1, v]) if (x >= lo) out.add(x);
    if (!allowed.has(v + 1)) for (const x of [v, v + 1]) if (x <= hi) out.add(x);
  }
  return [...out];
}

/** A midnight (ms) from `fromMs` on whose date fields are allowed and `want` holds, or null. */
function findDate(
  fromMs: number,
  allowed: Map<Field, Set<number>>,
  want: [Field, number] | null,
): number | null {
  for (let d = 0; d < SEARCH_DAYS; d++) {
    const ms = fromMs + d * DAY_MS;
    const c = calendarFields(ms * 1000, 0);
    if (want !== null && c[want[0]] !== want[1]) continue;
    if (
      DATE_FIELDS.every(
        (f) => (want !== null && f === want[0]) || !allowed.has(f) || allowed.get(f)?.has(c[f]),
      )
    )
      return ms;
  }
  return null;
}

/** Runs at the edges of a run-schedule's fields. */
function scheduleRuns(data: JsonObject, out: Map<string, Run>): void {
  const allowed = allowedSets(data);
  const years = allowed.get("year");
  const firstYear = years !== undefined && years.size > 0 && !years.has(2026) ? Math.min(...years) : 2026;
  const fromMs = new Date(Date.UTC(2000, 0, 1)).setUTCFullYear(
    Math.min(Math.max(firstYear, 1), WRAP.year[1] - 3),
    0,
    1,
  );
  const time = (f: Field, v?: number): number => {
    if (v !== undefined) return v;
    const set = allowed.get(f);
    return set !== undefined && set.size > 0 ? Math.min(...set) : 0;
  };
  const at = (dayMs: number, want: [Field, number] | null): number => {
    const [h, m, s] = TIME_FIELDS.map((f) => time(f, want !== null && want[0] === f ? want[1] : undefined));
    return (dayMs + ((h * 60 + m) * 60 + s) * 1000) * 1000;
  };
  const base = findDate(fromMs, allowed, null) ?? fromMs;
  addRun(out, at(base, null), 1);
  for (const [f, set] of allowed) {
    for (const v of edges(f, set)) {
      const want: [Field, number] = [f, v];
      const day = TIME_FIELDS.includes(f)
        ? base
        : (findDate(fromMs, allowed, want) ?? findDate(fromMs, new Map(), want));
      if (day !== null) addRun(out, at(day, want), 1);
    }
  }
}

/** The runs the schedule limits of one configuration draw, added to `out`; answers how many limits drew them. */
export function collectRuns(config: JsonObject, out: Map<string, Run>): number {
  let n = 0;
  for (const l of Array.isArray(config.limits) ? config.limits : []) {
    if (!isJsonObject(l) || !isJsonObject(l.data)) continue;
    if (l.type === "run-daterange") dateRangeRuns(l.data, out);
    else if (l.type === "run-schedule") scheduleRuns(l.data, out);
    else continue;
    n++;
  }
  return n;
}
