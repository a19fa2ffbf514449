/**
 * A quick path for `inspectPattern` on the patterns policies mostly hold:
 * literals, `.`, `^`, `$`, bracket classes of plain ranges and the quantifiers
 * `*`, `+`, `?` (each optionally lazy), nothing else. For such a pattern it
 * gives the same literals as parsing it and reading its prefilter would,
 * reading the text once without building a tree (a policy of thousands of
 * rules inspects thousands of patterns when it is compiled). Anything outside
 * that subset, including every pattern that is an error, gets null, and the
 * caller parses it as before: errors keep their text and offset.
 */

/** Longest pattern read here: well inside the program limit (at most 3 instructions a character). */
const MAX_QUICK_LENGTH = 4096;

/** Whether `c` is a character the parser reads as a literal outside a class (printable ASCII, no metacharacter). */
function isLiteral(c: number): boolean {
  if (c < 0x20 || c > 0x7e) return false;
  switch (c) {
    case 0x5c: // \
    case 0x28: // (
    case 0x29: // )
    case 0x5b: // [
    case 0x5d: // ]
    case 0x7b: // {
    case 0x7d: // }
    case 0x7c: // |
    case 0x2a: // *
    case 0x2b: // +
    case 0x3f: // ?
    case 0x2e: // .
    case 0x5e: // ^
    case 0x24: // $
      return false;
    default:
      return true;
  }
}

/** Whether `c` may stand for itself inside a class here (printable ASCII, none of `\ [ ] &`). */
function isClassChar(c: number): boolean {
  return c >= 0x20 && c <= 0x7e && c !== 0x5c && c !== 0x5b && c !== 0x5d && c !== 0x26;
}

/**
 * The code at `i`, or -1 past the end: reading past the end with `charCodeAt`
 * (NaN) makes the optimised code of a function that every pattern's last
 * character reaches deoptimise, and a cold compile of thousands of patterns
 * then optimises it again (the comparisons here treat -1 as they treat NaN).
 */
function code(p: string, i: number): number {
  return i < p.length ? p.charCodeAt(i) : -1;
}

function isQuantifier(c: number): boolean {
  return c === 0x2a || c === 0x2b || c === 0x3f;
}

/** The end of the bracket class opening at `i` (just past its `]`), or -1 outside the subset. */
function classEnd(p: string, i: number): number {
  let j = i + 1;
  if (code(p, j) === 0x5e) j++;
  // a `]` first in the class is a literal: left to the parser
  if (code(p, j) === 0x5d) return -1;
  for (;;) {
    const c = code(p, j);
    if (c < 0) return -1;
    if (c === 0x5d) return j + 1;
    if (!isClassChar(c)) return -1;
    j++;
    // `lo-hi`, unless the `-` is last in the class (then it is a literal)
    if (code(p, j) === 0x2d && code(p, j + 1) !== 0x5d && j + 1 < p.length) {
      const hi = code(p, j + 1);
      if (!isClassChar(hi) || hi < c) return -1;
      j += 2;
    }
  }
}

/**
 * The prefix (after `^`) and the longest literal run every match needs, as
 * `prefilterOf` reads them off the parsed tree, or null when the pattern is
 * not in the subset this reads (see the file's comment). No flags: the
 * caller uses it only for a pattern compiled without any.
 */
export function inspectSimple(p: string): { prefix: string; required: string } | null {
  const n = p.length;
  if (n > MAX_QUICK_LENGTH) return null;
  let required = "";
  // the literals since the last item that is neither a literal nor an assertion (assertions do not end it)
  let run = "";
  let prefix = "";
  // 0: no `^` first; 1: after `^` first, in its run of literals; 2: that run has ended
  let prefixState = code(p, 0) === 0x5e ? 1 : 0;
  let i = 0;
  let first = true;
  while (i < n) {
    const c = code(p, i);
    if (c === 0x5e || c === 0x24) {
      // an assertion: it neither extends nor ends a run of literals; none can be repeated
      if (isQuantifier(code(p, i + 1)) || code(p, i + 1) === 0x7b) return null;
      if (!first && prefixState === 1) prefixState = 2;
      i++;
      first = false;
      continue;
    }
    let end: number;
    let literal = false;
    if (c === 0x2e) end = i + 1;
    else if (c === 0x5b) {
      end = classEnd(p, i);
      if (end < 0) return null;
    } else if (isLiteral(c)) {
      end = i + 1;
      literal = true;
    } else return null;
    let next = code(p, end);
    let repeated = false;
    if (isQuantifier(next)) {
      repeated = true;
      end++;
      if (code(p, end) === 0x3f) end++;
      next = code(p, end);
      // a second quantifier is an error (or possessive): left to the parser
      if (isQuantifier(next)) return null;
    }
    if (next === 0x7b) return null;
    if (literal && !repeated) {
      run += p[i];
      if (run.length > required.length) required = run;
      if (prefixState === 1) prefix += p[i];
    } else {
      run = "";
      if (prefixState === 1) prefixState = 2;
    }
    first = false;
    i = end;
  }
  return { prefix, required };
}
