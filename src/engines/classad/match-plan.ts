/**
 * Match plans: an attribute evaluated in a match loop (the job's Requirements and
 * Rank against every machine, each machine's Requirements against the job) with
 * its references resolved once for the two ads' layouts. A reference's closure
 * searches for its name on every evaluation (the ad's layout against the site's,
 * the special names, the match context, the fallback to the other ad); ads of one
 * kind share a layout, so for one pair of layouts each reference always lands on
 * the same place: a slot of MY, a slot of TARGET, or nothing (UNDEFINED). The plan
 * is the expression's tree built again with those places in it, and evaluates to
 * what the expression evaluates to, charging the same work (a slot is read through
 * `evalAt`, as the lookup reads it).
 */
import type { AdLayout, ClassAd } from "./classad.js";
import { buildResolved, type AttrResolver, type Leaf } from "./compile.js";
import { Compiled, type EvalFn, type Node } from "./node.js";
import { evalAt, evalExpr, evalExprAs } from "./scope.js";
import type { EvalState } from "./state.js";
import { ERROR, UNDEF, type Value } from "./values.js";

/**
 * Names a reference may resolve to something other than a slot (scope.ts: the
 * special names and the match context's): a reference to one of these, or scoped
 * by one an ad defines itself, keeps the general lookup.
 */
const CONTEXT_NAMES = new Set([
  "my",
  "self",
  "toplevel",
  "root",
  "parent",
  "currenttime",
  "target",
  "other",
  "ad",
]);

/**
 * Consecutive evaluations of one expression over one pair of layouts before a
 * plan is built for them: building costs about what compiling the tree did and is
 * not charged to the budget, so it is done only for an expression evaluated again
 * and again (a match's loop), at most once per this many evaluations charged.
 */
export const PLAN_AFTER = 8;

/** A reference that lands nowhere: UNDEFINED (the lookup charges nothing for it either). */
const NOWHERE: Leaf = { k: 0, i: 0, v: UNDEF };

/**
 * The resolver for an expression of an ad with layout `my` evaluated with a TARGET
 * of layout `target`, both top-level ads of the match (scope.ts's lookup from MY
 * in a match: MY's slot, else a special or match-context name, else TARGET's slot,
 * else UNDEFINED; `TARGET.x` and `MY.x` straight to that ad's slot unless MY
 * defines `target` or `my` itself).
 */
function resolverFor(my: AdLayout, target: AdLayout): AttrResolver {
  const mySlot = (i: number): Leaf => ({ k: 1, i, v: UNDEF });
  const targetSlot = (i: number): Leaf => ({ k: 2, i, v: UNDEF });
  return (lc, scope, abs) => {
    if (abs || CONTEXT_NAMES.has(lc)) return null;
    if (scope === null) {
      const i = my.slotOf(lc);
      if (i >= 0) return mySlot(i);
      const j = target.slotOf(lc);
      return j >= 0 ? targetSlot(j) : NOWHERE;
    }
    if (scope.k !== "attr" || scope.scope !== null || scope.abs || my.slotOf(scope.lc) >= 0) return null;
    if (scope.lc === "my" || scope.lc === "self") {
      const i = my.slotOf(lc);
      return i >= 0 ? mySlot(i) : NOWHERE;
    }
    if (scope.lc === "target" || scope.lc === "other") {
      const j = target.slotOf(lc);
      return j >= 0 ? targetSlot(j) : NOWHERE;
    }
    return null;
  };
}

/** Whether a tree holds a list or an ad literal (their elements compile as expressions of their own: no plan). */
function holdsComposite(n: Node): boolean {
  switch (n.k) {
    case "lit":
      return false;
    case "attr":
      return n.scope !== null && holdsComposite(n.scope);
    case "paren":
      return holdsComposite(n.a);
    case "op":
      return holdsComposite(n.a) || (n.b !== null && holdsComposite(n.b));
    case "cond":
      return holdsComposite(n.c) || holdsComposite(n.a) || holdsComposite(n.b);
    case "call":
      return n.args.some(holdsComposite);
    case "ad":
    case "list":
      return true;
  }
}

/**
 * One attribute evaluated in a match loop, as `AttrSite` (evaluate.ts) evaluates it,
 * through a plan once the same expression has come with the same pair of layouts
 * {@link PLAN_AFTER} times in a row. Keeps one plan (the last pair seen).
 */
export class PlanSite {
  private layout: AdLayout | null = null;
  private slot = -1;
  /** The expression, layouts and plan of the last evaluation, and how many in a row had them. */
  private expr: Compiled | null = null;
  private myLayout: AdLayout | null = null;
  private targetLayout: AdLayout | null = null;
  private plan: EvalFn | null = null;
  private streak = 0;

  constructor(readonly lc: string) {}

  /** Whether the last evaluation ran through a plan (for tests). */
  get planned(): boolean {
    return this.plan !== null;
  }

  /** Evaluates the attribute of `my` (UNDEFINED when missing) in a match with `target`. */
  eval(my: ClassAd, target: ClassAd, st: EvalState): Value {
    st.match(my, target);
    const layout = my.layout;
    if (layout !== this.layout) {
      this.slot = layout.slotOf(this.lc);
      this.layout = layout;
    }
    const i = this.slot;
    if (i < 0) return UNDEF;
    const s = my.slots[i];
    if (!(s instanceof Compiled)) {
      const v = evalAt(my, i, st);
      return st.failed ? ERROR : v;
    }
    const plan = this.planFor(s, my, target);
    const v = plan === null ? evalExpr(s, my, st) : evalExprAs(s, plan, my, st);
    return st.failed ? ERROR : v;
  }

  /** The plan for `c` between these two ads, or null (not yet, or never: a nested ad, a list). */
  private planFor(c: Compiled, my: ClassAd, target: ClassAd): EvalFn | null {
    if (c === this.expr && my.layout === this.myLayout && target.layout === this.targetLayout) {
      // the plan resolves references as from top-level ads (a nested ad's lookups go on to its parents)
      if (my.parent !== null || target.parent !== null) return null;
      if (this.plan !== null || this.streak >= PLAN_AFTER) return this.plan;
      if (++this.streak < PLAN_AFTER) return null;
      const node = c.made().node;
      this.plan = holdsComposite(node) ? null : buildResolved(node, resolverFor(my.layout, target.layout));
      return this.plan;
    }
    this.expr = c;
    this.myLayout = my.layout;
    this.targetLayout = target.layout;
    this.plan = null;
    this.streak = 1;
    return null;
  }
}
