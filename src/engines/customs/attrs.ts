/**
 * Attribute requests in disjunctive normal form: the pseudo-attribute `OR`
 * separates alternatives, every item of an alternative must hold, `!x` holds
 * when the host lacks `x`. Compiled once per request into index sets.
 */

/** One conjunction: attributes the host must have and must not have. */
export interface AttrTerm {
  readonly has: readonly string[];
  readonly lacks: readonly string[];
}

/** A compiled attribute expression; an empty list of terms always holds. */
export type AttrExpr = readonly AttrTerm[];

/** Splits a request's attribute list at `OR` into conjunctions of positive and negated items. */
export function compileAttrs(items: readonly string[] | undefined): AttrExpr {
  if (!items || items.length === 0) return [];
  const terms: AttrTerm[] = [];
  let has: string[] = [];
  let lacks: string[] = [];
  for (const item of items) {
    if (item === "OR") {
      terms.push({ has, lacks });
      has = [];
      lacks = [];
    } else if (item.startsWith("!")) lacks.push(item.slice(1));
    else has.push(item);
  }
  terms.push({ has, lacks });
  return terms;
}

/** Whether a host's attribute set satisfies the expression. */
export function attrsHold(expr: AttrExpr, hostAttrs: ReadonlySet<string>): boolean {
  if (expr.length === 0) return true;
  outer: for (const term of expr) {
    for (const a of term.has) if (!hostAttrs.has(a)) continue outer;
    for (const a of term.lacks) if (hostAttrs.has(a)) continue outer;
    return true;
  }
  return false;
}
