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
import { evalAt, evalExpr, evalTopAs } from "./scope.js";
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
function resolverFor(my: AdLayout, target: AdLayout | null): AttrResolver {
  const mySlot = (i: number): Leaf => ({ k: 1, i, v: UNDEF });
  const targetSlot = (i: number): Leaf => ({ k: 2, i, v: UNDEF });
  return (lc, scope, abs) => {
    if (abs || CONTEXT_NAMES.has(lc)) return null;
    if (scope === null) {
      const i = my.slotOf(lc);
      if (i >= 0) return mySlot(i);
      // MY alone (the root, no match): a name MY lacks that is no special name is UNDEFINED
      if (target === null) return NOWHERE;
      const j = target.slotOf(lc);
      return j >= 0 ? targetSlot(j) : NOWHERE;
    }
    if (scope.k !== "attr" || scope.scope !== null || scope.abs || my.slotOf(scope.lc) >= 0) return null;
    if (scope.lc === "my" || scope.lc === "self") {
      const i = my.slotOf(lc);
      return i >= 0 ? mySlot(i) : NOWHERE;
    }
    // TARGET.x with no match: left to the general lookup
    if (target === null) return null;
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

/** How many pairs of (expression, layouts) a site keeps a streak or a plan for. */
export const PLANS_KEPT = 4;

/** One expression met with one pair of layouts: its streak of evaluations and, once built, its plan. */
interface PlanEntry {
  expr: Compiled;
  my: AdLayout;
  /** null: MY evaluated alone (an *_ONLY policy expression). */
  target: AdLayout | null;
  plan: EvalFn | null;
  streak: number;
  /** Where the site's attribute sits in `my` (an attribute site's entry), or -1 (an `evalIn` entry). */
  slot: number;
}

/**
 * One attribute evaluated in a match loop, as `AttrSite` (evaluate.ts) evaluates it,
 * through a plan once the same expression has come with the same pair of layouts
 * {@link PLAN_AFTER} times while the site kept it. A site keeps the last
 * {@link PLANS_KEPT} such pairs, so machines of a few kinds in one request (or one
 * ad whose Requirements was read before the shared cache kept its text, met once
 * per request) do not drop the plan of the others: with one kept, a 100-machine
 * request whose first ad had an expression of its own rebuilt the others' plan
 * every time and ran their first 8 unplanned. A pair the site no longer keeps
 * starts its streak again, so building stays at most once per 8 evaluations.
 */
export class PlanSite {
  private layout: AdLayout | null = null;
  private slot = -1;
  /** The pair of the last evaluation, then the ones before it, most recent first. */
  private front: PlanEntry | null = null;
  private readonly kept: PlanEntry[] = [];

  constructor(readonly lc: string) {}

  /** Whether the last evaluation ran through a plan (for tests). */
  get planned(): boolean {
    return this.front !== null && this.front.plan !== null;
  }

  /** Evaluates the attribute of `my` (UNDEFINED when missing) in a match with `target`. */
  eval(my: ClassAd, target: ClassAd, st: EvalState): Value {
    st.match(my, target);
    const layout = my.layout;
    // the pair of the last evaluation, planned, met again (a match loop's every machine after the first few):
    // what the general path below finds, read from the entry (its slot, the expression there, the plan)
    const e = this.front;
    if (
      e !== null &&
      e.my === layout &&
      e.target === target.layout &&
      e.plan !== null &&
      my.parent === null &&
      target.parent === null
    ) {
      const s = my.at(e.slot);
      if (s === e.expr) {
        const v = evalTopAs(s, e.plan, my, st);
        return st.failed ? ERROR : v;
      }
    }
    if (layout !== this.layout) {
      this.slot = layout.slotOf(this.lc);
      this.layout = layout;
    }
    const i = this.slot;
    if (i < 0) return UNDEF;
    const s = my.at(i);
    if (!(s instanceof Compiled)) {
      const v = evalAt(my, i, st);
      return st.failed ? ERROR : v;
    }
    const plan = this.planFor(s, my, target, i);
    // st.match just reset the state: the plan runs as the first lookup (evalTopAs)
    const v = plan === null ? evalExpr(s, my, st) : evalTopAs(s, plan, my, st);
    return st.failed ? ERROR : v;
  }

  /**
   * Evaluates expression `c` held by no ad (a pool policy expression) with MY = `my`,
   * in a match with `target` when given, as `evalCompiled` (evaluate.ts) does: its
   * closure called at the top, no lookup's charges, through a plan for the layouts
   * once the same expression has come with them {@link PLAN_AFTER} times in a row.
   */
  evalIn(c: Compiled, my: ClassAd, target: ClassAd | null, st: EvalState): Value {
    if (target === null) st.plain(my);
    else st.match(my, target);
    const plan = this.planFor(c, my, target);
    const v = plan === null ? c.made().e(my, st) : plan(my, st);
    return st.failed ? ERROR : v;
  }

  /** The plan for `c` between these two ads (or `my` alone), or null (not yet, or never: a nested ad, a list). */
  private planFor(c: Compiled, my: ClassAd, target: ClassAd | null, slot = -1): EvalFn | null {
    const ml = my.layout;
    const tl = target === null ? null : target.layout;
    let e = this.front;
    if (e === null || e.expr !== c || e.my !== ml || e.target !== tl) {
      e = this.recall(c, ml, tl, slot);
      if (e === null) return null;
    }
    // the plan resolves references as from top-level ads (a nested ad's lookups go on to its parents)
    if (my.parent !== null || (target !== null && target.parent !== null)) return null;
    if (e.plan !== null || e.streak >= PLAN_AFTER) return e.plan;
    if (++e.streak < PLAN_AFTER) return null;
    const node = c.made().node;
    e.plan = holdsComposite(node) ? null : buildResolved(node, resolverFor(ml, tl));
    return e.plan;
  }

  /**
   * Brings the kept entry of this pair to the front and returns it, or, when none is
   * kept, puts a new one there (its first evaluation: the streak at 1) and returns null.
   */
  private recall(c: Compiled, ml: AdLayout, tl: AdLayout | null, slot: number): PlanEntry | null {
    const kept = this.kept;
    const previous = this.front;
    for (let k = 0; k < kept.length; k++) {
      const e = kept[k];
      if (e.expr === c && e.my === ml && e.target === tl) {
        // the previous front takes its place (the order among the others does not matter for what is kept)
        kept[k] = previous as PlanEntry;
        this.front = e;
        return e;
      }
    }
    let fresh: PlanEntry;
    if (previous !== null && kept.length >= PLANS_KEPT - 1) {
      // the oldest kept entry is dropped: its object is reused for the new pair
      fresh = kept.pop() as PlanEntry;
      fresh.expr = c;
      fresh.my = ml;
      fresh.target = tl;
      fresh.plan = null;
      fresh.streak = 1;
      fresh.slot = slot;
    } else fresh = { expr: c, my: ml, target: tl, plan: null, streak: 1, slot };
    if (previous !== null) kept.unshift(previous);
    this.front = fresh;
    return null;
  }
}
