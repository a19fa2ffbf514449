/**
 * Which running jobs a rule could possibly match, proven from its predicates
 * without reading a job: a set of job id ranges (from `jobid` predicates) and
 * a set of opcode ids (from `opcode` predicates that compare `OP_ID` with a
 * string). A rule change reads only the running jobs inside the reach of the
 * rules it added (the stores index running jobs by id and by `OP_ID`), then
 * tests each of them exactly; the reach only has to hold every job the rule
 * matches, never to match the rule itself.
 *
 * The analysis keeps, for each sub-expression, a superset of the inputs where
 * it evaluates to TRUE and one where it evaluates to FALSE (an evaluation
 * error is neither): `&` is TRUE only where every operand is, FALSE at most
 * where one is; `|` the other way round; `!` swaps the two.
 */
import type { Expr, FilterValue } from "./expression.js";
import type { JsonObject } from "../common/json.js";
import type { Job } from "./types.js";

/** Closed ranges [lo, hi] of job ids, ascending and disjoint; ±Infinity for an open end. */
export type IdRanges = readonly (readonly [number, number])[];

/** The jobs a rule can match: ids within `ids`, and some opcode whose `OP_ID` is in `ops`; null is "any". */
export interface Reach {
  readonly ids: IdRanges | null;
  readonly ops: ReadonlySet<string> | null;
}

/** The reach of a rule nothing is known about. */
export const ANY: Reach = { ids: null, ops: null };
/** The reach of a rule that matches no job. */
export const NONE: Reach = { ids: [], ops: null };

const ALL_IDS: IdRanges = [[-Infinity, Infinity]];

function union(a: IdRanges, b: IdRanges): IdRanges {
  const xs = [...a, ...b].sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [lo, hi] of xs) {
    const last = out[out.length - 1];
    if (last !== undefined && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

function intersect(a: IdRanges, b: IdRanges): IdRanges {
  const out: [number, number][] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i][0], b[j][0]);
    const hi = Math.min(a[i][1], b[j][1]);
    if (lo <= hi) out.push([lo, hi]);
    if (a[i][1] < b[j][1]) i++;
    else j++;
  }
  return out;
}

/** A bound as a number no greater (`down`) or no less than the exact value (a bigint past 2^53 rounds either way). */
function bound(v: number | bigint, down: boolean): number {
  if (typeof v === "number") return v;
  const n = Number(v);
  if (Number.isSafeInteger(n)) return n;
  const slack = Math.abs(n) * 2 ** -50;
  return down ? n - slack : n + slack;
}

/** Supersets of where an expression is TRUE and where it is FALSE. */
interface Sides<T> {
  t: T;
  f: T;
}

/** The id ranges of a `jobid` expression (see the file's comment); leaves other than comparisons of `id` are errors. */
function idSides(e: Expr, watermark: number | bigint): Sides<IdRanges> {
  switch (e.k) {
    case "empty":
      return { t: ALL_IDS, f: [] };
    case "and":
    case "or": {
      const parts = e.xs.map((x) => idSides(x, watermark));
      const all = (pick: (s: Sides<IdRanges>) => IdRanges, join: typeof union, unit: IdRanges) =>
        parts.reduce((acc, s) => join(acc, pick(s)), unit);
      return e.k === "and"
        ? { t: all((s) => s.t, intersect, ALL_IDS), f: all((s) => s.f, union, []) }
        : { t: all((s) => s.t, union, []), f: all((s) => s.f, intersect, ALL_IDS) };
    }
    case "not": {
      const s = idSides(e.x, watermark);
      return { t: s.f, f: s.t };
    }
    case "cmp": {
      if (e.field !== "id") return { t: [], f: [] };
      const v: FilterValue = e.value;
      if (typeof v === "string" && v !== "watermark") return { t: [], f: [] };
      const b = typeof v === "string" ? watermark : v;
      // closed at the bound on both sides: a superset whatever the comparison's strictness
      const below: IdRanges = [[-Infinity, bound(b, false)]];
      const above: IdRanges = [[bound(b, true), Infinity]];
      const at: IdRanges = [[bound(b, true), bound(b, false)]];
      if (e.op === "==") return { t: at, f: ALL_IDS };
      return e.op === "<" || e.op === "<=" ? { t: below, f: above } : { t: above, f: below };
    }
    default:
      return { t: [], f: [] };
  }
}

/** Opcode ids as a set, null for "any opcode". */
type Ops = ReadonlySet<string> | null;

function opsUnion(a: Ops, b: Ops): Ops {
  return a === null || b === null ? null : new Set([...a, ...b]);
}

function opsIntersect(a: Ops, b: Ops): Ops {
  if (a === null) return b;
  if (b === null) return a;
  return new Set([...a].filter((x) => b.has(x)));
}

/** The `OP_ID` values an opcode expression can be TRUE (and FALSE) for, on one opcode. */
function opSides(e: Expr): Sides<Ops> {
  switch (e.k) {
    case "and":
    case "or": {
      const parts = e.xs.map(opSides);
      const all = (pick: (s: Sides<Ops>) => Ops, join: (a: Ops, b: Ops) => Ops, unit: Ops) =>
        parts.reduce((acc, s) => join(acc, pick(s)), unit);
      const none: Ops = new Set<string>();
      return e.k === "and"
        ? { t: all((s) => s.t, opsIntersect, null), f: all((s) => s.f, opsUnion, none) }
        : { t: all((s) => s.t, opsUnion, none), f: all((s) => s.f, opsIntersect, null) };
    }
    case "not": {
      const s = opSides(e.x);
      return { t: s.f, f: s.t };
    }
    case "cmp":
      if (e.field === "OP_ID" && e.op === "==" && typeof e.value === "string")
        return { t: new Set([e.value]), f: null };
      return { t: null, f: null };
    default:
      return { t: null, f: null };
  }
}

/**
 * The reach of one parsed predicate (null `expr`: it did not parse, so it is
 * never true). `reason` predicates read the trail, which no store indexes.
 */
export function predicateReach(
  kind: "jobid" | "opcode" | "reason",
  expr: Expr | null,
  watermark: number | bigint,
): Reach {
  if (expr === null) return NONE;
  if (kind === "jobid") return { ids: idSides(expr, watermark).t, ops: null };
  if (kind === "opcode") return { ids: null, ops: opSides(expr).t };
  return ANY;
}

/** The reach of a rule whose predicates all must hold: what every predicate's reach allows. */
export function allOf(reaches: readonly Reach[]): Reach {
  let ids: IdRanges | null = null;
  let ops: Ops = null;
  for (const r of reaches) {
    if (r.ids !== null) ids = ids === null ? r.ids : intersect(ids, r.ids);
    if (r.ops !== null) ops = opsIntersect(ops, r.ops);
  }
  return { ids, ops };
}

/** Whether the reach holds no job at all. */
export function isEmpty(r: Reach): boolean {
  return (r.ids !== null && r.ids.length === 0) || (r.ops !== null && r.ops.size === 0);
}

/**
 * The jobs any of several rules can reach, as ids and opcode ids to read
 * (a job is read when its id is in `ids` or one of its `OP_ID`s is in
 * `ops`), or null when one of them can reach any job.
 */
export function anyOf(reaches: readonly Reach[]): { ids: IdRanges; ops: ReadonlySet<string> } | null {
  let ids: IdRanges = [];
  const ops = new Set<string>();
  for (const r of reaches) {
    if (isEmpty(r)) continue;
    if (r.ids !== null) ids = union(ids, r.ids);
    else if (r.ops !== null) for (const o of r.ops) ops.add(o);
    else return null;
  }
  return { ids, ops };
}

/** Whether `id` lies in one of the ranges. */
export function inRanges(ranges: IdRanges, id: number): boolean {
  for (const [lo, hi] of ranges) if (id >= lo && id <= hi) return true;
  return false;
}

/** The distinct string `OP_ID`s of a job's opcodes: what the stores index a running job by. */
export function opIdsOf(job: Job): string[] {
  const out: string[] = [];
  for (const op of job.opcodes as JsonObject[]) {
    const v = Object.hasOwn(op, "OP_ID") ? op.OP_ID : undefined;
    if (typeof v === "string" && !out.includes(v)) out.push(v);
  }
  return out;
}
