/** Words a pattern problem the way each origin's own regex library does. */
import type { ProblemKind, RegexProblem } from "./ast.js";
import type { Origin } from "./dialect.js";

const GO: Record<ProblemKind, string> = {
  unsupported: "invalid or unsupported Perl syntax",
  "missing-paren": "missing closing )",
  "unmatched-paren": "unexpected )",
  "missing-bracket": "missing closing ]",
  "bad-range": "invalid character class range",
  "bad-escape": "invalid escape sequence",
  "trailing-backslash": "trailing backslash at end of expression",
  "nothing-to-repeat": "missing argument to repetition operator",
  "nested-repeat": "invalid nested repetition operator",
  "bad-repeat-count": "invalid repeat count",
  "bad-group-name": "invalid named capture",
  "duplicate-group-name": "duplicate capture group name",
  "bad-group-syntax": "invalid or unsupported Perl syntax",
  "bad-property": "invalid character class range",
  "bad-posix-class": "invalid character class range",
  "too-large": "expression too large",
  "too-deep": "expression nests too deeply",
};

const PYTHON: Record<ProblemKind, string> = {
  unsupported: "unsupported",
  "missing-paren": "missing ), unterminated subpattern",
  "unmatched-paren": "unbalanced parenthesis",
  "missing-bracket": "unterminated character set",
  "bad-range": "bad character range",
  "bad-escape": "bad escape",
  "trailing-backslash": "bad escape (end of pattern)",
  "nothing-to-repeat": "nothing to repeat",
  "nested-repeat": "multiple repeat",
  "bad-repeat-count": "min repeat greater than max repeat",
  "bad-group-name": "bad character in group name",
  "duplicate-group-name": "redefinition of group name",
  "bad-group-syntax": "unknown extension",
  "bad-property": "bad escape",
  "bad-posix-class": "bad escape",
  "too-large": "pattern too large",
  "too-deep": "too many nested parentheses",
};

const ONIG: Record<ProblemKind, string> = {
  unsupported: "not supported",
  "missing-paren": "end pattern with unmatched parenthesis",
  "unmatched-paren": "unmatched close parenthesis",
  "missing-bracket": "premature end of char-class",
  "bad-range": "empty range in char class",
  "bad-escape": "invalid code point value",
  "trailing-backslash": "end pattern at escape",
  "nothing-to-repeat": "target of repeat operator is not specified",
  "nested-repeat": "nested repeat operator",
  "bad-repeat-count": "too big number for repeat range",
  "bad-group-name": "invalid group name",
  "duplicate-group-name": "multiplex defined name",
  "bad-group-syntax": "undefined group option",
  "bad-property": "invalid character property name",
  "bad-posix-class": "invalid POSIX bracket type",
  "too-large": "too big regex",
  "too-deep": "parse depth limit over",
};

const PCRE: Record<ProblemKind, string> = {
  unsupported: "not supported",
  "missing-paren": "missing closing parenthesis",
  "unmatched-paren": "unmatched closing parenthesis",
  "missing-bracket": "missing terminating ] for character class",
  "bad-range": "range out of order in character class",
  "bad-escape": "unrecognized character follows \\",
  "trailing-backslash": "\\ at end of pattern",
  "nothing-to-repeat": "quantifier does not follow a repeatable item",
  "nested-repeat": "quantifier does not follow a repeatable item",
  "bad-repeat-count": "number too big in {} quantifier",
  "bad-group-name": "syntax error in subpattern name (missing terminator?)",
  "duplicate-group-name": "two named subpatterns have the same name",
  "bad-group-syntax": "unrecognized character after (? or (?-",
  "bad-property": "unknown property name after \\P or \\p",
  "bad-posix-class": "unknown POSIX class name",
  "too-large": "regular expression is too large",
  "too-deep": "parentheses are too deeply nested",
};

/** The sentence for a construct refused because it needs backtracking (same shape in every origin). */
export function unsupportedText(p: RegexProblem, pattern: string): string {
  return `${p.construct ?? "construct"} ${p.text} in ${pattern} (at offset ${p.offset}) is not supported`;
}

/**
 * The problem in the origin's words: Go's `error parsing regexp: …`, Python's
 * `… at position N`, Oniguruma's text as jq shows it, PCRE's `… at offset N`.
 */
export function describeProblem(origin: Origin, p: RegexProblem, pattern: string): string {
  if (p.kind === "unsupported") return unsupportedText(p, pattern);
  switch (origin) {
    case "re2":
      return `error parsing regexp: ${GO[p.kind]}: \`${p.text}\``;
    case "python": {
      // Python names an extension without its parenthesis and counts from the `?`
      if (p.kind === "bad-group-syntax" && p.text.startsWith("("))
        return `${PYTHON[p.kind]} ${p.text.slice(1)} at position ${p.offset + 1}`;
      const what =
        p.kind === "bad-escape" || p.kind === "bad-range" || p.kind === "bad-group-syntax"
          ? `${PYTHON[p.kind]} ${p.text}`
          : PYTHON[p.kind];
      return `${what} at position ${p.offset}`;
    }
    case "onig":
      return `${pattern} (at offset ${p.offset}) is not a valid regex: ${ONIG[p.kind]}`;
    case "pcre":
      return `${PCRE[p.kind]} at offset ${p.offset}`;
  }
}
