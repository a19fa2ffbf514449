/**
 * Expressions written alike, inspected once (issue 31 goal 4). Generated
 * policies hold thousands of expressions that differ only in a number or a
 * word (`^.*-t17[a-z]+$`, `^.*-t18[a-z]+$`): the same tokens, in the same
 * places, with other letters and digits where a literal is. A shape is the
 * first such expression with each of those letters and digits left open;
 * an expression of the same length that has a letter or digit at each open
 * place and every other character the same reads as the same tokens (a
 * letter, digit or `_` outside a class and not followed by a quantifier is a
 * literal that is not repeated, whichever it is), so the literals it needs
 * are at the same places: its prefix and required text are cut from it there,
 * with one native search and no inspection.
 *
 * Only expressions the quick inspection reads (common/regex/inspect-simple.ts:
 * literals, `.`, anchors, plain classes, `*+?`; never an error) make shapes,
 * and only when their required text is one stretch of the expression, so an
 * expression a shape takes is one the inspection would accept, with the same
 * facts. A compile reads at most {@link MAX_SHAPE_TRIES} expressions for a shape.
 */

/**
 * Expressions one compile reads for a shape, so at most this many shapes: an
 * expression that none takes is tested against each, one native search apiece.
 */
export const MAX_SHAPE_TRIES = 8;
/** Longest expression that makes a shape (its search stays small). */
const MAX_SHAPE_LENGTH = 256;

/** A shape: the expressions it takes, and where their literals are. */
export interface RegexShape {
  /** Anchored at both ends; open places are `[A-Za-z0-9_]`, everything else itself. */
  readonly search: RegExp;
  /** The length of every expression it takes. */
  readonly length: number;
  /** The prefix's length: it is the expression's text from index 1 (after `^`). */
  readonly prefixLength: number;
  /** Where the required text starts and ends in the expression. */
  readonly requiredStart: number;
  readonly requiredEnd: number;
}

function isWordCode(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

function isRepeat(c: number): boolean {
  return c === 0x2a || c === 0x2b || c === 0x3f || c === 0x7b;
}

/** The expression's characters, regex-escaped for a search. */
function escaped(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/**
 * The shape of `p`, whose quick inspection gave `prefix` and `required`, or
 * null when it makes none (too long, or its required text is not one stretch
 * of it: a `^` or `$` inside the run, or a run this reading does not find).
 */
export function shapeOf(p: string, prefix: string, required: string): RegexShape | null {
  const n = p.length;
  if (n > MAX_SHAPE_LENGTH) return null;
  let source = "^";
  let open = 0;
  let fixed = "";
  // the literal runs as the quick inspection reads them (`^` and `$` neither end nor extend them)
  let runStart = -1;
  let runLength = 0;
  let runContiguous = true;
  let lastLiteral = -1;
  let bestStart = -1;
  let bestLength = 0;
  let bestContiguous = true;
  const flush = (): void => {
    if (open > 0) source += `[A-Za-z0-9_]{${open}}`;
    open = 0;
  };
  for (let i = 0; i < n;) {
    const c = p.charCodeAt(i);
    if (c === 0x5b) {
      // a class (the quick inspection accepts none with `]` first, `\`, `[` or `&` inside): kept as is
      const end = p.indexOf("]", i + 1);
      if (end < 0) return null;
      flush();
      fixed += p.slice(i, end + 1);
      runStart = -1;
      runLength = 0;
      i = end + 1;
      continue;
    }
    const repeated = isRepeat(p.charCodeAt(i + 1));
    if (c === 0x5e || c === 0x24) {
      fixed += p[i];
      i++;
      continue;
    }
    const literal = !(c === 0x2e || c === 0x2a || c === 0x2b || c === 0x3f || c === 0x7b);
    if (literal && !repeated) {
      if (runLength === 0) {
        runStart = i;
        runContiguous = true;
      } else if (lastLiteral !== i - 1) runContiguous = false;
      runLength++;
      lastLiteral = i;
      if (runLength > bestLength) {
        bestStart = runStart;
        bestLength = runLength;
        bestContiguous = runContiguous;
      }
    } else if (c !== 0x2a && c !== 0x2b && c !== 0x3f) {
      // `.` or a repeated literal ends the run (a quantifier's own character was read with its item)
      runStart = -1;
      runLength = 0;
    }
    if (literal && !repeated && isWordCode(c)) {
      if (fixed !== "") {
        flush();
        source += escaped(fixed);
        fixed = "";
      }
      open++;
    } else {
      flush();
      fixed += p[i];
    }
    i++;
  }
  flush();
  source += escaped(fixed) + "$";
  if (!bestContiguous || bestLength !== required.length) return null;
  if (required !== "" && p.slice(bestStart, bestStart + bestLength) !== required) return null;
  if (prefix !== "" && p.slice(1, 1 + prefix.length) !== prefix) return null;
  return {
    search: new RegExp(source),
    length: n,
    prefixLength: prefix.length,
    requiredStart: bestLength === 0 ? 0 : bestStart,
    requiredEnd: bestLength === 0 ? 0 : bestStart + bestLength,
  };
}
