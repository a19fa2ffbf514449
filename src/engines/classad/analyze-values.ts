/**
 * What one operand of a compared conjunct gave over the machines: a single
 * value when it never changed (a constant, or an attribute of the job), or
 * the range of numbers and the most frequent values seen (an attribute of
 * the machines). Printed as the ClassAd library prints values.
 */
import { quoteString, unparseValue } from "./unparse.js";
import { Real, type Value } from "./values.js";

/** One operand of a comparison and the values it took over the machines the analysis considered. */
export interface OperandValues {
  expr: string;
  /** The value, when every machine gave the same one. */
  value?: string;
  /** The smallest and the largest number seen, when the values differ and some are numbers. */
  min?: number;
  max?: number;
  /** The values seen, most frequent first (at most {@link MAX_LISTED}), with how many machines gave each. */
  values?: { value: string; machines: number }[];
  /** How many distinct values were seen (counting those not listed). */
  distinct?: number;
}

/** Distinct values listed per operand. */
export const MAX_LISTED = 8;
/** Distinct values counted per operand; past this, values are counted as one more distinct each time (a bound on memory, not on correctness of the counts listed). */
const MAX_TRACKED = 256;
/** Characters of a printed value kept (a long string or list is cut, with `…`). */
const MAX_PRINTED = 120;

/** A value as the library prints it, cut to {@link MAX_PRINTED} characters. */
export function printedValue(v: Value): string {
  const t = unparseValue(v);
  return t.length <= MAX_PRINTED ? t : t.slice(0, MAX_PRINTED - 1) + "…";
}

/** The number an Integer or Real holds (within the safe range), else null: what the suggestions compare. */
export function plainNumber(v: Value): number | null {
  if (typeof v === "number") return v;
  if (v instanceof Real) return v.v;
  return null;
}

/** A number as ClassAd text: an Integer plainly, a Real with a fraction or exponent so it reads back as a Real. */
export function numberText(n: number, real: boolean): string {
  if (!real) return String(n);
  const t = String(n);
  return /[.eEN]/.test(t) ? t : t + ".0";
}

/** A suggested value as ClassAd text (numbers readable, strings quoted). */
export function valueText(v: Value): string {
  if (typeof v === "number") return String(v);
  if (v instanceof Real) return numberText(v.v, true);
  if (typeof v === "string") return quoteString(v);
  return printedValue(v);
}

/** Sums up the values an operand took, one per machine considered. */
export function summarize(expr: string, values: readonly Value[]): OperandValues {
  if (values.length === 0) return { expr };
  const counts = new Map<string, number>();
  let untracked = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    const n = plainNumber(v);
    if (n !== null && !Number.isNaN(n)) {
      if (n < min) min = n;
      if (n > max) max = n;
    }
    const t = printedValue(v);
    const seen = counts.get(t);
    if (seen !== undefined) counts.set(t, seen + 1);
    else if (counts.size < MAX_TRACKED) counts.set(t, 1);
    else untracked++;
  }
  if (counts.size === 1 && untracked === 0) return { expr, value: [...counts.keys()][0] };
  const ranked = [...counts]
    .map(([value, machines], i) => ({ value, machines, i }))
    .sort((x, y) => y.machines - x.machines || x.i - y.i);
  const out: OperandValues = { expr };
  if (min <= max) {
    out.min = min;
    out.max = max;
  }
  out.values = ranked.slice(0, MAX_LISTED).map(({ value, machines }) => ({ value, machines }));
  out.distinct = counts.size + untracked;
  return out;
}
