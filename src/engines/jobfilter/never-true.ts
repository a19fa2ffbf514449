/**
 * Whether a filter predicate can never hold, proven from its expression: an
 * empty `|`, a negated empty expression, comparisons on one field that no
 * value satisfies together (the query language orders every value, so
 * `> 5` and `< 3` exclude each other whatever the type), a job id at or below
 * 0 (job ids are positive), and the first leaf evaluated being one Ganeti
 * cannot evaluate (which makes the whole expression false). The bounds found
 * are also the thresholds a semantic diff probes.
 */
import { parseExpression, type Expr, type FilterValue } from "./expression.js";
import type { FilterPredicate } from "./types.js";

/** Fields a `reason` predicate knows. */
const REASON_FIELDS = new Set(["source", "reason", "timestamp"]);

type Kind = FilterPredicate[0];

function alwaysTrue(e: Expr): boolean {
  return e.k === "empty" || (e.k === "and" && e.xs.every(alwaysTrue));
}

/** The first leaf Ganeti evaluates (left to right; `!` looks inside), or null for an empty expression. */
function firstLeaf(e: Expr): Expr | null {
  if (e.k === "and" || e.k === "or") return e.xs.length === 0 ? null : firstLeaf(e.xs[0]);
  if (e.k === "not") return firstLeaf(e.x);
  return e.k === "empty" ? null : e;
}

/** Why a leaf cannot be evaluated in a predicate of this kind (which makes the expression false), or null. */
function unusableLeaf(kind: Kind, leaf: Expr): string | null {
  if (leaf.k === "empty" || leaf.k === "and" || leaf.k === "or" || leaf.k === "not") return null;
  if (kind === "jobid") {
    if (leaf.k !== "cmp") return "a `jobid` predicate only evaluates comparisons";
    if (leaf.field !== "id") return `a \`jobid\` predicate has only the field \`id\`, not \`${leaf.field}\``;
    if (typeof leaf.value === "string" && leaf.value !== "watermark")
      return `a \`jobid\` predicate compares \`id\` with numbers or \`watermark\`, not \`"${leaf.value}"\``;
  }
  if (kind === "reason" && !REASON_FIELDS.has(leaf.field))
    return `a \`reason\` predicate has the fields \`source\`, \`reason\` and \`timestamp\`, not \`${leaf.field}\``;
  return null;
}

interface Bounds {
  lo: number | bigint | null;
  loOpen: boolean;
  hi: number | bigint | null;
  hiOpen: boolean;
}

function numeric(v: FilterValue, watermark: number | bigint): number | bigint | null {
  if (typeof v === "string") return v === "watermark" ? watermark : null;
  return v;
}

/** Why comparisons ANDed together exclude each other (per field), or null. */
function contradiction(kind: Kind, xs: readonly Expr[], watermark: number | bigint): string | null {
  const byField = new Map<string, Bounds>();
  for (const x of xs) {
    if (x.k !== "cmp") continue;
    const v = kind === "jobid" ? numeric(x.value, watermark) : typeof x.value === "string" ? null : x.value;
    if (v === null) continue;
    const b = byField.get(x.field) ?? { lo: null, loOpen: false, hi: null, hiOpen: false };
    if (x.op === ">" || x.op === ">=" || x.op === "==") {
      const open = x.op === ">";
      if (b.lo === null || v > b.lo || (v === b.lo && open)) Object.assign(b, { lo: v, loOpen: open });
    }
    if (x.op === "<" || x.op === "<=" || x.op === "==") {
      const open = x.op === "<";
      if (b.hi === null || v < b.hi || (v === b.hi && open)) Object.assign(b, { hi: v, hiOpen: open });
    }
    byField.set(x.field, b);
  }
  for (const [field, b] of byField) {
    // job ids are positive: `id` is at least 1
    if (
      kind === "jobid" &&
      field === "id" &&
      b.hi !== null &&
      (b.hi < 1 || (b.hi === 1 && b.hiOpen) || (typeof b.hi === "bigint" && b.hi < 1n))
    )
      return `job ids are positive, and this needs \`id\` ${b.hiOpen ? "<" : "<="} ${String(b.hi)}`;
    if (b.lo === null || b.hi === null) continue;
    if (b.lo > b.hi || (b.lo === b.hi && (b.loOpen || b.hiOpen)))
      return `no value of \`${field}\` is ${b.loOpen ? ">" : ">="} ${String(b.lo)} and ${b.hiOpen ? "<" : "<="} ${String(b.hi)} at once`;
  }
  return null;
}

/** Why an expression can never be true, or null when it may be. */
function never(kind: Kind, e: Expr, watermark: number | bigint, depth: number): string | null {
  if (depth > 60) return null;
  switch (e.k) {
    case "or":
      if (e.xs.length === 0) return "an empty `|` is false";
      for (const x of e.xs) if (never(kind, x, watermark, depth + 1) === null) return null;
      return "none of the alternatives of `|` can be true";
    case "and": {
      for (const x of e.xs) {
        const why = never(kind, x, watermark, depth + 1);
        if (why !== null) return why;
      }
      return contradiction(kind, e.xs, watermark);
    }
    case "not":
      return alwaysTrue(e.x) ? "it negates an expression that is always true" : null;
    case "cmp":
      return contradiction(kind, [e], watermark);
    default:
      return null;
  }
}

/**
 * Why a predicate can never hold for any job, or null when some job may
 * satisfy it; `watermark` is the rule's (what `watermark` stands for).
 */
export function neverTrue(predicate: FilterPredicate, watermark: number | bigint): string | null {
  const [kind, json] = predicate;
  const parsed = parseExpression(json);
  if (!parsed.ok) return null;
  const leaf = firstLeaf(parsed.value);
  const unusable = leaf === null ? null : unusableLeaf(kind, leaf);
  if (unusable !== null)
    return `${unusable}, and it is the first thing evaluated, so the whole expression is false`;
  return never(kind, parsed.value, watermark, 0);
}
