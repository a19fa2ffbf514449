/**
 * eval(s): parses a string as an expression and evaluates it in the current
 * scope. The text comes from ads, so parsing and compiling it is charged to
 * the decision's work budget by its length, a string is parsed once (bounded
 * LRU cache of short strings), and its tree's height counts against the
 * evaluation's levels like an attribute's (a string that evals itself ends at
 * a bound, never by overflowing the stack).
 */
import type { Compiled } from "../node.js";
import { compile } from "../compile.js";
import { parseExpr } from "../parser.js";
import { ERROR, UNDEF } from "../values.js";
import type { Builtin } from "./helpers.js";
import { Lru } from "../../common/regex/index.js";

/**
 * Work units per character parsed and compiled: parsing and compiling a
 * character costs about what four attribute evaluations do (measured with
 * bench/hostile.ts's eval rows).
 */
export const EVAL_UNITS_PER_CHAR = 4;

/** Strings longer than this are parsed at every call (and charged every time) rather than cached. */
export const EVAL_CACHE_MAX_CHARS = 1_000;

/** Compiled eval strings (null: the string does not parse). */
const cache = new Lru<Compiled | null>(256);

/** The compiled expression of `text`, charging its parse when it is not cached; undefined when the budget is spent. */
function compiledOf(text: string, spend: (n: number) => boolean): Compiled | null | undefined {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  if (!spend(1 + EVAL_UNITS_PER_CHAR * text.length)) return undefined;
  const p = parseExpr(text);
  const c = p.ok ? compile(p.node) : null;
  if (text.length <= EVAL_CACHE_MAX_CHARS) cache.set(text, c);
  return c;
}

/** eval(s): a String is parsed and evaluated (a parse failure, `""` or UNDEFINED is ERROR); another value is returned as is. */
const evalFn: Builtin = (args, ad, st) => {
  if (args.length !== 1) return ERROR;
  const arg = args[0](ad, st);
  if (arg === UNDEF || arg === ERROR) return ERROR;
  if (typeof arg !== "string") return arg;
  const c = compiledOf(arg, (n) => st.spend(n));
  if (c === null || c === undefined) return ERROR;
  if (!st.spend(c.cost) || !st.enter(c.height)) return ERROR;
  const v = c.ev(ad, st);
  st.leave(c.height);
  return v;
};

/** The eval built-in by lower-cased name. */
export const EVAL: ReadonlyArray<readonly [string, Builtin]> = [["eval", evalFn]];
