/**
 * The ClassAd syntax tree and its compiled form. The tree is kept beside the
 * closure because values such as lists and ads unparse as written.
 */
import type { ClassAd } from "./classad.js";
import type { EvalState } from "./state.js";
import type { Value } from "./values.js";

/** Binary and unary operators, named as the library names them. */
export type Op =
  | "||" | "&&" | "|" | "^" | "&"
  | "==" | "!=" | "=?=" | "=!=" | "is" | "isnt"
  | "<" | "<=" | ">" | ">="
  | "<<" | ">>" | ">>>"
  | "+" | "-" | "*" | "/" | "%"
  | "u-" | "u+" | "~" | "!"
  | "?:" | "[]";

/** One node of the syntax tree. */
export type Node =
  | { readonly k: "lit"; readonly v: Value; readonly text?: string }
  | { readonly k: "attr"; readonly name: string; readonly lc: string; readonly scope: Node | null; readonly abs: boolean }
  | { readonly k: "op"; readonly op: Op; readonly a: Node; readonly b: Node | null }
  | { readonly k: "cond"; readonly c: Node; readonly a: Node; readonly b: Node }
  | { readonly k: "paren"; readonly a: Node }
  | { readonly k: "call"; readonly name: string; readonly lc: string; readonly args: readonly Node[] }
  | { readonly k: "ad"; readonly attrs: ReadonlyArray<readonly [string, Node]> }
  | { readonly k: "list"; readonly items: readonly Node[] };

/** The evaluation closure of one expression: the ad it lives in, and the state. */
export type EvalFn = (ad: ClassAd, st: EvalState) => Value;

/** A compiled expression: the closure plus the tree it came from. */
export class Compiled {
  constructor(
    readonly ev: EvalFn,
    readonly node: Node,
    /** Work units one evaluation costs at most (about one per two tree nodes, at least one). */
    readonly cost = 1,
    /** The tree's height: how many nested calls evaluating it may stack (bounded per evaluation, see MAX_LEVELS). */
    readonly height = 1,
  ) {}
}
