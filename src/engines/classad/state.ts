/**
 * Per-evaluation state: the scope roots, the match pair, the clock and
 * random source handed in by the caller, bounds on work, and the flags that
 * record whether the clock or randomness was consulted (for caching).
 */
import { Budget, currentBudget } from "../common/budget.js";
import { keepShape } from "../common/shapes.js";
import type { ClassAd } from "./classad.js";
import type { Compiled } from "./node.js";

/** Bit set in `used` when time was read. */
export const USED_TIME = 1;
/** Bit set in `used` when randomness was drawn. */
export const USED_RANDOM = 2;

export const MAX_DEPTH = 200;
export const MAX_STEPS = 200_000;
/**
 * Expression levels one evaluation may have in progress: the heights of the
 * trees being evaluated inside one another (attribute lookups, eval(), the
 * per-context functions). Evaluating a tree stacks a call per level, so this
 * bounds the JavaScript stack (200 lookups of 390-level expressions would
 * overflow it); past it the lookup is ERROR.
 */
export const MAX_LEVELS = 4_000;

/** What an evaluation needs from outside: the clock (ms) and a random source. */
export interface EvalContext {
  readonly now: number;
  readonly random: () => number;
}

/** Mutable state of one evaluation (or of one match, reused for every pair). */
export class EvalState {
  /** Root of the scope chain for `.name` and ROOT; null in a match (the match ad holds none of MY's names). */
  root: ClassAd | null = null;
  /** In a match: the two ads (left = job side, right = machine side). */
  left: ClassAd | null = null;
  right: ClassAd | null = null;
  /**
   * Attribute expressions being evaluated, for cycle detection: the first {@link sp} entries (the
   * entries past it are stale, kept so the next lookup stores in place). Not push and pop: V8 did not
   * inline `Array.prototype.push` here, and its builtin cost about 115 instructions a call, two calls
   * per lookup: 12% of a 100-machine match decide (docs/performance.md, wt/decide7).
   */
  readonly stack: Compiled[] = [];
  /** The ad each stacked expression is evaluated in (a cycle is the same expression in the same ad). */
  readonly holders: ClassAd[] = [];
  /** How many entries of {@link stack} and {@link holders} are in progress. */
  sp = 0;
  depth = 0;
  /** Expression levels in progress (MAX_LEVELS). */
  levels = 0;
  steps = 0;
  used = 0;
  /** Work units charged since the last reset, and how many the decision's budget had left then. */
  work = 0;
  /** The decision's work budget: the one current when this state was made. */
  private readonly budget: Budget = currentBudget();
  /**
   * Initialised with a number, not declared bare and set in the constructor: a bare
   * class field starts as `undefined`, and V8 then keeps the field as a tagged
   * value, so storing an unbounded budget's Infinity (or any non-small integer)
   * on every reset allocated a heap number: 16 bytes per evaluation, about 5 KB
   * per 100-machine decide outside a budget (docs/performance.md, wt/decide6).
   */
  workLimit: number = this.budget.remaining();
  /**
   * Enters an expression of `height` levels (nested inside those in
   * progress): false when that passes MAX_LEVELS or MAX_DEPTH. The caller
   * leaves it with {@link leave}.
   */
  enter(height: number): boolean {
    if (this.depth >= MAX_DEPTH || this.levels + height > MAX_LEVELS) return false;
    this.depth++;
    this.levels += height;
    return true;
  }

  /** Leaves an expression entered with {@link enter}. */
  leave(height: number): void {
    this.depth--;
    this.levels -= height;
  }

  /** Set by random() with a non-positive bound: the whole evaluation fails. */
  failed = false;
  /**
   * evalInEachContext's borrowed fallback: while an expression is evaluated
   * in the nested ad `altOf`, its unresolved unscoped names fall back to
   * `alt` (the other ad of the match), as HTCondor sets the nested ad's
   * alternate scope by hand.
   */
  altOf: ClassAd | null = null;
  alt: ClassAd | null = null;

  constructor(readonly ctx: EvalContext) {}

  /**
   * Charges `n` work units; false once the decision's budget is spent. The
   * units are counted here and handed to the budget between evaluations, so
   * the hot path touches nothing but this state.
   */
  spend(n: number): boolean {
    return (this.work += n) <= this.workLimit;
  }

  /** Hands the units charged so far to the decision's budget (done by every reset, and once at the end of a decision). */
  flushWork(): void {
    this.budget.used += this.work;
    this.work = 0;
    this.workLimit = this.budget.remaining();
  }

  /** Prepares for evaluating with MY = my and no target. */
  plain(my: ClassAd): this {
    this.root = my;
    this.left = null;
    this.right = null;
    this.reset();
    return this;
  }

  /** Prepares for evaluating inside the match of `left` (job) and `right` (machine). */
  match(left: ClassAd, right: ClassAd): this {
    this.root = null;
    this.left = left;
    this.right = right;
    this.reset();
    return this;
  }

  /** Clears the per-evaluation counters (keeps the `used` flags). */
  reset(): void {
    // an evaluation a throw abandoned leaves its expressions counted in progress (scope.ts): uncounted here
    if (this.sp !== 0) {
      const stack = this.stack;
      for (let i = 0; i < this.sp; i++) stack[i].active--;
      this.sp = 0;
    }
    this.depth = 0;
    this.levels = 0;
    this.steps = 0;
    if (this.work !== 0) this.flushWork();
    this.failed = false;
    this.altOf = null;
    this.alt = null;
  }

  /** The other ad of the match when `top` is one of the pair, else null. */
  otherOf(top: ClassAd): ClassAd | null {
    if (top === this.left) return this.right;
    if (top === this.right) return this.left;
    return null;
  }

  /** Where an unscoped name not found from `cur` falls back to: the other ad of the match, or a borrowed alternate. */
  fallbackOf(cur: ClassAd): ClassAd | null {
    if (cur === this.left) return this.right;
    if (cur === this.right) return this.left;
    return cur === this.altOf ? this.alt : null;
  }

  /** Seconds since the epoch (float). */
  nowSeconds(): number {
    this.used |= USED_TIME;
    return this.ctx.now / 1000;
  }
}

/**
 * An evaluation state kept alive so that its map, and the optimized code that checks it, outlive each
 * decision (common/shapes.ts): made inside a decision's budget, with a context of the route's shape, as
 * the route makes them (its work limit a small integer).
 */
const routeContext = { now: 0, explain: false, random: Math.random };
keepShape(new Budget(1).run(() => new EvalState(routeContext)));
