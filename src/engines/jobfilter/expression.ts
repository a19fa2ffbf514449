import type { Result } from "../common/result.js";
import { err, ok } from "../common/result.js";
import { showPretty, showRational } from "./render.js";
import { compileLinear, describeProblem, inspectPattern, type LinearRegex } from "../common/regex/index.js";
import { LazyLinear } from "../common/regex/lazy.js";
import { literalPattern } from "./literal-regex.js";
import { COMPARISONS } from "./rule-file.js";

/** A filter value: Ganeti only allows strings and integers (Haskell `Integer`: a bigint past 2^53 keeps them exact). */
export type FilterValue = string | number | bigint;

/** Comparison operators of the query language, after folding `=` into `==`. */
export type CmpOp = "==" | "<" | ">" | "<=" | ">=";

/** The parsed query-language expression (Ganeti's `Filter FilterField`). */
export type Expr =
  | { readonly k: "empty" }
  | { readonly k: "and"; readonly xs: readonly Expr[] }
  | { readonly k: "or"; readonly xs: readonly Expr[] }
  | { readonly k: "not"; readonly x: Expr }
  | { readonly k: "true"; readonly field: string }
  | { readonly k: "cmp"; readonly op: CmpOp; readonly field: string; readonly value: FilterValue }
  | { readonly k: "regex"; readonly field: string; readonly source: string; readonly re: PatternTest }
  | { readonly k: "contains"; readonly field: string; readonly value: FilterValue };

const CMP: Readonly<Record<string, CmpOp>> = COMPARISONS;

function readField(v: unknown): Result<string, string> {
  return typeof v === "string" ? ok(v) : err(`Unable to read String: ${showPretty(v)}`);
}

function readValue(v: unknown): Result<FilterValue, string> {
  if (typeof v === "string" || typeof v === "bigint") return ok(v);
  if (typeof v === "number") {
    if (Number.isInteger(v)) return ok(v);
    return err(
      `Cannot deserialise numeric filter value, expecting integral but got a fractional value: ${showRational(v)}`,
    );
  }
  return err(`Cannot deserialise filter value, expecting string or integer, got ${showPretty(v)}`);
}

/** The search an `=~` leaf runs: whether the pattern matches anywhere in a text. */
export interface PatternTest {
  test(s: string): boolean;
}

/**
 * Why a pattern is refused (PCRE's wording, as {@link compileRegex} gives it),
 * or null when it compiles: checked without building its matcher, which the
 * first decision testing it builds (charged to its budget, common/regex/lazy.ts);
 * plain text between optional anchors is not even parsed (literal-regex.ts).
 */
export function regexProblem(source: string): string | null {
  if (literalPattern(source) !== null) return null;
  const r = inspectPattern(source, "pcre");
  return r.ok ? null : `Invalid regular expression: ${describeProblem("pcre", r.error, source)}`;
}

/**
 * Compiles a pattern when its rule is added: PCRE syntax (Ganeti's regex
 * library), unanchored search, run by the linear-time matcher. One PCRE would
 * not compile, or that needs backtracking, is refused with PCRE's wording and
 * the offset in the pattern.
 */
export function compileRegex(source: string): Result<LinearRegex, string> {
  const r = compileLinear(source, "pcre");
  return r.ok ? ok(r.value) : err(`Invalid regular expression: ${describeProblem("pcre", r.error, source)}`);
}

function fieldValue(
  args: unknown[],
  build: (field: string, value: unknown) => Result<Expr, string>,
): Result<Expr, string> {
  if (args.length !== 2) {
    return err(
      `Cannot deserialise field/value pair, expected [fieldname, value] but got ${showPretty(args)}`,
    );
  }
  const field = readField(args[0]);
  if (!field.ok) return field;
  return build(field.value, args[1]);
}

/** How deeply filter expressions may nest (`["!", ["!", …]]`); Arbiter's bound, Ganeti has none. */
export const MAX_EXPRESSION_DEPTH = 50;

function parseList(args: unknown[], depth: number): Result<Expr[], string> {
  const xs: Expr[] = [];
  for (const a of args) {
    const r = parseExpression(a, depth + 1);
    if (!r.ok) return r;
    xs.push(r.value);
  }
  return ok(xs);
}

/** Parses the JSON form of a query-language filter, with Ganeti's own error texts, so bad rules are refused when added. */
export function parseExpression(json: unknown, depth = 0): Result<Expr, string> {
  if (json === null) return ok({ k: "empty" });
  if (depth >= MAX_EXPRESSION_DEPTH)
    return err(`filter expression nested more than ${MAX_EXPRESSION_DEPTH} levels deep`);
  if (!Array.isArray(json) || typeof json[0] !== "string") {
    return err(`Cannot deserialise filter: expected array [string, args], got ${showPretty(json)}`);
  }
  const op = json[0];
  const args = json.slice(1);
  switch (op) {
    case "&":
    case "|": {
      const xs = parseList(args, depth);
      return xs.ok ? ok(op === "&" ? { k: "and", xs: xs.value } : { k: "or", xs: xs.value }) : xs;
    }
    case "!": {
      if (args.length !== 1)
        return err(`Cannot deserialise field, expected [filter] but got ${showPretty(args)}`);
      const x = parseExpression(args[0], depth + 1);
      return x.ok ? ok({ k: "not", x: x.value }) : x;
    }
    case "?": {
      if (args.length !== 1)
        return err(`Cannot deserialise field, expected [fieldname] but got ${showPretty(args)}`);
      const field = readField(args[0]);
      return field.ok ? ok({ k: "true", field: field.value }) : field;
    }
    case "=~":
      return fieldValue(args, (field, v) => {
        if (typeof v !== "string") return err(`Unable to read String: ${showPretty(v)}`);
        // checked now, compiled when a decision first tests it: loading thousands of rules compiles nothing
        const problem = regexProblem(v);
        return problem === null
          ? ok({ k: "regex", field, source: v, re: new LazyLinear(v, "pcre") })
          : err(problem);
      });
    case "=[]":
      return fieldValue(args, (field, v) => {
        const value = readValue(v);
        return value.ok ? ok({ k: "contains", field, value: value.value }) : value;
      });
    case "!=":
      return fieldValue(args, (field, v) => {
        const value = readValue(v);
        return value.ok ? ok({ k: "not", x: { k: "cmp", op: "==", field, value: value.value } }) : value;
      });
    default: {
      const cmp = CMP[op];
      if (cmp === undefined || !Object.hasOwn(CMP, op)) return err(`Unknown filter operand '${op}'`);
      return fieldValue(args, (field, v) => {
        const value = readValue(v);
        return value.ok ? ok({ k: "cmp", op: cmp, field, value: value.value }) : value;
      });
    }
  }
}

/** Every field an expression names, in first-seen order; the opcode predicate resolves them all up front. */
export function fieldsOf(expr: Expr, out: string[] = []): string[] {
  switch (expr.k) {
    case "empty":
      return out;
    case "and":
    case "or":
      for (const x of expr.xs) fieldsOf(x, out);
      return out;
    case "not":
      return fieldsOf(expr.x, out);
    default:
      if (!out.includes(expr.field)) out.push(expr.field);
      return out;
  }
}

/**
 * Whether `expr` can be TRUE (`t`; FALSE when not) on an opcode only where
 * the value at `path` is one an `==` or `=[]` leaf on it names: the paths
 * whose values bound a rule's reach (job-reach.ts works the values out).
 * `&` is bounded where one operand is, `|` where every one is, `!` swaps.
 */
export function boundsValues(expr: Expr, path: string, t = true): boolean {
  switch (expr.k) {
    case "empty":
      return !t;
    case "and":
      return t
        ? expr.xs.some((x) => boundsValues(x, path, t))
        : expr.xs.every((x) => boundsValues(x, path, t));
    case "or":
      return t
        ? expr.xs.every((x) => boundsValues(x, path, t))
        : expr.xs.some((x) => boundsValues(x, path, t));
    case "not":
      return boundsValues(expr.x, path, !t);
    default:
      return t && expr.field === path && ((expr.k === "cmp" && expr.op === "==") || expr.k === "contains");
  }
}
