/**
 * The analysis's suggestions, after better-analyze's: a conjunct that no
 * machine satisfies is named as a blocker, and for a comparison between the
 * job's side (a constant, or an attribute of the job) and the machines' side,
 * the value of the job's side that would let more machines match. The value
 * is one a machine that fails nothing but that conjunct (and accepts the job
 * itself) has; how many more machines would then match is counted by the
 * caller, matching again with the value put in, so "N more" is N more
 * matches, not N more machines satisfying one condition.
 */
import type { Node, Op } from "./node.js";
import { plainNumber, valueText } from "./analyze-values.js";
import { unparseNode } from "./unparse.js";
import { Real, type Value } from "./values.js";

/** One suggestion: what to change, or what blocks the job. */
export interface Suggestion {
  kind: "blocker" | "modify" | "discarded";
  /** The clause it is about (its index in `clauses`). */
  clause?: number;
  message: string;
  /** The job attribute to change, when the job's side of the comparison is one. */
  attribute?: string;
  /** The job's side's value now, and the one suggested (ClassAd text). */
  from?: string;
  to?: string;
  /** How many more machines would match with `to`. */
  more?: number;
  /** For an ordering comparison, the value that gains the most machines, when it is not `to`. */
  most?: { to: string; more: number };
}

/** What a modify suggestion is computed from. */
export interface ModifyInput {
  clause: number;
  /** The conjunct's text and its comparison node (without outer parentheses). */
  text: string;
  node: Node & { k: "op" };
  /** Which operand is the job's side (0: left), its value and the job attribute it names (null for a constant). */
  jobSide: 0 | 1;
  jobValue: Value;
  attribute: string | null;
  /** The machines' side's value, per machine considered. */
  target: readonly Value[];
  /** The machines considered that fail only this conjunct and accept the job themselves. */
  candidates: readonly number[];
}

/** The comparison seen from the machines' side (`T op J`), by which side the job's operand is on. */
const FROM_LEFT: Partial<Record<Op, Op>> = {
  "<": ">",
  "<=": ">=",
  ">": "<",
  ">=": "<=",
  "==": "==",
  "=?=": "=?=",
};
const FROM_RIGHT: Partial<Record<Op, Op>> = {
  "<": "<",
  "<=": "<=",
  ">": ">",
  ">=": ">=",
  "==": "==",
  "=?=": "=?=",
};

/** The values proposed for the job's side: the nearest change, and (orderings) the one that admits every candidate. */
export interface Proposal {
  near: Value;
  far: Value | null;
}

/** For `T op J` with op an ordering: the closest value of J that admits a candidate, and the one that admits them all. */
function orderPick(
  op: Op,
  jobValue: Value,
  target: readonly Value[],
  candidates: readonly number[],
): Proposal | null {
  if (plainNumber(jobValue) === null) return null;
  let real = jobValue instanceof Real;
  const ts: number[] = [];
  for (const k of candidates) {
    const t = plainNumber(target[k]);
    if (t === null || Number.isNaN(t)) continue;
    ts.push(t);
    if (target[k] instanceof Real) real = true;
  }
  if (ts.length === 0) return null;
  // a strict comparison needs the next value past a machine's: only integers have one
  if ((op === ">" || op === "<") && real) return null;
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of ts) {
    if (t < lo) lo = t;
    if (t > hi) hi = t;
  }
  let near: number;
  let far: number;
  switch (op) {
    case ">=":
      [near, far] = [hi, lo];
      break;
    case ">":
      [near, far] = [hi - 1, lo - 1];
      break;
    case "<=":
      [near, far] = [lo, hi];
      break;
    case "<":
      [near, far] = [lo + 1, hi + 1];
      break;
    default:
      return null;
  }
  const value = (n: number): Value => (real ? new Real(n) : n);
  return { near: value(near), far: near === far ? null : value(far) };
}

/** For `T == J` (or `=?=`): the machines' value most candidates share (the first seen among equals). */
function equalPick(op: Op, target: readonly Value[], candidates: readonly number[]): Proposal | null {
  const groups = new Map<string, { value: Value; more: number }>();
  for (const k of candidates) {
    const t = target[k];
    let key: string;
    const n = plainNumber(t);
    if (typeof t === "string") key = "s" + (op === "==" ? t.toLowerCase() : t);
    else if (n !== null && !Number.isNaN(n))
      key = (op === "==" ? "n" : t instanceof Real ? "r" : "i") + String(n);
    else continue;
    const g = groups.get(key);
    if (g === undefined) groups.set(key, { value: t, more: 1 });
    else g.more++;
  }
  let best: { value: Value; more: number } | null = null;
  for (const g of groups.values()) if (best === null || g.more > best.more) best = g;
  return best === null ? null : { near: best.value, far: null };
}

/** "N more machine(s)". */
function moreText(n: number): string {
  return `${n} more machine${n === 1 ? "" : "s"}`;
}

/** The values of the job's side of a comparison worth trying, or null when no single value would admit a candidate. */
export function proposeValues(x: ModifyInput): Proposal | null {
  const op = (x.jobSide === 0 ? FROM_LEFT : FROM_RIGHT)[x.node.op];
  if (op === undefined || x.candidates.length === 0) return null;
  return op === "==" || op === "=?="
    ? equalPick(op, x.target, x.candidates)
    : orderPick(op, x.jobValue, x.target, x.candidates);
}

/** The conjunct with the job's side replaced by a value. */
export function withValue(x: ModifyInput, value: Value): Node & { k: "op" } {
  const lit: Node = { k: "lit", v: value, text: valueText(value) };
  return x.jobSide === 0 ? { ...x.node, a: lit } : { ...x.node, b: lit };
}

/**
 * The modify suggestion for the values tried and the matches each gains
 * (counted by matching again); null when the nearest gains none. `most` is
 * kept only when it gains more than the nearest.
 */
export function modifySuggestion(
  x: ModifyInput,
  near: { value: Value; more: number },
  far: { value: Value; more: number } | null,
): Suggestion | null {
  if (near.more <= 0) return null;
  const to = valueText(near.value);
  const most =
    far === null || far.more <= near.more ? undefined : { to: valueText(far.value), more: far.more };
  const change =
    x.attribute !== null
      ? `modify ${x.attribute} to ${to}`
      : `change \`${x.text}\` to \`${unparseNode(withValue(x, near.value))}\``;
  const also = most === undefined ? "" : ` (to ${most.to}: ${most.more} more)`;
  return {
    kind: "modify",
    clause: x.clause,
    message: `${change} to match ${moreText(near.more)}${also}`,
    ...(x.attribute !== null ? { attribute: x.attribute } : {}),
    from: valueText(x.jobValue),
    to,
    more: near.more,
    ...(most !== undefined ? { most } : {}),
  };
}

/** A conjunct that no machine satisfies: the job cannot match while it stands. */
export function blockerSuggestion(
  clause: number,
  text: string,
  origin: string,
  missing: boolean,
): Suggestion {
  if (missing)
    return {
      kind: "blocker",
      clause,
      message: "the job has no Requirements, and a job without them matches no machine",
    };
  const message =
    origin === "Requirements"
      ? `no machine satisfies [${clause}] \`${text}\`: remove or change it, or the job matches nothing`
      : `no machine satisfies [${clause}] \`${text}\`, which the pool policy adds (${origin}): no machine can run the job under this policy`;
  return { kind: "blocker", clause, message };
}

/** The pool policy drops the job (or its schedd) before matching: no change to its Requirements helps. */
export function discardedSuggestion(name: string, expr: string, what: "job" | "schedd"): Suggestion {
  const whom = what === "job" ? "the job" : "the job's schedd, and its jobs with it,";
  return {
    kind: "discarded",
    message: `the pool policy discards ${whom} before matching (${name}: \`${expr}\`): no change to the job's Requirements helps`,
  };
}
