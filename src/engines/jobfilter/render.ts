import { stringifyExactJson } from "../common/exact-json.js";
import { checkJsonShape, POLICY_JSON_LIMITS } from "../common/json-shape.js";

/**
 * How Ganeti's error texts render JSON values: Text.JSON's compact form
 * (`showJSValue`, used in predicate and action errors) and its pretty form
 * (`pp_value`, used in query-language errors), plus Haskell's `show` of a
 * Rational for fractional filter values.
 */

/** What a value nested past 100 levels renders as (the parsers refuse such values first: `jobfilter_too_deep`). */
const TOO_DEEP_TEXT = "<nested more than 100 levels deep>";

/** Whether a value is too deep to render by recursion (checked with an explicit stack). */
function tooDeep(value: unknown): boolean {
  const shape = checkJsonShape(value, POLICY_JSON_LIMITS);
  return shape !== null && shape.kind === "depth";
}

/** Compact JSON as Text.JSON's showJSValue prints it; used verbatim in Ganeti's predicate/action errors. */
export function showCompact(value: unknown): string {
  if (tooDeep(value)) return TOO_DEEP_TEXT;
  const text = stringifyExactJson(value);
  return text === undefined ? "null" : text;
}

/** Text.JSON's pretty printer on one line (`[a, b]`, `{"k": v}`); used in query-language errors. */
export function showPretty(value: unknown): string {
  return tooDeep(value) ? TOO_DEEP_TEXT : pretty(value);
}

function pretty(value: unknown): string {
  if (Array.isArray(value)) return "[" + value.map(pretty).join(", ") + "]";
  if (typeof value === "object" && value !== null) {
    const parts = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pretty(v)}`);
    return "{" + parts.join(", ") + "}";
  }
  return showCompact(value);
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a < 0n ? -a : a;
}

/** Haskell's `show` of the exact decimal a JSON number denotes (`1.5` → `3 % 2`), as Ganeti reports fractions. */
export function showRational(x: number): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i.exec(String(x));
  if (!m) return String(x);
  const frac = m[3] ?? "";
  let num = BigInt(m[2] + frac);
  let den = 10n ** BigInt(frac.length);
  const exp = Number(m[4] ?? "0");
  if (exp >= 0) num *= 10n ** BigInt(exp);
  else den *= 10n ** BigInt(-exp);
  const g = gcd(num, den);
  num /= g;
  den /= g;
  return `${m[1]}${num} % ${den}`;
}
