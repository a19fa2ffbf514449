/**
 * The pre-5.0 `test` limit, evaluated natively: each parameter constraint's
 * kind is inferred from its shape at load time and checked against
 * `task.test.spec`.
 */
import { parseIsoDuration } from "../common/iso8601.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { parseSiNumber } from "../common/si-number.js";
import { compileStringMatch, type StringMatchSpec } from "../common/string-match.js";
import type { LimitAnswer, LimitEvaluator } from "./limit-types.js";
import { pyStr, pyStringRepr } from "./python-text.js";
import { NOT_A_DICTIONARY, STRING_MATCH, firstError, schemaErrorText } from "./schema.js";

const LABELS: Readonly<Record<string, string>> = {
  bandwidth: "Bandwidth",
  parallel: "Parallel",
  duration: "Duration",
  udp: "UDP",
  "ip-version": "IP Version",
  count: "Count",
  length: "Length",
  ttl: "Time to live",
  "flow-label": "Flow label",
  "ip-tos": "IP TOS",
  hostnames: "Hostname resolution",
  "suppress-loopback": "Suppress loopback",
  interval: "Interval",
  timeout: "Timeout",
  deadline: "Deadline",
  "starting-comment": "Starting comment",
  "parting-comment": "Parting comment",
};

/** Checks one spec value: null when it passes, else the failure message; errors are thrown as values. */
type Check = (value: Json | undefined) => string | null | { error: string };

const EXTRA = new Set(["description", "invert", "fail-message"]);
const DURATION_TEXT = /^P/;

function label(param: string, c: JsonObject): string {
  if (Object.hasOwn(LABELS, param)) return LABELS[param];
  if (typeof c.description === "string") return c.description;
  return param.charAt(0).toUpperCase() + param.slice(1);
}

function boundText(v: Json): string {
  return typeof v === "string" ? v : pyStr(v);
}

/** Infers the constraint kind from its shape and compiles its check. */
function compileConstraint(param: string, c: Json): Result<Check, string> {
  if (!isJsonObject(c)) return err(`${pyStr(c)} is not of type 'object'`);
  const desc = label(param, c);
  const invert = c.invert === true;
  const failMessage = typeof c["fail-message"] === "string" ? c["fail-message"] : null;
  const kindKeys = Object.keys(c).filter((k) => !EXTRA.has(k));
  if (kindKeys.length !== 1)
    return err("Constraint must have exactly one of 'range', 'match' or 'enumeration'");
  if (c.invert !== undefined && typeof c.invert !== "boolean")
    return err(`${pyStr(c.invert)} is not of type 'boolean'`);
  const kind = kindKeys[0];
  const body = c[kind];

  if (kind === "range") {
    if (!isJsonObject(body) || !("lower" in body) || !("upper" in body))
      return err("Range must have 'lower' and 'upper'");
    const { lower, upper } = body;
    const inRange = (lo: number, hi: number, v: number): boolean => lo <= v && v <= hi;
    const message = (inside: boolean): string | null =>
      inside === invert
        ? `${desc} not ${invert ? "outside" : "in"} ${boundText(lower)}..${boundText(upper)}`
        : null;
    if (
      typeof lower === "string" &&
      typeof upper === "string" &&
      DURATION_TEXT.test(lower) &&
      DURATION_TEXT.test(upper)
    ) {
      const lo = parseIsoDuration(lower);
      const hi = parseIsoDuration(upper);
      if (!lo.ok) return err(lo.error);
      if (!hi.ok) return err(hi.error);
      if (lo.value > hi.value) return err("Lower bound must not be greater than upper bound");
      return ok((v) => {
        if (v === undefined) return null;
        const d = parseIsoDuration(v);
        if (!d.ok) return { error: d.error };
        return message(inRange(lo.value, hi.value, d.value));
      });
    }
    const lo = typeof lower === "number" || typeof lower === "string" ? parseSiNumber(lower) : null;
    const hi = typeof upper === "number" || typeof upper === "string" ? parseSiNumber(upper) : null;
    if (lo === null) return err(`Invalid SI value ${pyStringRepr(pyStr(lower))}`);
    if (hi === null) return err(`Invalid SI value ${pyStringRepr(pyStr(upper))}`);
    if (lo > hi) return err("Lower bound must not be greater than upper bound");
    return ok((v) => {
      if (v === undefined) return null;
      let n: number | null;
      if (typeof v === "number" && !Number.isInteger(v)) n = v;
      else n = typeof v === "number" || typeof v === "string" ? parseSiNumber(v) : null;
      if (n === null) return { error: `Invalid SI value ${pyStringRepr(pyStr(v))}` };
      return message(inRange(lo, hi, n));
    });
  }

  if (kind === "match" && typeof body === "boolean") {
    if (c.invert !== undefined) return err("Additional properties are not allowed ('invert' was unexpected)");
    const msg = failMessage ?? `${desc} testing not allowed`;
    return ok((v) => ((v ?? false) !== body ? msg : null));
  }

  if (kind === "match" && isJsonObject(body)) {
    const e = firstError(STRING_MATCH, body);
    if (e) return err(e.message);
    const m = compileStringMatch(body as unknown as StringMatchSpec);
    if (!m.ok) return err(m.error);
    const matcher = m.value;
    const msg = failMessage ?? `${desc} does not match limit`;
    return ok((v) => {
      if (v === undefined) return null;
      if (typeof v !== "string") return { error: `${desc}: ${pyStr(v)} is not a string` };
      return matcher(v) !== invert ? null : msg;
    });
  }

  if (kind === "match" && Array.isArray(body)) {
    if (!body.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0))
      return err("List items must be non-negative integers");
    const items = new Set(body as number[]);
    const msg = failMessage ?? `${desc} not within limit`;
    return ok((v) => {
      if (v === undefined) return null;
      const within = typeof v === "number" && items.has(v);
      return within !== invert ? null : msg;
    });
  }

  if ((kind === "match" && (body === 4 || body === 6)) || kind === "enumeration") {
    const list = kind === "match" ? [body] : body;
    if (!Array.isArray(list) || !list.every((x) => x === 4 || x === 6))
      return err(`${pyStr(body)} is not valid under any of the given schemas`);
    const allowed = new Set(list as number[]);
    return ok((v) => {
      if (v === undefined) return null;
      const values = Array.isArray(v) ? v : [v];
      for (const x of values) {
        const good = typeof x === "number" && allowed.has(x);
        if (good === invert) return `${desc} ${failMessage ?? `IPv${pyStr(x)} is not allowed`}`;
      }
      return null;
    });
  }

  return err(`Unrecognized constraint '${kind}'`);
}

/** Compiles a `test` limit; an unrecognised constraint fails load at `/limit/<param>`. */
export function compileTestLimit(data: Json): Result<LimitEvaluator, string> {
  if (!isJsonObject(data)) return err(NOT_A_DICTIONARY);
  const extra = Object.keys(data)
    .filter((k) => k !== "test" && k !== "limit")
    .sort();
  if (extra.length > 0) {
    const list = extra.map(pyStringRepr).join(", ");
    return err(
      `Invalid data: At /: Additional properties are not allowed (${list} ${extra.length === 1 ? "was" : "were"} unexpected)`,
    );
  }
  for (const r of ["test", "limit"])
    if (!(r in data)) return err(`Invalid data: At /: '${r}' is a required property`);
  if (typeof data.test !== "string")
    return err(
      `Invalid data: ${schemaErrorText({ pointer: "/test", message: `${pyStr(data.test)} is not of type 'string'` })}`,
    );
  if (!isJsonObject(data.limit))
    return err(`Invalid data: At /limit: ${pyStr(data.limit)} is not of type 'object'`);
  const testName = data.test;
  const checks: { param: string; check: Check }[] = [];
  for (const [param, c] of Object.entries(data.limit)) {
    const compiled = compileConstraint(param, c);
    if (!compiled.ok) return err(`Invalid data: At /limit/${param}: ${compiled.error}`);
    checks.push({ param, check: compiled.value });
  }
  const wrongTest: LimitAnswer = { passed: false, reasons: [`Test is not '${testName}'`] };
  return ok({
    checksSchedule: false,
    evaluate: (task) => {
      const test = task.test;
      if (!isJsonObject(test) || test.type !== testName) return wrongTest;
      const spec = isJsonObject(test.spec) ? test.spec : {};
      const reasons: string[] = [];
      for (const { param, check } of checks) {
        const r = check(spec[param]);
        if (r === null) continue;
        if (typeof r === "object") return { error: r.error };
        reasons.push(r);
      }
      return { passed: reasons.length === 0, reasons };
    },
  });
}
