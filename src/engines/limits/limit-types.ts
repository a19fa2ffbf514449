/**
 * Limit types other than `test`: pass-fail, test-type, jq, run-daterange and
 * run-schedule, each compiled once into an evaluator of the (possibly
 * rewritten) task.
 */
import { BUDGET_EXCEEDED_MESSAGE } from "../common/budget.js";
import {
  calendarFields,
  parseIsoDuration,
  parseIsoTimestamp,
  type CalendarFields,
} from "../common/iso8601.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { compileSpec, type DataError, type JqSpec } from "./jq-bridge.js";
import { JQ_TRANSFORM, NOT_A_DICTIONARY, firstError, schemaErrorText, type Schema } from "./schema.js";
import type { EvalState } from "./identifiers.js";
import { compileTestLimit } from "./test-limit.js";
import { compileUrlFetch, URL_FETCH } from "./url-fetch.js";

/** A limit's own answer before inversion, or the text of the error it raised. */
export type LimitAnswer = { passed: boolean; reasons: string[] } | { error: string };

/** What a limit may consult besides the task: the hints and the decision's state (context, budgets). */
export interface LimitIo {
  readonly hints: JsonObject;
  readonly state: EvalState;
}

/** A compiled limit evaluator. */
export interface LimitEvaluator {
  /** Schedule limits pass without evaluation (and without inversion) when the task has no run_schedule. */
  readonly checksSchedule: boolean;
  /** `now` is the decision's time in seconds, for jq's `now`; only url-fetch answers asynchronously. */
  evaluate(task: JsonObject, now: number, io: LimitIo): LimitAnswer | Promise<LimitAnswer>;
}

const PASS: LimitAnswer = { passed: true, reasons: [] };

function fail(...reasons: string[]): LimitAnswer {
  return { passed: false, reasons };
}

function checkData(schema: Schema, data: Json): string | null {
  if (!isJsonObject(data)) return NOT_A_DICTIONARY;
  const e = firstError(schema, data);
  return e ? `Invalid data: ${schemaErrorText(e)}` : null;
}

const PASS_FAIL: Schema = {
  type: "object",
  properties: { pass: { type: "boolean" } },
  additionalProperties: false,
  required: ["pass"],
};
const TEST_TYPE: Schema = {
  type: "object",
  properties: { types: { type: "array", items: { type: "string" } } },
  additionalProperties: false,
  required: ["types"],
};
const DATE_RANGE: Schema = {
  type: "object",
  properties: { start: { type: "string" }, end: { type: "string" }, overlap: { type: "boolean" } },
  additionalProperties: false,
};

const FIELDS = ["year", "month", "week", "weekday", "day", "hour", "minute", "second"] as const;
type Field = (typeof FIELDS)[number];
const FIELD_BOUNDS: Record<Field, [number, number]> = {
  year: [1, 294276],
  month: [1, 12],
  week: [1, 53],
  weekday: [0, 7],
  day: [1, 31],
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
};
/** The values a field can take on a real date, for wrap-around. */
export const FIELD_WRAP: Record<Field, [number, number]> = {
  year: [1, 294276],
  month: [1, 12],
  week: [1, 53],
  weekday: [1, 7],
  day: [1, 31],
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
};

function scheduleSchema(): Schema {
  const props: Record<string, Schema> = { overlap: { type: "boolean" } };
  for (const f of FIELDS) {
    const [lo, hi] = FIELD_BOUNDS[f];
    const one: Schema = { type: "integer", minimum: lo, maximum: hi };
    const range: Schema = {
      type: "object",
      properties: { lower: one, upper: one },
      additionalProperties: false,
      required: ["lower", "upper"],
    };
    props[f] = { type: "array", items: { anyOf: [one, range] } };
  }
  return { type: "object", properties: props, additionalProperties: false };
}
const RUN_SCHEDULE = scheduleSchema();

/** Reads the run's start and end from `run_schedule`; errors are the texts pScheduler raises. */
function runWindow(task: JsonObject): Result<{ start: number; end: number; offset: number }, string> {
  const rs = task.run_schedule;
  if (!isJsonObject(rs)) return err("'run_schedule'");
  const start = parseIsoTimestamp(rs.start);
  if (!start.ok) return err(start.error);
  const duration = parseIsoDuration(rs.duration);
  if (!duration.ok) return err(duration.error);
  return ok({
    start: start.value.micros,
    end: start.value.micros + duration.value,
    offset: start.value.offsetMinutes ?? 0,
  });
}

function passFail(data: Json): Result<LimitEvaluator, string> {
  const e = checkData(PASS_FAIL, data);
  if (e) return err(e);
  const answer = (data as { pass: boolean }).pass ? PASS : fail("Forced failure");
  return ok({ checksSchedule: false, evaluate: () => answer });
}

function testType(data: Json): Result<LimitEvaluator, string> {
  const e = checkData(TEST_TYPE, data);
  if (e) return err(e);
  const types = new Set((data as { types: string[] }).types);
  return ok({
    checksSchedule: false,
    evaluate: (task) => {
      const test = task.test;
      if (!isJsonObject(test) || !("type" in test)) return fail("No type in task");
      return typeof test.type === "string" && types.has(test.type) ? PASS : fail("Test type not in list");
    },
  });
}

function jqLimit(data: Json): Result<LimitEvaluator, DataError> {
  const e = checkData(JQ_TRANSFORM, data);
  if (e) return err(e);
  const c = compileSpec(data as unknown as JqSpec);
  if (!c.ok) return c;
  const program = c.value;
  return ok({
    checksSchedule: false,
    evaluate: (task, now) => {
      const r = program.first(task, now);
      // a spent work budget is an exception, reported as pScheduler reports a limit that throws
      if (r.kind === "error" && r.message === BUDGET_EXCEEDED_MESSAGE) return { error: r.message };
      if (r.kind === "error") return fail(`Failed to process task: ${r.message}`);
      if (r.kind === "none") return fail("Failed to process task: list index out of range");
      if (r.value === true) return PASS;
      if (r.value === false) return fail("Unspecified reason");
      if (typeof r.value === "string") return fail(r.value);
      return fail("Script returned unusable data");
    },
  });
}

function runDateRange(data: Json): Result<LimitEvaluator, string> {
  const e = checkData(DATE_RANGE, data);
  if (e) return err(e);
  const d = data as { start?: string; end?: string; overlap?: boolean };
  if (d.start === undefined) return err("'start'");
  const start = parseIsoTimestamp(d.start);
  if (!start.ok) return err(start.error);
  if (d.end === undefined) return err("'end'");
  const end = parseIsoTimestamp(d.end);
  if (!end.ok) return err(end.error);
  const lo = start.value.micros;
  const hi = end.value.micros;
  if (hi < lo) return err("End must be after start.");
  const overlap = d.overlap === true;
  return ok({
    checksSchedule: true,
    evaluate: (task) => {
      const w = runWindow(task);
      if (!w.ok) return { error: w.error };
      const { start: s, end: en } = w.value;
      const subset = s >= lo && en < hi;
      const passed = subset || (overlap && ((s <= lo && lo < en) || (s <= hi && hi < en)));
      return passed ? PASS : fail("Ranges do not match");
    },
  });
}

/** True when every (or, with overlap, some) value from `a` to `b`, wrapping within the field, is allowed. */
function fieldMatches(field: Field, a: number, b: number, allowed: Set<number>, overlap: boolean): boolean {
  const [min, max] = FIELD_WRAP[field];
  const covered: number[] = [];
  if (b >= a) for (let v = a; v <= b; v++) covered.push(v);
  else {
    for (let v = a; v <= max; v++) covered.push(v);
    for (let v = min; v <= b; v++) covered.push(v);
  }
  return overlap ? covered.some((v) => allowed.has(v)) : covered.every((v) => allowed.has(v));
}

function runSchedule(data: Json): Result<LimitEvaluator, string> {
  const e = checkData(RUN_SCHEDULE, data);
  if (e) return err(e);
  const d = data as JsonObject;
  const overlap = d.overlap === true;
  const checks: { field: Field; allowed: Set<number> }[] = [];
  for (const f of FIELDS) {
    const items = d[f];
    if (!Array.isArray(items)) continue;
    const allowed = new Set<number>();
    for (const item of items) {
      if (typeof item === "number") allowed.add(item);
      else if (isJsonObject(item)) {
        const lo = item.lower as number;
        const hi = Math.min(item.upper as number, FIELD_BOUNDS[f][1]);
        for (let v = lo; v <= hi; v++) allowed.add(v);
      }
    }
    checks.push({ field: f, allowed });
  }
  return ok({
    checksSchedule: true,
    evaluate: (task) => {
      const w = runWindow(task);
      if (!w.ok) return { error: w.error };
      const s: CalendarFields = calendarFields(w.value.start, w.value.offset);
      const en: CalendarFields = calendarFields(w.value.end, w.value.offset);
      const reasons: string[] = [];
      for (const c of checks) {
        if (!fieldMatches(c.field, s[c.field], en[c.field], c.allowed, overlap))
          reasons.push(`Mismatch on ${c.field}`);
      }
      return reasons.length === 0 ? PASS : { passed: false, reasons };
    },
  });
}

/** The data of a `test` limit: per spec parameter a constraint (its kind inferred from its shape at load). */
const TEST_DATA: Schema = { type: "object" };

/**
 * The schema of each limit type's `data`, as its builder checks it, for the
 * generated JSON Schema of limits.json: the same constants the builders use.
 */
export const LIMIT_DATA: Readonly<Record<string, Schema>> = {
  "pass-fail": PASS_FAIL,
  "test-type": TEST_TYPE,
  jq: JQ_TRANSFORM,
  "run-daterange": DATE_RANGE,
  "run-schedule": RUN_SCHEDULE,
  test: TEST_DATA,
  "url-fetch": URL_FETCH,
};

const LIMIT_BUILDERS: Readonly<Record<string, (data: Json) => Result<LimitEvaluator, DataError>>> = {
  "pass-fail": passFail,
  "test-type": testType,
  jq: jqLimit,
  "run-daterange": runDateRange,
  "run-schedule": runSchedule,
  test: compileTestLimit,
  "url-fetch": compileUrlFetch,
};

/** Every limit type a limits file may use. */
export const LIMIT_TYPES: readonly string[] = Object.keys(LIMIT_BUILDERS).sort();

/** Compiles a limit of a known type, or says the type is unsupported (null). */
export function compileLimitType(type: string, data: Json): Result<LimitEvaluator, DataError> | null {
  const build = Object.hasOwn(LIMIT_BUILDERS, type) ? LIMIT_BUILDERS[type] : undefined;
  return build ? build(data) : null;
}
