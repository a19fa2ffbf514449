/**
 * Filter expressions written alike, validated and read once per shape (issue
 * 31 goal 4, the cold compile): the quick rule decoder (quick-rule.ts), in its
 * per-rule step for a rule of a shared rule shape, puts the rule's single
 * users or groups expression into the compile's regex memo (filter.ts
 * SEEDED_MEMOS) with the answer read off the first expression of the same
 * {@link ExprShape}, so that validation (`singleEntryProblem`) and the rule
 * build (`translateGoRegex`) find it there and inspect thousands of
 * expressions no more than once per shape. An expression no shape takes is
 * not put there, and is inspected (and its error given) as before.
 *
 * Why it is the same answer. `inspectPattern` (common/regex) reads a pattern
 * without flags by `inspectSimple` first, and gives its answer when that reads
 * it. A shape is taken only from an expression E that `inspectSimple` reads;
 * it leaves open exactly the positions where that reading takes a literal item
 * whose character is a letter, a digit or `_`, and takes an expression E' of
 * E's length with E's characters everywhere else and one of those characters
 * at each open position. Every branch of `inspectSimple` depends on a
 * character only through whether it is `^`, `$`, `.`, `[`, a quantifier, `{`
 * or a literal (outside a class; the open positions are outside every class
 * and are not in a `{}`), and a letter, digit or `_` answers all of these as
 * every other one does: so `inspectSimple` walks E' as it walks E and builds
 * the prefix and the required text from the characters at the same positions
 * (recorded here by {@link shapeOfExpr}, which walks as it does and is checked
 * against its answer). The same length keeps every run of literals as long as
 * in E, so the longest run is the same one. Validation: E holds one of
 * `^ * + ? ( ) [ { } |` (at a position not open), which neither name pattern
 * allows and SPECIAL_RE finds, so E' too is not a name and is an expression;
 * it is valid since `inspectSimple` reads it. No `exact` texts: the quick
 * reading never gives them.
 */
import { inspectPattern, type PatternFacts } from "../common/regex/index.js";
import { inspectSimple } from "../common/regex/inspect-simple.js";
import type { RegexMemo } from "./filter.js";

/** The expressions of one shape: E's text with its open positions as `[A-Za-z0-9_]`, and where the facts are read. */
export interface ExprShape {
  re: RegExp;
  /** The prefix is the expression's text from `prefixFrom` to `prefixTo`, the required text from `requiredFrom` to `requiredTo`. */
  prefixFrom: number;
  prefixTo: number;
  requiredFrom: number;
  requiredTo: number;
}

/** Longest expression given a shape (inspectSimple reads at most 4,096 characters). */
const MAX_SHAPED_LENGTH = 4096;

/** A character the name patterns refuse and SPECIAL_RE finds (see the file's comment; `$` is left out: a user name may end with it). */
const NOT_A_NAME = /[\^*+?()[{}|]/;

function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** The end of the class opening at `i` as inspectSimple reads it (just past `]`); only called on text it read. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (p.charCodeAt(j) === 0x5e) j++;
  for (;;) {
    const c = p.charCodeAt(j);
    if (c === 0x5d) return j + 1;
    j++;
    if (p.charCodeAt(j) === 0x2d && p.charCodeAt(j + 1) !== 0x5d && j + 1 < p.length) j += 2;
  }
}

function isQuantifier(c: number): boolean {
  return c === 0x2a || c === 0x2b || c === 0x3f;
}

/** Where the positions `at` are one stretch of the text: [from, to), or null. */
function stretch(at: readonly number[]): [number, number] | null {
  if (at.length === 0) return [0, 0];
  const from = at[0];
  return at[at.length - 1] - from + 1 === at.length ? [from, from + at.length] : null;
}

/**
 * The shape of the expression `p`, or null when it is not shared (see the
 * file's comment): walks it as inspectSimple does, recording the positions
 * of the literals, of the prefix and of the longest run.
 */
export function shapeOfExpr(p: string): ExprShape | null {
  if (p.length > MAX_SHAPED_LENGTH || !NOT_A_NAME.test(p)) return null;
  const quick = inspectSimple(p);
  if (quick === null) return null;
  const open: boolean[] = [];
  // the unrepeated literals in order; the current run is lits[runStart..], the longest lits[bestStart..bestEnd)
  const lits: number[] = [];
  let runStart = 0;
  let bestStart = 0;
  let bestEnd = 0;
  const prefixAt: number[] = [];
  let prefixState = p.charCodeAt(0) === 0x5e ? 1 : 0;
  let first = true;
  let i = 0;
  while (i < p.length) {
    const c = p.charCodeAt(i);
    if (c === 0x5e || c === 0x24) {
      if (!first && prefixState === 1) prefixState = 2;
      i++;
      first = false;
      continue;
    }
    let end = c === 0x5b ? classEnd(p, i) : i + 1;
    const literal = c !== 0x2e && c !== 0x5b;
    if (literal && isWordChar(c)) open[i] = true;
    let repeated = false;
    if (isQuantifier(p.charCodeAt(end))) {
      repeated = true;
      end++;
      if (p.charCodeAt(end) === 0x3f) end++;
    }
    if (literal && !repeated) {
      lits.push(i);
      if (lits.length - runStart > bestEnd - bestStart) {
        bestStart = runStart;
        bestEnd = lits.length;
      }
      if (prefixState === 1) prefixAt.push(i);
    } else {
      runStart = lits.length;
      if (prefixState === 1) prefixState = 2;
    }
    first = false;
    i = end;
  }
  const requiredAt = lits.slice(bestStart, bestEnd);
  // the walk must be inspectSimple's, and inspectPattern must give its answer
  const facts = inspectPattern(p, "re2");
  if (!facts.ok || facts.value.exact !== undefined) return null;
  // an assertion between two literals of a run (`a$b`) leaves the run in pieces: not shared
  const pre = stretch(prefixAt);
  const req = stretch(requiredAt);
  if (pre === null || req === null) return null;
  const prefix = p.slice(pre[0], pre[1]);
  const required = p.slice(req[0], req[1]);
  if (prefix !== quick.prefix || required !== quick.required) return null;
  if (facts.value.prefix !== prefix || facts.value.required !== required) return null;
  let pattern = "^";
  for (let k = 0; k < p.length; k++)
    pattern += open[k] === true ? "[A-Za-z0-9_]" : p[k].replace(/[\\^$.*+?()[\]{}|/-]/, "\\$&");
  return {
    re: new RegExp(pattern + "$"),
    prefixFrom: pre[0],
    prefixTo: pre[1],
    requiredFrom: req[0],
    requiredTo: req[1],
  };
}

/** When `expr` is of `shape`, puts it into the memo with the answer `inspectGoRegex` gives it (see the file's comment); whether it did. */
export function shapedInto(shape: ExprShape, expr: string, memo: RegexMemo): boolean {
  if (!shape.re.test(expr)) return false;
  const value: PatternFacts = {
    prefix: expr.slice(shape.prefixFrom, shape.prefixTo),
    required: expr.slice(shape.requiredFrom, shape.requiredTo),
  };
  memo.set(expr, { ok: true, value });
  return true;
}
