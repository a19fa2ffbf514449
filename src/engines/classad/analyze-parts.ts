/**
 * The pieces the match analysis works on: an expression cut into its
 * top-level `&&` conjuncts (looking through parentheses, as better-analyze
 * does), the two operands of a comparison, and the job attributes an
 * expression refers to. Pure tree walks, with explicit stacks.
 */
import type { ClassAd } from "./classad.js";
import { compile } from "./compile.js";
import type { Compiled, Node, Op } from "./node.js";
import { unparseNode } from "./unparse.js";

/** One conjunct: where it comes from, its tree without outer parentheses, its text and compiled form. */
export interface Part {
  readonly origin: string;
  readonly node: Node;
  readonly text: string;
  readonly c: Compiled;
}

/** A tree without the parentheses around it. */
export function bare(n: Node): Node {
  let x = n;
  while (x.k === "paren") x = x.a;
  return x;
}

/** The top-level `&&` conjuncts of a tree, left to right, looking through parentheses. */
export function conjunctNodes(n: Node): Node[] {
  const out: Node[] = [];
  const stack: Node[] = [n];
  while (stack.length > 0) {
    const x = bare(stack.pop() as Node);
    if (x.k === "op" && x.op === "&&" && x.b !== null) stack.push(x.b, x.a);
    else out.push(x);
  }
  return out;
}

/**
 * The conjuncts of a compiled expression, each compiled on its own; a single
 * conjunct reuses the whole compiled form. `cost` is what compiling them
 * cost, for the caller to charge.
 */
export function partsOf(origin: string, whole: Compiled): { parts: Part[]; cost: number } {
  const nodes = conjunctNodes(whole.node);
  if (nodes.length === 1)
    return { parts: [{ origin, node: nodes[0], text: unparseNode(nodes[0]), c: whole }], cost: 0 };
  let cost = 0;
  const parts = nodes.map((node) => {
    const c = compile(node);
    cost += c.cost;
    return { origin, node, text: unparseNode(node), c };
  });
  return { parts, cost };
}

/** The operators whose two operands the analysis reports values of. */
const COMPARISONS: ReadonlySet<Op> = new Set<Op>([
  "==",
  "!=",
  "=?=",
  "=!=",
  "is",
  "isnt",
  "<",
  "<=",
  ">",
  ">=",
]);

/** The operator and operands of a conjunct that is a comparison, or null. */
export function comparisonOf(n: Node): { op: Op; a: Node; b: Node } | null {
  const x = bare(n);
  if (x.k !== "op" || x.b === null || !COMPARISONS.has(x.op)) return null;
  return { op: x.op, a: x.a, b: x.b };
}

/** Whether a scope node is MY or SELF (the ad the expression lives in). */
function isSelf(n: Node): boolean {
  const s = bare(n);
  return s.k === "attr" && s.scope === null && !s.abs && (s.lc === "my" || s.lc === "self");
}

/** The job attribute an operand names (MY.X, or an unscoped name the job holds), as written; null otherwise. */
export function jobAttrName(n: Node, job: ClassAd): string | null {
  const x = bare(n);
  if (x.k !== "attr" || x.abs) return null;
  if (x.scope === null) return job.has(x.lc) ? x.name : null;
  return isSelf(x.scope) ? x.name : null;
}

/** The child trees of a node. */
function childrenOf(n: Node): readonly Node[] {
  switch (n.k) {
    case "op":
      return n.b === null ? [n.a] : [n.a, n.b];
    case "cond":
      return [n.c, n.a, n.b];
    case "paren":
      return [n.a];
    case "call":
      return n.args;
    case "list":
      return n.items;
    case "ad":
      return n.attrs.map((a) => a[1]);
    case "attr":
    case "lit":
      return [];
  }
}

/** The lower-cased job attribute an attribute node refers to, or null (TARGET.X, absolute and nested names are not the job's). */
function jobAttrLc(n: Node & { k: "attr" }, job: ClassAd): string | null {
  if (n.abs) return null;
  if (n.scope === null) return job.has(n.lc) ? n.lc : null;
  return isSelf(n.scope) && job.has(n.lc) ? n.lc : null;
}

/**
 * The job attributes the trees refer to, followed through the job's own
 * expressions (each attribute once, Requirements itself left out), in the
 * order first met: what better-analyze lists as the attributes the job defines.
 */
export function jobReferences(roots: readonly Node[], job: ClassAd): { name: string; expr: string }[] {
  const out: { name: string; expr: string }[] = [];
  const seen = new Set<string>(["requirements"]);
  const stack: Node[] = [...roots].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as Node;
    if (n.k === "attr") {
      const lc = jobAttrLc(n, job);
      if (lc === null || seen.has(lc)) continue;
      seen.add(lc);
      const slot = job.get(lc);
      if (slot === undefined) continue;
      out.push({ name: slot.name, expr: unparseNode(slot.c.node) });
      stack.push(slot.c.node);
      continue;
    }
    const kids = childrenOf(n);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return out;
}

/** The tree with one conjunct (met through `&&` and parentheses, by identity) replaced; the rest shared. */
export function replaceConjunct(n: Node, from: Node, to: Node): Node {
  if (n === from) return to;
  if (n.k === "paren") {
    const a = replaceConjunct(n.a, from, to);
    return a === n.a ? n : { ...n, a };
  }
  if (n.k === "op" && n.op === "&&" && n.b !== null) {
    const a = replaceConjunct(n.a, from, to);
    const b = replaceConjunct(n.b, from, to);
    return a === n.a && b === n.b ? n : { ...n, a, b };
  }
  return n;
}
