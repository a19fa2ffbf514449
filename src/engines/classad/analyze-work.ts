/**
 * The working state of a match analysis: its charges to the decision's work
 * budget (and its stop when the budget is spent), the conjuncts kept per
 * compiled expression, and the operands and clauses being counted.
 */
import { BudgetExceeded, currentBudget } from "../common/budget.js";
import { bare, partsOf, type Part } from "./analyze-parts.js";
import type { ClassAd } from "./classad.js";
import { compile } from "./compile.js";
import { evalCompiled } from "./evaluate.js";
import type { Compiled, Node } from "./node.js";
import type { EvalState } from "./state.js";
import { unparseNode } from "./unparse.js";
import type { Value } from "./values.js";

/** An operand of a compared conjunct: its text, and either its literal value or its compiled form and values per machine. */
export interface Operand {
  node: Node;
  text: string;
  fixed: Value | null;
  c: Compiled | null;
  values: Value[];
}

/** A conjunct being counted: which machines (by position among those considered) it holds for. */
export interface ClauseWork {
  part: Part;
  truth: boolean[];
  matches: number;
  operands: [Operand, Operand] | null;
}

/** Conjuncts of the policy's expressions and of machines' Requirements, kept per compiled expression (compile once). */
const partsCache = new WeakMap<Compiled, Part[]>();

/** The analysis's own charges and its stop: the budget is spent, so is the analysis. */
export class Work {
  constructor(readonly st: EvalState) {}

  /** Charges `n` units, ending the analysis when the budget is spent. */
  charge(n: number): void {
    if (!this.st.spend(n)) this.stop();
  }

  /** Hands the units to the budget and ends the analysis when it is spent. */
  check(): void {
    this.st.flushWork();
    if (currentBudget().exhausted()) this.stop();
  }

  stop(): never {
    this.st.flushWork();
    throw new BudgetExceeded();
  }

  /** The conjuncts of a compiled expression, from the cache or split and compiled now (and charged). */
  parts(origin: string, whole: Compiled): Part[] {
    const hit = partsCache.get(whole);
    if (hit !== undefined && hit[0]?.origin === origin) return hit;
    const { parts, cost } = partsOf(origin, whole);
    this.charge(cost + parts.length);
    partsCache.set(whole, parts);
    return parts;
  }

  /** Evaluates a compiled piece with MY = `my`, TARGET = `target`, charged as an attribute lookup is. */
  eval(c: Compiled, my: ClassAd, target: ClassAd): Value {
    this.charge(c.cost);
    return evalCompiled(c, my, target, this.st);
  }
}

/** An operand of a comparison: a literal kept as its value, anything else compiled (and charged) to be evaluated per machine. */
export function operandOf(n: Node, work: Work): Operand {
  const b = bare(n);
  const text = unparseNode(b);
  if (b.k === "lit") return { node: n, text, fixed: b.v, c: null, values: [] };
  const c = compile(b);
  work.charge(c.cost);
  return { node: n, text, fixed: null, c, values: [] };
}
