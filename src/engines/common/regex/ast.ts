/** The syntax tree every origin's pattern is translated into before compiling. */
import type { CharSetSpec } from "./charset.js";

/**
 * Zero-width assertions. `bol`/`eol`: line anchors; `bot`: start of text;
 * `eot`: end of text; `eotnl`: end of text or before a final newline;
 * `wordb`/`nwordb`: (not) at a word boundary, with the pattern's word set.
 */
export type AssertKind = "bol" | "eol" | "bot" | "eot" | "eotnl" | "wordb" | "nwordb";

/** A node of the tree. */
export type Node =
  | { readonly t: "empty" }
  | { readonly t: "char"; readonly cp: number }
  | { readonly t: "set"; readonly set: CharSetSpec }
  | { readonly t: "cat"; readonly xs: readonly Node[] }
  | { readonly t: "alt"; readonly xs: readonly Node[] }
  | {
      readonly t: "rep";
      readonly x: Node;
      readonly min: number;
      readonly max: number;
      readonly greedy: boolean;
    }
  | { readonly t: "group"; readonly x: Node; readonly index: number }
  | { readonly t: "assert"; readonly kind: AssertKind }
  | { readonly t: "look"; readonly x: Node; readonly behind: boolean; readonly negated: boolean };

/** What the parser gives the compiler. */
export interface Parsed {
  readonly node: Node;
  /** Capture groups, 1-based; names[i - 1] is group i's name or null. */
  readonly names: ReadonlyArray<string | null>;
  /** The set `\b` and `\B` treat as word characters. */
  readonly word: CharSetSpec;
}

/** A pattern the matcher cannot take: a syntax error, or a construct that needs backtracking. */
export interface RegexProblem {
  /** What is wrong, in neutral terms (each origin words it its own way). */
  readonly kind: ProblemKind;
  /** Offset in the pattern (UTF-16 units) where the problem starts. */
  readonly offset: number;
  /** The offending text, e.g. `\1`, `(?=`, `[z-a]`. */
  readonly text: string;
  /** For `unsupported`: the construct's name, e.g. "back-reference". */
  readonly construct?: string;
}

/** The problems the parser reports. */
export type ProblemKind =
  | "unsupported"
  | "missing-paren"
  | "unmatched-paren"
  | "missing-bracket"
  | "bad-range"
  | "bad-escape"
  | "trailing-backslash"
  | "nothing-to-repeat"
  | "nested-repeat"
  | "bad-repeat-count"
  | "bad-group-name"
  | "duplicate-group-name"
  | "bad-group-syntax"
  | "bad-property"
  | "bad-posix-class"
  | "too-large"
  | "too-deep";
