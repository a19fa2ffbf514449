/**
 * The ClassAd syntax tree and its compiled form. The tree is kept beside the
 * closure because values such as lists and ads unparse as written.
 */
import type { ClassAd } from "./classad.js";
import type { EvalState } from "./state.js";
import type { Value } from "./values.js";

/** Binary and unary operators, named as the library names them. */
export type Op =
  | "||"
  | "&&"
  | "|"
  | "^"
  | "&"
  | "=="
  | "!="
  | "=?="
  | "=!="
  | "is"
  | "isnt"
  | "<"
  | "<="
  | ">"
  | ">="
  | "<<"
  | ">>"
  | ">>>"
  | "+"
  | "-"
  | "*"
  | "/"
  | "%"
  | "u-"
  | "u+"
  | "~"
  | "!"
  | "?:"
  | "[]";

/** One node of the syntax tree. */
export type Node =
  | { readonly k: "lit"; readonly v: Value; readonly text?: string }
  | {
      readonly k: "attr";
      readonly name: string;
      readonly lc: string;
      readonly scope: Node | null;
      readonly abs: boolean;
    }
  | { readonly k: "op"; readonly op: Op; readonly a: Node; readonly b: Node | null }
  | { readonly k: "cond"; readonly c: Node; readonly a: Node; readonly b: Node }
  | { readonly k: "paren"; readonly a: Node }
  | { readonly k: "call"; readonly name: string; readonly lc: string; readonly args: readonly Node[] }
  | { readonly k: "ad"; readonly attrs: ReadonlyArray<readonly [string, Node]> }
  | { readonly k: "list"; readonly items: readonly Node[] };

/** The evaluation closure of one expression: the ad it lives in, and the state. */
export type EvalFn = (ad: ClassAd, st: EvalState) => Value;

/**
 * A compiled expression: the closure plus the tree it came from, its cost and
 * height. An ad reader may make one {@link Compiled.deferred}: its text, already
 * checked to parse (syntax-check.ts), is parsed and compiled the first time any
 * of these is read, and the work charged then to the budget being charged.
 */
export class Compiled {
  /** The closure, its cost and its height as fields, for the lookup's hot path (scope.ts): read them only after {@link made}. */
  e: EvalFn;
  private n: Node;
  c: number;
  h: number;
  /**
   * How many evaluations of this expression are in progress (on an evaluation's lookup stack,
   * scope.ts): while none is, a lookup of it cannot be a cycle and the stack is not searched. Never
   * less than the true count (an evaluation abandoned by a throw leaves it higher until the
   * state's reset), so a positive count only means the stack is searched.
   */
  active = 0;
  /** The text still to be parsed and compiled, and what does it; null once done. */
  private text: string | null = null;
  private make: ((text: string) => Compiled) | null = null;

  constructor(
    ev: EvalFn,
    node: Node,
    /** Work units one evaluation costs at most (about one per two tree nodes, at least one). */
    cost = 1,
    /** The tree's height: how many nested calls evaluating it may stack (bounded per evaluation, see MAX_LEVELS). */
    height = 1,
  ) {
    this.e = ev;
    this.n = node;
    this.c = cost;
    this.h = height;
  }

  /** An expression whose `text` is parsed and compiled by `make` on first use (`make` must not fail on it). */
  static deferred(text: string, make: (text: string) => Compiled): Compiled {
    const c = new Compiled(PENDING, PENDING_NODE, 1, 1);
    c.text = text;
    c.make = make;
    return c;
  }

  /** Whether the text is still to be parsed and compiled (for tests and benchmarks). */
  get pending(): boolean {
    return this.make !== null;
  }

  /** The evaluation closure. */
  get ev(): EvalFn {
    return this.made().e;
  }

  /** The tree it was compiled from. */
  get node(): Node {
    return this.made().n;
  }

  /** Work units one evaluation costs at most (about one per two tree nodes, at least one). */
  get cost(): number {
    return this.made().c;
  }

  /** The tree's height: how many nested calls evaluating it may stack (bounded per evaluation, see MAX_LEVELS). */
  get height(): number {
    return this.made().h;
  }

  /** This expression, parsed and compiled first if it was deferred. */
  made(): this {
    if (this.make !== null) this.force();
    return this;
  }

  private force(): void {
    const make = this.make as (text: string) => Compiled;
    const made = make(this.text as string);
    this.e = made.e;
    this.n = made.n;
    this.c = made.c;
    this.h = made.h;
    this.make = null;
    this.text = null;
  }
}

/** What a deferred expression holds until it is made (never evaluated: reading any part makes it first). */
const PENDING: EvalFn = () => {
  throw new Error("a deferred expression was evaluated before it was made");
};
const PENDING_NODE: Node = { k: "lit", v: false };
