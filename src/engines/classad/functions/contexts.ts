/**
 * evalInEachContext(expr, ads) and countMatches(expr, ads) from HTCondor's
 * compat layer: evaluate one expression inside each ad of a list (the
 * custom-resource matching of GPUs and the like).
 */
import { ClassAd, EMPTY_AD, literal, type Slot } from "../classad.js";
import { compile } from "../compile.js";
import type { EvalFn, Node } from "../node.js";
import { select } from "../scope.js";
import type { EvalState } from "../state.js";
import { ERROR, ListValue, UNDEF, truth, type Value } from "../values.js";
import type { Builtin } from "./helpers.js";

/** Closures of the scope part of `scope.name` arguments, compiled once per syntax node. */
const scopeFns = new WeakMap<Node, EvalFn>();

function scopeFn(n: Node): EvalFn {
  let fn = scopeFns.get(n);
  if (fn === undefined) {
    fn = compile(n).ev;
    scopeFns.set(n, fn);
  }
  return fn;
}

/** The attribute `lc` in `start` or one of its lexical parents. */
function findInScope(start: ClassAd | null, lc: string): Slot | null {
  for (let a = start; a !== null; a = a.parent) {
    const slot = a.get(lc);
    if (slot !== undefined) return slot;
  }
  return null;
}

/** The expression to evaluate in each nested ad, and its height when it is an attribute's own tree (levels it stacks). */
type InContext = ((nested: ClassAd, st: EvalState) => Value) & { height?: number };

/**
 * What the first argument stands for, as AttributeReference::Deref finds it:
 * a reference that resolves to an attribute stands for that attribute's
 * expression; anything else (an unresolved name included) for itself.
 */
function expressionOf(node: Node, arg: EvalFn, ad: ClassAd, st: EvalState): InContext {
  const itself: InContext = (nested, s) => arg(nested, s);
  if (node.k !== "attr") return itself;
  let slot: Slot | null = null;
  if (node.abs) slot = findInScope(st.root, node.lc);
  else if (node.scope === null) {
    slot = findInScope(ad, node.lc);
    if (slot === null) {
      const other = st.fallbackOf(ad);
      if (other !== null) slot = findInScope(other, node.lc);
    }
  } else {
    const base = scopeFn(node.scope)(ad, st);
    if (base instanceof ClassAd) slot = findInScope(base, node.lc);
    else if (base instanceof ListValue) {
      const projected = select(base, node.lc, st);
      return () => projected;
    }
  }
  if (slot === null) return itself;
  const c = slot.c;
  return Object.assign((nested: ClassAd, s: EvalState) => c.ev(nested, s), { height: c.height });
}

/**
 * Evaluates `expr` with `nested` as the current ad. In a match, names that
 * the nested ad and its parents lack fall back to the other ad of the side
 * that holds it, as evaluateInContext arranges with the alternate scope.
 */
function inContext(expr: InContext, elem: Value, st: EvalState): Value {
  if (!(elem instanceof ClassAd)) return elem === UNDEF ? UNDEF : ERROR;
  const height = expr.height ?? 1;
  if (!st.enter(height)) return ERROR;
  const savedOf = st.altOf;
  const savedAlt = st.alt;
  st.altOf = elem;
  st.alt = elem.parent !== null ? st.otherOf(elem.parent) : null;
  const v = expr(elem, st);
  st.leave(height);
  st.altOf = savedOf;
  st.alt = savedAlt;
  return v;
}

/**
 * evalInEachContext gives the list of the values; countMatches the number of
 * values that are true (Boolean-equivalent), UNDEFINED and ERROR counting as
 * no match. An UNDEFINED list is UNDEFINED (evalInEachContext) or 0
 * (countMatches); any other non-list is ERROR.
 */
function eachContext(count: boolean): Builtin {
  return (args, ad, st, nodes) => {
    if (args.length !== 2) return ERROR;
    const expr = expressionOf(nodes[0], args[0], ad, st);
    const list = args[1](ad, st);
    if (!(list instanceof ListValue)) {
      if (list === UNDEF && nodes[1].k !== "list") return count ? 0 : UNDEF;
      return ERROR;
    }
    if (count) {
      let n = 0;
      for (let i = 0; i < list.length; i++) if (truth(inContext(expr, list.at(i, st), st)) === true) n++;
      return n;
    }
    const out = [];
    for (let i = 0; i < list.length; i++) out.push(literal(inContext(expr, list.at(i, st), st)));
    return new ListValue(out, EMPTY_AD);
  };
}

/** The per-context built-ins by lower-cased name. */
export const CONTEXTS: ReadonlyArray<readonly [string, Builtin]> = [
  ["evalineachcontext", eachContext(false)],
  ["countmatches", eachContext(true)],
];
