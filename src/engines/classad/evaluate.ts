/**
 * Evaluation entry points: an expression or an ad's attribute with MY alone
 * or in a match with TARGET, the result reported with its exact type and its
 * unparsed text.
 */
import { emptyAd, type AdLayout, type ClassAd } from "./classad.js";
import { readAd } from "./ad-input.js";
import { compile } from "./compile.js";
import type { Compiled } from "./node.js";
import { lineCol, parseExpr } from "./parser.js";
import { evalAt } from "./scope.js";
import { EvalState, type EvalContext } from "./state.js";
import { unparseValue } from "./unparse.js";
import { ERROR, UNDEF, typeName, type Value } from "./values.js";

const EMPTY = emptyAd();

/** Evaluates a compiled expression living in `my`, in a match with `target` when given. */
export function evalCompiled(c: Compiled, my: ClassAd, target: ClassAd | null, st: EvalState): Value {
  if (target === null) st.plain(my);
  else st.match(my, target);
  const v = c.ev(my, st);
  return st.failed ? ERROR : v;
}

/** Evaluates attribute `lc` (lower case) of `my`; UNDEFINED when missing. */
export function evalAttr(my: ClassAd, lc: string, target: ClassAd | null, st: EvalState): Value {
  if (target === null) st.plain(my);
  else st.match(my, target);
  const i = my.layout.slotOf(lc);
  if (i < 0) return UNDEF;
  const v = evalAt(my, i, st);
  return st.failed ? ERROR : v;
}

/**
 * One attribute evaluated in many ads, as {@link evalAttr} does, its slot looked up
 * once per layout (ads of one kind share theirs): a match's loop over 100,000
 * machines looks `requirements` up in one map, not 100,000 times.
 */
export class AttrSite {
  private layout: AdLayout | null = null;
  private slot = -1;

  constructor(readonly lc: string) {}

  /** Evaluates the attribute of `my` (UNDEFINED when missing), in a match with `target` when given. */
  eval(my: ClassAd, target: ClassAd | null, st: EvalState): Value {
    if (target === null) st.plain(my);
    else st.match(my, target);
    const layout = my.layout;
    if (layout !== this.layout) {
      this.slot = layout.slotOf(this.lc);
      this.layout = layout;
    }
    const i = this.slot;
    if (i < 0) return UNDEF;
    const v = evalAt(my, i, st);
    return st.failed ? ERROR : v;
  }
}

/** A typed, printed result as the CLI and clients see it. */
export interface PrintedValue {
  readonly type: string;
  readonly value: string;
}

/** The type name and unparsed text of a value. */
export function printValue(v: Value): PrintedValue {
  return { type: typeName(v), value: unparseValue(v) };
}

/** Evaluates `{expr, my?, target?}` (ads as text or JSON); a parse failure is reported as `parse_error`. */
export function evaluateRequest(
  req: { expr: string; my?: unknown; target?: unknown },
  ctx: EvalContext,
): PrintedValue & { cacheable: boolean } {
  const p = parseExpr(req.expr, false, true);
  if (!p.ok)
    return { type: "parse_error", value: `${p.message} at ${lineCol(req.expr, p.offset)}`, cacheable: true };
  let my = EMPTY;
  let target: ClassAd | null = null;
  if (req.my !== undefined) {
    const r = readAd(req.my);
    if (!r.ok)
      return { type: "parse_error", value: `my: ${r.error.message} at ${r.error.at}`, cacheable: true };
    my = r.ad;
  }
  if (req.target !== undefined) {
    const r = readAd(req.target);
    if (!r.ok)
      return { type: "parse_error", value: `target: ${r.error.message} at ${r.error.at}`, cacheable: true };
    target = r.ad;
  }
  if (my === EMPTY) my = emptyAd();
  const st = new EvalState(ctx);
  const v = evalCompiled(compile(p.node), my, target, st);
  return { ...printValue(v), cacheable: st.used === 0 };
}
