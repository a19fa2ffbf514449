/**
 * Which running jobs a rule could possibly match, proven from its predicates
 * without reading a job: a set of job id ranges (from `jobid` predicates), or
 * a set of values of one indexed fact — the opcodes' `OP_ID`s (from `opcode`
 * predicates that name `OP_ID`: `==`, `!=`, regexes, comparisons and their
 * combinations), the reason entries' reasons or sources (from `reason`
 * predicates), or the values of another opcode field (from `==`, `=[]` and
 * `=~` on it, and their `&`/`|` combinations: `instance_name == "x"`, `tags
 * =[] "t"`, `instance_name =~ "^db"`). A rule change reads only the running jobs inside the reach of
 * the rules it added (the stores index running jobs by id and by each fact),
 * then tests each of them exactly; the reach only has to hold every job the
 * rule matches, never to match the rule itself. A value set is either finite
 * (`OP_ID == "X"`: the store looks the values up) or a test the store runs
 * once on each distinct value it holds (`OP_ID != "X"`, `reason =~ "^x"`),
 * each leaf tested by the engine's own evaluator on that one value.
 *
 * The analysis keeps, for each sub-expression, a superset of the inputs where
 * it evaluates to TRUE and one where it evaluates to FALSE (an evaluation
 * error is neither): `&` is TRUE only where every operand is, FALSE at most
 * where one is; `|` the other way round; `!` swaps the two.
 */
import type { Expr, FilterValue } from "./expression.js";
import { fieldsOf } from "./expression.js";
import {
  COMMON_PARAMS,
  compileOpcode,
  compileReason,
  isReasonEntry,
  lookup,
  newFieldTable,
  type PreparedJob,
} from "./evaluate.js";
import type { JsonObject } from "../common/json.js";
import { opcodeRegexLeaf } from "./pattern-leaf.js";
import { LazyLinear } from "../common/regex/lazy.js";
import type { Job } from "./types.js";
import { TRUE } from "./types.js";

/** Closed ranges [lo, hi] of job ids, ascending and disjoint; ±Infinity for an open end. */
export type IdRanges = readonly (readonly [number, number])[];

/** What a job must have for a rule to match it: a fact of `kind` whose value is in `values`. */
export interface FactReach {
  readonly kind: FactKind;
  readonly values: ValueSet;
}

/**
 * The jobs a rule can match: ids within `ids` (null: any), and, for each of
 * `facts`, some fact in it — each alone holds every job the rule matches, so
 * a store reads through whichever holds the fewest jobs (none: any job).
 */
export interface Reach {
  readonly ids: IdRanges | null;
  readonly facts: readonly FactReach[];
}

/** The reach of a rule nothing is known about. */
export const ANY: Reach = { ids: null, facts: [] };
/** The reach of a rule that matches no job. */
export const NONE: Reach = { ids: [], facts: [] };

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
  return sides(e, (x) => idLeaf(x, watermark), ALL_IDS, [], union, intersect);
}

/** Where one comparison of `id` is TRUE and where FALSE, closed at the bound on both sides (a superset whatever its strictness). */
function idLeaf(e: LeafExpr, watermark: number | bigint): Sides<IdRanges> {
  if (e.k !== "cmp" || e.field !== "id") return { t: [], f: [] };
  const v: FilterValue = e.value;
  if (typeof v === "string" && v !== "watermark") return { t: [], f: [] };
  const b = typeof v === "string" ? watermark : v;
  const below: IdRanges = [[-Infinity, bound(b, false)]];
  const above: IdRanges = [[bound(b, true), Infinity]];
  const at: IdRanges = [[bound(b, true), bound(b, false)]];
  if (e.op === "==") return { t: at, f: ALL_IDS };
  return e.op === "<" || e.op === "<=" ? { t: below, f: above } : { t: above, f: below };
}

/**
 * The kinds of fact the stores index a running job by: its opcodes' `OP_ID`s,
 * its reason entries' sources and reasons, and its opcodes' values at a field
 * path (`field:<path>`, for the paths a store indexes; see `valueKey`).
 */
export type FactKind = "op" | "source" | "reason" | `field:${string}`;

/** The fact kind of an opcode field path's values. */
export function fieldKind(path: string): FactKind {
  return `field:${path}`;
}

/** The path of a `field:<path>` fact kind, or undefined for the other kinds. */
export function pathOf(kind: FactKind): string | undefined {
  return kind.startsWith("field:") ? kind.slice(6) : undefined;
}

/**
 * The index key of an opcode field's value: equal keys exactly when the
 * values are `===` (what the evaluator's `==` tests), so a string, a number
 * and a bigint each carry their type; other values get none (no literal
 * equals them). A list's elements are keyed as `l` and the element's key
 * (what `=[]` tests).
 */
export function valueKey(v: unknown): string | undefined {
  switch (typeof v) {
    case "string":
      return `s${v}`;
    case "number":
      return `n${v}`;
    case "bigint":
      return `b${v}`;
    default:
      return undefined;
  }
}

/**
 * A set of fact values: exactly `finite` when that is not null (a store
 * looks each up), else the values `has` accepts among those a store holds
 * (it tests each distinct value once); `all` when it accepts every value.
 */
export interface ValueSet {
  readonly finite: ReadonlySet<string> | null;
  readonly all: boolean;
  has(v: string): boolean;
  /** For a field path's values, `has` asked of a value itself rather than its key (`inList`: an element of the list at the path), where that is cheaper. */
  readonly raw?: (v: unknown, inList: boolean) => boolean;
  /**
   * For the keys of the string values one `=~` leaf holds on (see
   * `stringsMatching`), its pattern: the set depends on nothing else, so a
   * store may keep which of its values it holds (`stringsMatchingPattern`
   * builds the same set again from it).
   */
  readonly regex?: string;
}

const ALL_VALUES: ValueSet = { finite: null, all: true, has: () => true };

function finite(xs: Iterable<string>): ValueSet {
  const s = new Set(xs);
  return { finite: s, all: false, has: (v) => s.has(v) };
}

function tested(has: (v: string) => boolean): ValueSet {
  return { finite: null, all: false, has };
}

function vUnion(a: ValueSet, b: ValueSet): ValueSet {
  if (a.all || b.all) return ALL_VALUES;
  if (a.finite !== null && b.finite !== null) return finite([...a.finite, ...b.finite]);
  return tested((v) => a.has(v) || b.has(v));
}

function vIntersect(a: ValueSet, b: ValueSet): ValueSet {
  if (a.all) return b;
  if (b.all) return a;
  if (a.finite !== null) return finite([...a.finite].filter((v) => b.has(v)));
  if (b.finite !== null) return finite([...b.finite].filter((v) => a.has(v)));
  return tested((v) => a.has(v) && b.has(v));
}

/** A value standing for every `OP_ID` that is not a string (each such job is indexed under it); any value test accepts it. */
export const OTHER_OP = "\u0000other";

/** `e`'s sides, each leaf's worked out by `leaf` and combined as the file's comment says; `unit` and the operations are the value domain's. */
function sides<T>(
  e: Expr,
  leaf: (e: LeafExpr) => Sides<T>,
  all: T,
  none: T,
  join: (a: T, b: T) => T,
  meet: (a: T, b: T) => T,
): Sides<T> {
  switch (e.k) {
    case "empty":
      return { t: all, f: none };
    case "and":
    case "or": {
      const parts = e.xs.map((x) => sides(x, leaf, all, none, join, meet));
      let t = e.k === "and" ? all : none;
      let f = e.k === "and" ? none : all;
      for (const s of parts) {
        t = e.k === "and" ? meet(t, s.t) : join(t, s.t);
        f = e.k === "and" ? join(f, s.f) : meet(f, s.f);
      }
      return { t, f };
    }
    case "not": {
      const s = sides(e.x, leaf, all, none, join, meet);
      return { t: s.f, f: s.t };
    }
    default:
      return leaf(e);
  }
}

type LeafExpr = Exclude<Expr, { k: "empty" | "and" | "or" | "not" }>;

const NO_VALUES: ValueSet = finite([]);

/** Where one leaf on a string value is TRUE and where FALSE, tested on each value through the engine's own evaluator. */
function valueSides(e: LeafExpr, on: (x: Expr) => (v: string) => boolean): Sides<ValueSet> {
  if (e.k === "cmp" && e.op === "==" && typeof e.value === "string") {
    const value = e.value;
    return { t: finite([value]), f: tested((v) => v !== value) };
  }
  return { t: tested(on(e)), f: tested(on({ k: "not", x: e })) };
}

/** An opcode expression's `OP_ID` sides (leaves on other fields say nothing). */
function opSides(e: Expr): Sides<ValueSet> {
  const on = (x: Expr) => {
    const test = compileOpcode(x, newFieldTable());
    return (v: string) => test({ id: 0, opcodes: [{ OP_ID: v }], views: [[]], reasons: [] });
  };
  const leaf = (x: LeafExpr): Sides<ValueSet> =>
    x.field === "OP_ID" ? valueSides(x, on) : { t: ALL_VALUES, f: ALL_VALUES };
  return sides(e, leaf, ALL_VALUES, NO_VALUES, vUnion, vIntersect);
}

/** Reason entries as a rectangle: a source in `src` and a reason in `why` (the timestamp is not indexed). */
interface Rect {
  readonly src: ValueSet;
  readonly why: ValueSet;
}

const ALL_ENTRIES: Rect = { src: ALL_VALUES, why: ALL_VALUES };
const NO_ENTRIES: Rect = { src: NO_VALUES, why: NO_VALUES };
const rUnion = (a: Rect, b: Rect): Rect => ({ src: vUnion(a.src, b.src), why: vUnion(a.why, b.why) });
const rIntersect = (a: Rect, b: Rect): Rect => ({
  src: vIntersect(a.src, b.src),
  why: vIntersect(a.why, b.why),
});

/** A reason expression's sides over one entry's source and reason. */
function reasonSides(e: Expr): Sides<Rect> {
  const leaf = (x: LeafExpr): Sides<Rect> => {
    if (x.field === "timestamp") return { t: ALL_ENTRIES, f: ALL_ENTRIES };
    if (x.field !== "source" && x.field !== "reason") return { t: NO_ENTRIES, f: NO_ENTRIES };
    const source = x.field === "source";
    const on = (y: Expr) => {
      const test = compileReason(y);
      return (v: string) =>
        test({ id: 0, opcodes: [], views: [], reasons: [source ? [v, "", 0] : ["", v, 0]] });
    };
    const s = valueSides(x, on);
    return source
      ? { t: { src: s.t, why: ALL_VALUES }, f: { src: s.f, why: ALL_VALUES } }
      : { t: { src: ALL_VALUES, why: s.t }, f: { src: ALL_VALUES, why: s.f } };
  };
  return sides(e, leaf, ALL_ENTRIES, NO_ENTRIES, rUnion, rIntersect);
}

/**
 * The keys of a field path's values (see `valueKey`) an opcode must have for
 * an expression to be TRUE on it, from its `==` and `=[]` leaves on `path`.
 * An opcode may have several keys (a list's elements), so `&` keeps one of
 * its operands' sets, never their intersection: an opcode with the keys of
 * both operands is in either.
 */
function fieldSides(e: Expr, path: string): Sides<ValueSet> {
  const leaf = (x: LeafExpr): Sides<ValueSet> => {
    if (x.field === path && x.k === "cmp" && x.op === "==")
      return { t: finite([valueKey(x.value)!]), f: ALL_VALUES };
    if (x.field === path && x.k === "contains")
      return { t: finite([`l${valueKey(x.value)!}`]), f: ALL_VALUES };
    if (x.field === path && x.k === "regex") return { t: stringsMatching(x), f: ALL_VALUES };
    return { t: ALL_VALUES, f: ALL_VALUES };
  };
  // a finite set over a test, the smaller finite one over the other
  const pick = (a: ValueSet, b: ValueSet) =>
    a.all
      ? b
      : b.all
        ? a
        : a.finite === null
          ? b
          : b.finite === null || a.finite.size <= b.finite.size
            ? a
            : b;
  return sides(e, leaf, ALL_VALUES, NO_VALUES, vUnion, pick);
}

/**
 * The keys of the string values an `=~` leaf on an opcode field holds on (a
 * regex on any other value, a list included, is an evaluation error), tested
 * once per distinct value by the engine's own regex leaf; `raw` tests an
 * opcode's value itself (see reach-filter.ts).
 */
function stringsMatching(x: Pick<Extract<LeafExpr, { k: "regex" }>, "source" | "re">): ValueSet {
  const test = opcodeRegexLeaf(x.source, x.re, 0);
  const slot: unknown[] = [undefined];
  const raw = (v: unknown, inList: boolean) => {
    if (inList || typeof v !== "string") return false;
    slot[0] = v;
    return test(slot) === TRUE;
  };
  return {
    finite: null,
    all: false,
    has: (k) => k.startsWith("s") && raw(k.slice(1), false),
    raw,
    regex: x.source,
  };
}

/** The value set of an `=~` leaf on an opcode field with this pattern (a pattern its rule's validation accepted), as `stringsMatching` makes it. */
export function stringsMatchingPattern(source: string): ValueSet {
  return stringsMatching({ source, re: new LazyLinear(source, "pcre") });
}

/** A value set of `OP_ID`s that, unless finite, also accepts the stand-in for non-string ones. */
function withOther(vs: ValueSet): ValueSet {
  return vs.finite !== null ? vs : tested((v) => v === OTHER_OP || vs.has(v));
}

/**
 * The reach of one parsed predicate (null `expr`: it did not parse, so it is
 * never true). An opcode predicate reaches by `OP_ID` only when it names
 * `OP_ID` (an opcode without every field the expression names is never
 * tested), and by each other field path whose values its `==`, `=[]` and
 * `=~` leaves bound (a regex by a test of the string values, which a store
 * reads through only when some rule's `==` or `=[]` has it index the path);
 * a reason predicate by the entries' reasons or sources.
 */
export function predicateReach(
  kind: "jobid" | "opcode" | "reason",
  expr: Expr | null,
  watermark: number | bigint,
): Reach {
  if (expr === null) return NONE;
  if (kind === "jobid") return { ids: idSides(expr, watermark).t, facts: [] };
  if (kind === "opcode") {
    const names = fieldsOf(expr);
    // a hidden common parameter is never a visible field: the predicate never holds (see compileOpcode)
    if (names.some((n) => COMMON_PARAMS.has(n.split(".")[0]))) return NONE;
    const facts: FactReach[] = [];
    if (names.includes("OP_ID")) {
      const t = opSides(expr).t;
      if (!t.all) facts.push({ kind: "op", values: withOther(t) });
    }
    for (const path of names) {
      if (path === "OP_ID") continue;
      const t = fieldSides(expr, path).t;
      if (!t.all) facts.push({ kind: fieldKind(path), values: t });
    }
    return { ids: null, facts };
  }
  const { src, why } = reasonSides(expr).t;
  if (why.finite !== null || (src.finite === null && !why.all))
    return { ids: null, facts: [{ kind: "reason", values: why }] };
  if (!src.all) return { ids: null, facts: [{ kind: "source", values: src }] };
  return ANY;
}

/**
 * The reach of a rule whose predicates all must hold: the ids every
 * predicate's reach allows, and every predicate's facts side by side (each
 * holds every job the rule matches; their values are never intersected —
 * each predicate may hold on another opcode or entry of the job).
 */
export function allOf(reaches: readonly Reach[]): Reach {
  let ids: IdRanges | null = null;
  const facts: FactReach[] = [];
  for (const r of reaches) {
    if (r.ids !== null) ids = ids === null ? r.ids : intersect(ids, r.ids);
    facts.push(...r.facts);
  }
  return { ids, facts };
}

/** Whether the reach holds no job at all. */
export function isEmpty(r: Reach): boolean {
  return (r.ids !== null && r.ids.length === 0) || r.facts.some((f) => f.values.finite?.size === 0);
}

/**
 * The jobs any of several rules can reach, as ids and facts to read: a job
 * is read when its id is in `ids` or, for one entry of `facts` (one rule's
 * fact reaches, any of which holds its jobs), it has a fact of the reach the
 * store picks among them; null when one of the rules can reach any job.
 * Fact reaches `usable` refuses (a field path the store does not index) are
 * left out.
 */
export function anyOf(
  reaches: readonly Reach[],
  usable: (f: FactReach) => boolean = () => true,
): { ids: IdRanges; facts: FactReach[][] } | null {
  let ids: IdRanges = [];
  const facts: FactReach[][] = [];
  for (const r of reaches) {
    if (isEmpty(r)) continue;
    if (r.ids !== null) {
      ids = union(ids, r.ids);
      continue;
    }
    const some = r.facts.filter(usable);
    if (some.length === 0) return null;
    facts.push(some);
  }
  return { ids, facts };
}

/** Whether `id` lies in one of the ranges. */
export function inRanges(ranges: IdRanges, id: number): boolean {
  for (const [lo, hi] of ranges) if (id >= lo && id <= hi) return true;
  return false;
}

/**
 * A job's indexed facts, each distinct (kind, value) once: its opcodes'
 * `OP_ID`s (a non-string one as `OTHER_OP`), its reason entries' sources and
 * reasons (the entries `prepareJob` reads), and for each of `paths` the keys
 * of its opcodes' values there (see `valueKey`; with `presence`, `NO_KEY`
 * too where `valuesAt` gives it).
 */
export function factsOf(job: Job, paths: readonly string[] = [], presence = false): [FactKind, string][] {
  const out: [FactKind, string][] = [];
  const seen = new Set<string>();
  const add = (kind: FactKind, v: string) => {
    const key = `${kind}\u0000${v}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push([kind, v]);
  };
  // with `presence`, `NO_KEY` under "op" too for a job with no opcode or an opcode without `OP_ID`
  if (presence && job.opcodes.length === 0) add("op", NO_KEY);
  for (const op of job.opcodes as JsonObject[]) {
    if (Object.hasOwn(op, "OP_ID")) add("op", typeof op.OP_ID === "string" ? op.OP_ID : OTHER_OP);
    else if (presence) add("op", NO_KEY);
    const trail = op.reason;
    if (!Array.isArray(trail)) continue;
    for (const e of trail) {
      if (isReasonEntry(e)) {
        add("source", e[0]);
        add("reason", e[1]);
      }
    }
  }
  for (const path of paths) for (const v of valuesAt(job, path, presence)) add(fieldKind(path), v);
  return out;
}

/**
 * The keys of a job's opcodes' values at one field path (see `valueKey`), a
 * list's elements keyed as such; with `presence`, also `NO_KEY` when some
 * opcode has no key there or the job has no opcode (see `NO_KEY`).
 */
export function valuesAt(job: Job, path: string, presence = false): string[] {
  const out: string[] = [];
  const steps = path.split(".");
  let none = job.opcodes.length === 0;
  for (const op of job.opcodes as JsonObject[]) {
    const v = lookup(op, steps);
    const had = out.length;
    if (Array.isArray(v)) {
      for (const x of v) {
        const k = valueKey(x);
        if (k !== undefined) out.push(`l${k}`);
      }
    } else {
      const k = valueKey(v);
      if (k !== undefined) out.push(k);
    }
    if (out.length === had) none = true;
  }
  if (presence && none) out.push(NO_KEY);
  return out;
}

/**
 * The presence key: a store that finds jobs by complement (see `predicateCoReach`)
 * indexes a job under it at a field path when the job has no opcode, or an
 * opcode with no key there (the field absent, or a boolean, `null`, an
 * object, a list of no string or number). No value test accepts it.
 */
export const NO_KEY = "\u0000none";

/**
 * Where one parsed predicate may fail to hold, as the keys of one opcode
 * field path's values (see `valueKey`; `NO_KEY` among them): a job none of
 * whose keys there is in the set holds the predicate — it has an opcode,
 * every opcode has keys there, none a list's, so each opcode's value is a
 * string, a number or a bigint the expression holds on. Known for an opcode predicate
 * naming one field path other than `OP_ID` (`name != "x"`, `name =~ "7$"`,
 * `size > 3`): `!= v` fails only where the value is `v` (a finite set); any
 * other expression is run once on each distinct value the store holds, a
 * list's elements always kept (a list is not known from them). Null when
 * nothing is known (other predicates, an unparsed one).
 */
export function predicateCoReach(kind: "jobid" | "opcode" | "reason", expr: Expr | null): FactReach | null {
  if (kind !== "opcode" || expr === null) return null;
  const names = fieldsOf(expr);
  if (names.length === 1 && names[0] === "OP_ID") {
    // `OP_ID != "X"`: may fail only on a job with an opcode whose `OP_ID` is "X", is not a string or is missing, or with no opcode
    if (expr.k === "not" && expr.x.k === "cmp" && expr.x.op === "==" && typeof expr.x.value === "string")
      return { kind: "op", values: finite([NO_KEY, OTHER_OP, expr.x.value]) };
    return null;
  }
  if (names.length !== 1 || COMMON_PARAMS.has(names[0].split(".")[0])) return null;
  const kindOf = fieldKind(names[0]);
  if (expr.k === "not" && expr.x.k === "cmp" && expr.x.op === "==") {
    const k = valueKey(expr.x.value);
    if (k !== undefined) return { kind: kindOf, values: finite([NO_KEY, k]) };
  }
  // compiled on the first value tested: a co-reach on a path the store does not index is never tested
  let test: ((job: PreparedJob) => boolean) | undefined;
  const slot: unknown[] = [undefined];
  const job = { id: 0, opcodes: [{}], views: [slot], reasons: [] };
  const holdsOn = (v: unknown) => {
    slot[0] = v;
    test ??= compileOpcode(expr, newFieldTable());
    return test(job);
  };
  const fails = (k: string) => {
    if (k === NO_KEY || k.startsWith("l")) return true;
    const rest = k.slice(1);
    switch (k[0]) {
      case "s":
        return !holdsOn(rest);
      case "n":
        // `n0` keys both 0 and -0
        return !holdsOn(Number(rest)) || (rest === "0" && !holdsOn(-0));
      case "b":
        return !holdsOn(BigInt(rest));
      default:
        return true;
    }
  };
  return { kind: kindOf, values: tested(fails) };
}
