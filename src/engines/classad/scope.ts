/**
 * Attribute lookup: the lexical scope chain, the special names (MY, SELF,
 * PARENT, ROOT, TOPLEVEL, CurrentTime), the match context (TARGET/OTHER,
 * MY/AD) and the default-mode fallback from MY to TARGET.
 */
import { ClassAd, EMPTY_AD, literal, type Slot } from "./classad.js";
import { Compiled, type EvalFn } from "./node.js";
import { MAX_DEPTH, MAX_LEVELS, MAX_STEPS, type EvalState } from "./state.js";
import { ERROR, ListValue, UNDEF, type Value } from "./values.js";

/** Evaluates one attribute's expression in the ad that holds it, guarding cycles and bounds. */
export function evalSlot(slot: Slot, holder: ClassAd, st: EvalState): Value {
  return evalExpr(slot.c, holder, st);
}

/** Evaluates slot i of `holder`: a literal slot counts as one step, like evaluating its expression would. */
export function evalAt(holder: ClassAd, i: number, st: EvalState): Value {
  const s = holder.at(i);
  if (s instanceof Compiled) return evalExpr(s, holder, st);
  if (st.depth >= MAX_DEPTH || ++st.steps > MAX_STEPS || !st.spend(1)) return ERROR;
  return chargeValue(s, st);
}

/**
 * {@link evalAt} of a slot a match plan resolved (match-plan.ts), without the depth test: a plan
 * runs only as an evaluation's first lookup (`evalTopAs`, depth 1) or at its top (`PlanSite.evalIn`,
 * depth 0), and every lookup inside it has left again before its next slot is read, so the depth is 0
 * or 1 there and never MAX_DEPTH. The same step, unit and value charge, in the same order.
 */
export function evalPlanSlot(holder: ClassAd, i: number, st: EvalState): Value {
  const s = holder.at(i);
  if (s instanceof Compiled) return evalExpr(s, holder, st);
  if (++st.steps > MAX_STEPS || !st.spend(1)) return ERROR;
  return chargeValue(s, st);
}

/**
 * Work units a lookup of an expression costs beyond the expression's own cost
 * (stacking it, the bounds and the value's charge): about 90 ns in node, where
 * a literal's lookup (one unit) is 20–30. At one unit (with the cycle check's
 * walk charged by depth, below) 40 levels of attributes each referring twice to
 * the next spent 21 ms of CPU in workerd within the default budget.
 */
export const LOOKUP_UNITS = 6;

/**
 * Evaluates an attribute's compiled expression in `holder` (a cycle yields
 * UNDEFINED). Each lookup is charged to the decision's work budget: the
 * expression's cost and {@link LOOKUP_UNITS}, plus one unit per 8 lookups in
 * progress when the cycle check has to walk them (the expression is already in
 * progress somewhere), plus the length of a string or list it yields (reading a
 * big value again is work again); a spent budget makes the lookup ERROR.
 */
export function evalExpr(c: Compiled, holder: ClassAd, st: EvalState): Value {
  // made once here, then read as fields (the getters would check each time)
  return evalExprAs(c, c.made().e, holder, st);
}

/**
 * {@link evalExpr} of `c` running `fn` in place of its closure: `fn` is the closure of a
 * plan made from `c`'s tree (match-plan.ts), which reads what `c` reads and evaluates as
 * it does, so the lookup is the same one (its charges, bounds and cycle guard). `c` is
 * made (its cost and height are read as fields).
 */
export function evalExprAs(c: Compiled, fn: EvalFn, holder: ClassAd, st: EvalState): Value {
  const stack = st.stack;
  const holders = st.holders;
  const sp = st.sp;
  let walked = 0;
  // only an expression already in progress can close a cycle: then the stack is searched for it in this ad
  if (c.active !== 0) {
    for (let i = sp - 1; i >= 0; i--) if (stack[i] === c && holders[i] === holder) return UNDEF;
    walked = sp >> 3;
  }
  if (++st.steps > MAX_STEPS || !st.spend(c.c + LOOKUP_UNITS + walked) || !st.enter(c.h)) return ERROR;
  // stored in place below the arrays' length (a store past it grows them: once per depth reached)
  if (sp < stack.length) {
    stack[sp] = c;
    holders[sp] = holder;
  } else {
    stack.push(c);
    holders.push(holder);
  }
  st.sp = sp + 1;
  c.active++;
  const v = fn(holder, st);
  c.active--;
  st.leave(c.h);
  st.sp = sp;
  return chargeValue(v, st);
}

/**
 * {@link evalExprAs} for the first lookup after `st` was reset (`EvalState.match` or
 * `plain`: nothing in progress, no step taken, depth and levels 0), as match-plan.ts's
 * sites start each evaluation: with nothing in progress there is no cycle to find and no
 * walk to charge, the step is the first and only the expression's own height can pass
 * the level bound, so the same value and the same units with fewer tests.
 */
export function evalTopAs(c: Compiled, fn: EvalFn, holder: ClassAd, st: EvalState): Value {
  st.steps = 1;
  const h = c.h;
  if (!st.spend(c.c + LOOKUP_UNITS) || h > MAX_LEVELS) return ERROR;
  const stack = st.stack;
  if (stack.length !== 0) {
    stack[0] = c;
    st.holders[0] = holder;
  } else {
    stack.push(c);
    st.holders.push(holder);
  }
  st.sp = 1;
  st.depth = 1;
  st.levels = h;
  c.active++;
  const v = fn(holder, st);
  c.active--;
  st.depth = 0;
  st.levels = 0;
  st.sp = 0;
  return chargeValue(v, st);
}

/**
 * Work units per element of a list a built-in builds: each element is an
 * expression object of its own (split's pieces are a string and a literal
 * each), several times a character's work. At one unit an element, 20,000
 * splits of 16 pieces spent 48 ms of CPU in workerd within the default budget.
 */
const LIST_ELEMENT_UNITS = 4;

/** Charges a built-in's call and the length of the string or list it built; ERROR when that spends the budget. */
export function chargeResult(v: Value, st: EvalState): Value {
  const n =
    typeof v === "string"
      ? v.length
      : typeof v === "object" && v instanceof ListValue
        ? LIST_ELEMENT_UNITS * v.length
        : 0;
  return st.spend(1 + n) ? v : ERROR;
}

/**
 * Charges the length of a string or list value to the work budget (values of
 * up to 32 characters or elements ride on the lookup's own unit); ERROR when
 * that spends it.
 */
export function chargeValue(v: Value, st: EvalState): Value {
  if (typeof v === "string") return v.length <= 32 || st.spend(v.length) ? v : ERROR;
  if (typeof v !== "object") return v;
  if (v instanceof ListValue) return v.length <= 32 || st.spend(v.length) ? v : ERROR;
  return v;
}

/** The special names, resolved relative to the ad where the search starts. */
function special(cur: ClassAd, lc: string, st: EvalState): Value | null {
  switch (lc) {
    case "my":
    case "self":
      return cur;
    case "toplevel":
    case "root":
      return st.root ?? EMPTY_AD;
    case "parent":
      return cur === st.root || cur.parent === null ? UNDEF : cur.parent;
    case "currenttime":
      return Math.floor(st.nowSeconds());
  }
  return null;
}

/** The names the match context defines for a top-level ad of the pair. */
function ctxName(top: ClassAd, lc: string, st: EvalState): Value | null {
  if (st.left === null) return null;
  const other = st.otherOf(top);
  if (other === null) return null;
  if (lc === "target" || lc === "other") return other;
  if (lc === "my" || lc === "ad") return top;
  return null;
}

/** Walks the chain from `start` upward (no special names), then the match context names. */
function walk(start: ClassAd, lc: string, st: EvalState): Value | null {
  let a: ClassAd = start;
  for (;;) {
    const i = a.layout.slotOf(lc);
    if (i >= 0) return evalAt(a, i, st);
    if (a === st.root) return null;
    if (a.parent === null) return ctxName(a, lc, st);
    a = a.parent;
  }
}

/**
 * Looks up `lc` starting in `cur` (an unscoped reference, or one scoped to an
 * ad value when `fallback` is false). Unscoped references from MY or TARGET
 * fall back to the other ad of the match.
 */
export function lookup(cur: ClassAd, lc: string, st: EvalState, fallback: boolean): Value {
  const i = cur.layout.slotOf(lc);
  if (i >= 0) return evalAt(cur, i, st);
  return lookupBeyond(cur, lc, st, fallback);
}

/** The rest of `lookup` once `cur` itself is known not to hold `lc`. */
export function lookupBeyond(cur: ClassAd, lc: string, st: EvalState, fallback: boolean): Value {
  const sp = special(cur, lc, st);
  if (sp !== null) return sp;
  if (cur !== st.root) {
    const found = cur.parent !== null ? walk(cur.parent, lc, st) : ctxName(cur, lc, st);
    if (found !== null) return found;
  }
  if (fallback && st.left !== null) {
    const other = st.fallbackOf(cur);
    if (other !== null) return walk(other, lc, st) ?? UNDEF;
  }
  return UNDEF;
}

/** `.name`: looks only in the root ad (none in a match). */
export function lookupAbsolute(lc: string, st: EvalState): Value {
  const root = st.root;
  if (root === null) return UNDEF;
  const i = root.layout.slotOf(lc);
  if (i >= 0) return evalAt(root, i, st);
  return special(root, lc, st) ?? UNDEF;
}

/** `e.name`: selection on an ad, element-wise on a list, ERROR otherwise. */
export function select(base: Value, lc: string, st: EvalState): Value {
  if (base instanceof ClassAd) return lookup(base, lc, st, false);
  if (base === UNDEF || base === ERROR) return base;
  if (base instanceof ListValue) {
    const out = [];
    for (let i = 0; i < base.length; i++) out.push(literal(select(base.at(i, st), lc, st)));
    return new ListValue(out, EMPTY_AD);
  }
  return ERROR;
}
