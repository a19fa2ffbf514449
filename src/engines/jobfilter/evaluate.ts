import type { JsonObject } from "../common/json.js";
import type { CmpOp, Expr, FilterValue } from "./expression.js";
import { boundsValues, fieldsOf } from "./expression.js";
import { compareFilterValues, compareJson } from "./order.js";
import type { FilterPredicate, Job, ReasonEntry, Tri } from "./types.js";
import { ERROR, FALSE, TRUE } from "./types.js";
import { parseExpression } from "./expression.js";
import { opcodeRegexLeaf, reasonRegexLeaf } from "./pattern-leaf.js";

/** A leaf compiled for one context type. */
type Leaf<C> = (ctx: C) => Tri;
type LeafExpr = Exclude<Expr, { k: "empty" | "and" | "or" | "not" }>;

/** The opcode parameters Ganeti keeps out of the opcode's visible fields. */
export const COMMON_PARAMS: ReadonlySet<string> = new Set([
  "reason",
  "comment",
  "priority",
  "dry_run",
  "depends",
  "debug_level",
]);

function holds(op: CmpOp, c: number): boolean {
  switch (op) {
    case "==":
      return c === 0;
    case "<":
      return c < 0;
    case ">":
      return c > 0;
    case "<=":
      return c <= 0;
    case ">=":
      return c >= 0;
  }
}

const always: Leaf<unknown> = () => TRUE;

/**
 * `&` (unit TRUE) and `|` (unit FALSE): the first operand whose result is not the
 * unit decides (an ERROR included), else the unit. One operand is the operand
 * itself; two skip the loop (the common shapes).
 */
function junction<C>(fs: Leaf<C>[], unit: typeof TRUE | typeof FALSE): Leaf<C> {
  if (fs.length === 1) return fs[0];
  if (fs.length === 2) {
    const [a, b] = fs;
    return (ctx) => {
      const r = a(ctx);
      return r !== unit ? r : b(ctx);
    };
  }
  return (ctx) => {
    for (const f of fs) {
      const r = f(ctx);
      if (r !== unit) return r;
    }
    return unit;
  };
}

/** Builds the three-valued evaluator: `&`/`|` short-circuit left to right and an error stops everything. */
function build<C>(expr: Expr, leaf: (e: LeafExpr) => Leaf<C>): Leaf<C> {
  switch (expr.k) {
    case "empty":
      return always;
    case "and":
      return junction(
        expr.xs.map((x) => build(x, leaf)),
        TRUE,
      );
    case "or":
      return junction(
        expr.xs.map((x) => build(x, leaf)),
        FALSE,
      );
    case "not": {
      const f = build(expr.x, leaf);
      return (ctx) => {
        const r = f(ctx);
        return r === ERROR ? ERROR : r === TRUE ? FALSE : TRUE;
      };
    }
    default:
      return leaf(expr);
  }
}

const error: Leaf<unknown> = () => ERROR;

/** A comparison of the job id with a bound, written with < and > only so it answers exactly as the three-way compare did. */
function idLeaf(op: CmpOp, bound: number | bigint): Leaf<PreparedJob> {
  switch (op) {
    case "==":
      return (job) => (!(job.id < bound) && !(job.id > bound) ? TRUE : FALSE);
    case "<":
      return (job) => (job.id < bound ? TRUE : FALSE);
    case ">":
      return (job) => (job.id > bound ? TRUE : FALSE);
    case "<=":
      return (job) => (!(job.id > bound) ? TRUE : FALSE);
    case ">=":
      return (job) => (!(job.id < bound) ? TRUE : FALSE);
  }
}

/** Compiles a `jobid` expression against a rule's watermark: only comparisons on `id` are meaningful. */
export function compileJobId(expr: Expr, watermark: number | bigint): (job: PreparedJob) => boolean {
  const f = build<PreparedJob>(expr, (e) => {
    if (e.k !== "cmp" || e.field !== "id") return error;
    const { op, value } = e;
    if (typeof value === "string") return value === "watermark" ? idLeaf(op, watermark) : error;
    return idLeaf(op, value);
  });
  return (job) => f(job) === TRUE;
}

/** Resolves a dotted field path in an opcode; `undefined` when missing (hidden common parameters are refused at compile time). */
export function lookup(opcode: JsonObject, path: readonly string[]): unknown {
  let cur: unknown = opcode;
  for (const key of path) {
    if (typeof cur !== "object" || cur === null || Array.isArray(cur) || !Object.hasOwn(cur, key))
      return undefined;
    cur = (cur as JsonObject)[key];
  }
  return cur;
}

/**
 * Field `g` of an opcode's view, looked up in the opcode on first use and kept
 * there (MISSING when the opcode lacks it: JSON null is a value, only undefined
 * means absent). Small enough for the engine to inline in the loops below.
 */
function viewField(view: unknown[], g: number, opcode: JsonObject, path: readonly string[]): unknown {
  let v = view[g];
  if (v === undefined) {
    v = lookup(opcode, path);
    if (v === undefined) v = MISSING;
    view[g] = v;
  }
  return v;
}

const never = (): boolean => false;

/**
 * One opcode-field comparison. Equality in the total order means same type and
 * same value, so `==` is `===`; number-to-number comparisons skip the ranking.
 */
function compileFieldCmp(op: CmpOp, value: FilterValue, i: number): Leaf<unknown[]> {
  if (op === "==") return (vals) => (vals[i] === value ? TRUE : FALSE);
  if (typeof value === "number") {
    const slow = (v: unknown): Tri => (holds(op, compareJson(v, value)) ? TRUE : FALSE);
    switch (op) {
      case "<":
        return (vals) => {
          const v = vals[i];
          return typeof v === "number" ? (v < value ? TRUE : FALSE) : slow(v);
        };
      case ">":
        return (vals) => {
          const v = vals[i];
          return typeof v === "number" ? (v > value ? TRUE : FALSE) : slow(v);
        };
      case "<=":
        return (vals) => {
          const v = vals[i];
          return typeof v === "number" ? (!(v > value) ? TRUE : FALSE) : slow(v);
        };
      case ">=":
        return (vals) => {
          const v = vals[i];
          return typeof v === "number" ? (!(v < value) ? TRUE : FALSE) : slow(v);
        };
    }
  }
  return (vals) => (holds(op, compareJson(vals[i], value)) ? TRUE : FALSE);
}

/** The opcode field paths a rule set names, numbered so a prepared job can keep each resolved value in a slot. */
export interface FieldTable {
  readonly ids: Map<string, number>;
  readonly paths: string[][];
  /** The paths other than `OP_ID` whose values bound where an expression holds (`boundsValues`), in first-seen order: the ones a store may index by value (see job-reach.ts). */
  readonly valued: Set<string>;
  /** The paths other than `OP_ID` an opcode expression `!=` names alone (`name != "x"`), in first-seen order: the ones a store that finds jobs by complement indexes too (see job-reach.ts `predicateCoReach`; a regex's path is not: tested once per distinct value, it costs more than the regex tested on each job after the rule). */
  readonly indexable: Set<string>;
}

/** An empty field table; one is shared by every rule of a set. */
export function newFieldTable(): FieldTable {
  return { ids: new Map(), paths: [], valued: new Set(), indexable: new Set() };
}

function fieldId(table: FieldTable, name: string): number {
  let id = table.ids.get(name);
  if (id === undefined) {
    id = table.paths.length;
    table.ids.set(name, id);
    table.paths.push(name.split("."));
  }
  return id;
}

/** A resolved slot whose field the opcode does not have (distinct from every JSON value). */
const MISSING: unique symbol = Symbol("missing");

/**
 * Compiles an `opcode` expression: every named field is resolved first (once per
 * job and opcode, shared by all rules through the job's views), then the leaves
 * read their values from the view.
 */
export function compileOpcode(expr: Expr, table: FieldTable): (job: PreparedJob) => boolean {
  const names = fieldsOf(expr);
  // A field that is a hidden common parameter is always missing: the expression can never hold.
  if (names.some((n) => COMMON_PARAMS.has(n.split(".")[0]))) return never;
  const ids = names.map((n) => fieldId(table, n));
  const paths = ids.map((g) => table.paths[g]);
  for (const n of names) if (n !== "OP_ID" && boundsValues(expr, n)) table.valued.add(n);
  if (
    names.length === 1 &&
    names[0] !== "OP_ID" &&
    expr.k === "not" &&
    expr.x.k === "cmp" &&
    expr.x.op === "=="
  )
    table.indexable.add(names[0]);
  const f = build<unknown[]>(expr, (e) => {
    const i = fieldId(table, e.field);
    switch (e.k) {
      case "cmp":
        return compileFieldCmp(e.op, e.value, i);
      case "true":
        return (vals) => {
          const v = vals[i];
          return typeof v === "boolean" ? (v ? TRUE : FALSE) : ERROR;
        };
      case "regex":
        return opcodeRegexLeaf(e.source, e.re, i);
      case "contains": {
        const value = e.value;
        // One pass checks the list's element type and looks for the value.
        if (typeof value === "string") {
          return (vals) => {
            const v = vals[i];
            if (!Array.isArray(v)) return ERROR;
            let found = false;
            for (let k = 0; k < v.length; k++) {
              const x: unknown = v[k];
              if (typeof x !== "string") return ERROR;
              if (x === value) found = true;
            }
            return found ? TRUE : FALSE;
          };
        }
        return (vals) => {
          const v = vals[i];
          if (!Array.isArray(v)) return ERROR;
          let found = false;
          for (let k = 0; k < v.length; k++) {
            const x: unknown = v[k];
            if (typeof x !== "bigint" && (typeof x !== "number" || !Number.isInteger(x))) return ERROR;
            if (x === value) found = true;
          }
          return found ? TRUE : FALSE;
        };
      }
    }
  });
  if (expr.k === "cmp" && expr.op === "==") {
    // The commonest predicate, `field == value`: the comparison inline, no leaf call.
    const g = ids[0];
    const path = paths[0];
    const value = expr.value;
    return (job) => {
      const opcodes = job.opcodes;
      const views = job.views;
      for (let k = 0; k < opcodes.length; k++) {
        if (viewField(views[k], g, opcodes[k], path) === value) return true;
      }
      return false;
    };
  }
  if (ids.length === 1) {
    // One field: no inner loop over the expression's fields.
    const g = ids[0];
    const path = paths[0];
    return (job) => {
      const opcodes = job.opcodes;
      const views = job.views;
      for (let k = 0; k < opcodes.length; k++) {
        const view = views[k];
        if (viewField(view, g, opcodes[k], path) !== MISSING && f(view) === TRUE) return true;
      }
      return false;
    };
  }
  return (job) => {
    const opcodes = job.opcodes;
    const views = job.views;
    next: for (let k = 0; k < opcodes.length; k++) {
      const view = views[k];
      for (let j = 0; j < ids.length; j++) {
        if (viewField(view, ids[j], opcodes[k], paths[j]) === MISSING) continue next;
      }
      if (f(view) === TRUE) return true;
    }
    return false;
  };
}

const REASON_FIELDS: Record<string, 0 | 1 | 2> = { source: 0, reason: 1, timestamp: 2 };

/** Compiles a `reason` expression over one reason-trail entry: fields `source`, `reason`, `timestamp`. */
export function compileReason(expr: Expr): (job: PreparedJob) => boolean {
  const f = build<ReasonEntry>(expr, (e) => {
    const slot = Object.hasOwn(REASON_FIELDS, e.field) ? REASON_FIELDS[e.field] : undefined;
    if (slot === undefined) return error;
    switch (e.k) {
      case "cmp": {
        const { op, value } = e;
        return (entry) => (holds(op, compareFilterValues(entry[slot], value)) ? TRUE : FALSE);
      }
      case "regex": {
        if (slot === 2) return error;
        return reasonRegexLeaf(e.source, e.re, slot);
      }
      default:
        // `?` wants a boolean and `=[]` a list: reason fields are neither.
        return error;
    }
  });
  return (job) => {
    const entries = job.reasons;
    for (let i = 0; i < entries.length; i++) if (f(entries[i]) === TRUE) return true;
    return false;
  };
}

/** The prepared inputs of one job that every predicate reads: opcodes, their field views, all reason entries. */
export interface PreparedJob {
  readonly id: number;
  readonly opcodes: readonly JsonObject[];
  /** Per opcode, the resolved value of each numbered field path (undefined until a rule asks, MISSING when absent). */
  readonly views: unknown[][];
  readonly reasons: readonly ReasonEntry[];
}

/** Whether a reason trail entry is one Ganeti writes, `[source, reason, timestamp]`; other entries are not read. */
export function isReasonEntry(e: unknown): e is ReasonEntry {
  return (
    Array.isArray(e) &&
    typeof e[0] === "string" &&
    typeof e[1] === "string" &&
    (typeof e[2] === "number" || typeof e[2] === "bigint")
  );
}

/**
 * Collects a job's reason-trail entries once and gives each opcode an empty
 * field view sized for the rule set (`fields`; views grow when it is omitted).
 */
export function prepareJob(job: Job, fields = 0): PreparedJob {
  const reasons: ReasonEntry[] = [];
  const views: unknown[][] = [];
  for (const op of job.opcodes) {
    const view: unknown[] = [];
    for (let i = 0; i < fields; i++) view.push(undefined);
    views.push(view);
    const trail = op.reason;
    if (!Array.isArray(trail)) continue;
    for (const e of trail) {
      if (isReasonEntry(e)) reasons.push(e);
    }
  }
  return { id: job.id, opcodes: job.opcodes, views, reasons };
}

/**
 * Compiles one stored predicate (validated when its rule was added) into a test
 * on a prepared job. A predicate stored by an earlier version that no longer
 * parses (a JavaScript-only regex the PCRE matcher refuses) is false, as an
 * evaluation error makes a Ganeti expression false.
 */
export function compilePredicate(
  pred: FilterPredicate,
  watermark: number | bigint,
  fields: FieldTable,
): (job: PreparedJob) => boolean {
  const parsed = parseExpression(pred[1]);
  if (!parsed.ok) return () => false;
  switch (pred[0]) {
    case "jobid":
      return compileJobId(parsed.value, watermark);
    case "opcode":
      return compileOpcode(parsed.value, fields);
    case "reason":
      return compileReason(parsed.value);
  }
}
