import { closestName } from "../common/did-you-mean.js";
import { parseExactJson } from "../common/exact-json.js";
import { checkJsonShape, describeJsonShape, POLICY_JSON_LIMITS } from "../common/json-shape.js";
import type { Result } from "../common/result.js";
import { err, ok } from "../common/result.js";
import { parseExpression } from "./expression.js";
import { PREDICATE_NAMES, SIMPLE_ACTIONS } from "./rule-file.js";
import { showCompact } from "./render.js";
import type { FilterAction, FilterPredicate, ReasonEntry } from "./types.js";

const PREDICATES = new Set<string>(PREDICATE_NAMES);

/** The code that starts the error of a rule part nested past {@link POLICY_JSON_LIMITS} (100 levels). */
export const JOBFILTER_TOO_DEEP = "jobfilter_too_deep";

/**
 * The `jobfilter_too_deep` error text for a value nested more than 100 levels deep, or null: checked
 * with an explicit stack before anything recursive (expressions, Ganeti's error texts) walks it.
 */
export function tooDeepError(v: unknown, field: string): string | null {
  const shape = checkJsonShape(v, POLICY_JSON_LIMITS);
  return shape !== null && shape.kind === "depth"
    ? `${JOBFILTER_TOO_DEEP}: ${describeJsonShape(shape, field)}`
    : null;
}

/** Validates one `[name, expression]` predicate with Ganeti's error texts, so a bad rule is refused when added. */
export function parsePredicate(v: unknown): Result<FilterPredicate, string> {
  const deep = tooDeepError(v, "predicate");
  if (deep !== null) return err(deep);
  if (!Array.isArray(v) || typeof v[0] !== "string") {
    return err(
      "malformed FilterPredicate: must be a list with the first entry being a string describing the predicate type",
    );
  }
  const name = v[0];
  if (v.length !== 2 || !PREDICATES.has(name)) {
    return err(
      `malformed FilterPredicate: bad parameter list for '${name}' predicate: ${showCompact(v.slice(1))}`,
    );
  }
  const expr = parseExpression(v[1]);
  if (!expr.ok) return expr;
  return ok([name as FilterPredicate[0], v[1]]);
}

/** Validates a predicate list, stopping at the first bad one as Ganeti's deserialiser does. */
export function parsePredicates(
  v: readonly unknown[],
): Result<FilterPredicate[], { index: number; message: string }> {
  const out: FilterPredicate[] = [];
  for (let i = 0; i < v.length; i++) {
    const p = parsePredicate(v[i]);
    if (!p.ok) return err({ index: i, message: p.error });
    out.push(p.value);
  }
  return ok(out);
}

const SIMPLE = new Set<string>(SIMPLE_ACTIONS);

/** Validates an action (case-sensitive names, `["RATE_LIMIT", n]` with n a positive integer). */
export function parseAction(v: unknown): Result<FilterAction, string> {
  const deep = tooDeepError(v, "action");
  if (deep !== null) return err(deep);
  if (typeof v === "string" && SIMPLE.has(v)) return ok(v as FilterAction);
  if (Array.isArray(v) && v[0] === "RATE_LIMIT") {
    const n = v[1];
    if (v.length === 2 && typeof n === "number" && Number.isSafeInteger(n) && n > 0)
      return ok(["RATE_LIMIT", n]);
    return err("RATE_LIMIT argument must be a positive integer");
  }
  // Ganeti's text, then Arbiter's: the actions there are and the closest one
  const near = actionSuggestion(v);
  const hint = near === undefined ? "" : `; did you mean \`${near}\`?`;
  return err(
    `malformed FilterAction JSON: ${showCompact(v)} (the actions are ${ACTION_NAMES.slice(0, -1).join(", ")} and ${ACTION_NAMES[ACTION_NAMES.length - 1]}${hint})`,
  );
}

/** Every action name, for messages: the simple ones and `RATE_LIMIT` (written `["RATE_LIMIT", n]`). */
const ACTION_NAMES: readonly string[] = [...SIMPLE_ACTIONS, "RATE_LIMIT"];

/**
 * The action a malformed one most likely meant: the closest name to a string
 * (`ACEPT`, `accept`), or to the first entry of a list (`["RATE_LIMT", 3]`);
 * undefined when none is close.
 */
export function actionSuggestion(v: unknown): string | undefined {
  const name = typeof v === "string" ? v : Array.isArray(v) && typeof v[0] === "string" ? v[0] : undefined;
  if (name === undefined) return undefined;
  const near = closestName(name, ACTION_NAMES);
  if (near === undefined) return undefined;
  return near === "RATE_LIMIT" ? '["RATE_LIMIT", n]' : near;
}

/** Validates a reason trail: `[source, reason, timestamp]` entries of string, string, integer. */
export function parseReasonTrail(v: readonly unknown[]): Result<ReasonEntry[], string> {
  const deep = tooDeepError(v, "reason_trail");
  if (deep !== null) return err(deep);
  const out: ReasonEntry[] = [];
  for (const e of v) {
    if (
      !Array.isArray(e) ||
      e.length !== 3 ||
      typeof e[0] !== "string" ||
      typeof e[1] !== "string" ||
      !(typeof e[2] === "bigint" || (typeof e[2] === "number" && Number.isInteger(e[2])))
    ) {
      return err(
        `Invalid reason trail entry, expected [source, reason, timestamp] but got ${showCompact(e)}`,
      );
    }
    out.push([e[0], e[1], e[2]]);
  }
  return ok(out);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * The UUID text itself, or null when it is not one. Lower-case hex only, as
 * Ganeti's `isUUID` (Ganeti.Utils): an upper-case UUID names no rule and is
 * refused, never silently lower-cased.
 */
export function parseUuid(v: string): string | null {
  return UUID_RE.test(v) ? v : null;
}

/** The largest filter priority: Ganeti keeps it as a Haskell `NonNegative Int`, 64 bits. */
export const MAX_PRIORITY = 2n ** 63n - 1n;

/** Python's name for a JSON value's type, as Ganeti's RAPI parameter checks print it. */
export function pythonType(v: unknown): string {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (typeof v === "bigint") return "int";
  if (typeof v === "string") return "str";
  return Array.isArray(v) ? "list" : "dict";
}

/** The fields of a RAPI add/replace body after validation, defaults filled in. */
export interface RuleBody {
  priority: number | bigint;
  predicates: FilterPredicate[];
  action: FilterAction;
  reason: ReasonEntry[];
}

const BODY_KEYS = new Set(["priority", "predicates", "action", "reason"]);

/**
 * Which numbers of a body were written with a fraction or an exponent (`1.0`),
 * which JSON.parse cannot tell from integers; Python and Haskell can, and
 * refuse them for `priority` and the RATE_LIMIT argument.
 */
export interface FloatLiterals {
  priority: boolean;
  rateLimit: boolean;
}

/**
 * Parses a RAPI body text with exact integers (reason-trail timestamps in
 * nanoseconds exceed 2^53), noting whether `priority` or the RATE_LIMIT
 * argument was written as a float literal (`1.0`), which Python and Haskell
 * refuse where an integer is expected and JSON.parse cannot tell apart.
 * Throws a SyntaxError for text that is not JSON.
 */
export function readRapiJson(text: string): { value: unknown; floats: FloatLiterals } {
  const flagged: [object, string | number][] = [];
  const value: unknown = parseExactJson(text, (holder, key) => flagged.push([holder, key]));
  const isFlagged = (holder: unknown, key: string | number) =>
    flagged.some(([h, k]) => h === holder && k === key);
  const body = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  return {
    value,
    floats: {
      priority: body !== undefined && isFlagged(body, "priority"),
      rateLimit: body !== undefined && isFlagged(body.action, 1),
    },
  };
}

/**
 * Validates a `/2/filters` POST or PUT body with the RAPI's exact texts, so
 * Ganeti clients see the messages they already handle.
 */
export function parseRuleBody(body: unknown, floats?: FloatLiterals): Result<RuleBody, string> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return err("Invalid body contents, not a dictionary");
  }
  const deep = tooDeepError(body, "body");
  if (deep !== null) return err(deep);
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!BODY_KEYS.has(key)) {
      return err(`Invalid body parameters: filter rule doesn't support the parameter '${key}'`);
    }
  }
  const priority = Object.hasOwn(b, "priority") ? b.priority : 0;
  const predicates = Object.hasOwn(b, "predicates") ? b.predicates : [];
  const reason = Object.hasOwn(b, "reason") ? b.reason : [];
  const priorityType = floats?.priority && typeof priority === "number" ? "float" : pythonType(priority);
  if (priorityType !== "int")
    return err(`'priority' parameter: Type is '${priorityType}', but 'int' is expected`);
  if (!Array.isArray(predicates)) {
    return err(`'predicates' parameter: Type is '${pythonType(predicates)}', but 'list' is expected`);
  }
  if (!Array.isArray(reason))
    return err(`'reason' parameter: Type is '${pythonType(reason)}', but 'list' is expected`);
  if ((priority as number | bigint) < 0) return err("priority must be a non-negative integer");
  if ((priority as number | bigint) > MAX_PRIORITY)
    return err(`priority must be at most ${MAX_PRIORITY} (a 64-bit integer, as Ganeti stores it)`);
  const preds = parsePredicates(predicates);
  if (!preds.ok) return err(preds.error.message);
  const action = parseAction(Object.hasOwn(b, "action") ? b.action : "CONTINUE");
  if (!action.ok) return action;
  if (floats?.rateLimit && Array.isArray(action.value))
    return err("RATE_LIMIT argument must be a positive integer");
  const trail = parseReasonTrail(reason);
  if (!trail.ok) return trail;
  return ok({
    priority: priority as number | bigint,
    predicates: preds.value,
    action: action.value,
    reason: trail.value,
  });
}
