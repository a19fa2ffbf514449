/**
 * The values of a match: the Boolean AND of a Requirements and a policy
 * expression as the negotiator takes it, a rank as a double, and the
 * attributes every pair evaluates, each looked up once per layout and evaluated
 * through a plan for the pair's layouts (match-plan.ts).
 */
import { PlanSite } from "./match-plan.js";
import { ERROR, Real, UNDEF, truth, type Value } from "./values.js";

/** The machine's Requirements, with the job as TARGET. */
export const MACHINE_REQUIREMENTS = new PlanSite("requirements");
/** The job's Requirements, with the machine as TARGET. */
export const JOB_REQUIREMENTS = new PlanSite("requirements");
/** The job's Rank of a machine. */
export const JOB_RANK = new PlanSite("rank");
/** The pool policy's NEGOTIATOR_PE_STARTD_ONLY_EXPR, MY = each machine alone (`PlanSite.evalIn`). */
export const POLICY_STARTD_ONLY = new PlanSite("");
/** The pool policy's NEGOTIATOR_PE_JOB_ONLY_EXPR, MY = the job alone (once per request). */
export const POLICY_JOB_ONLY = new PlanSite("");
/** The pool policy's NEGOTIATOR_PE_SCHEDD_ONLY_EXPR, MY = the schedd alone (once per request). */
export const POLICY_SCHEDD_ONLY = new PlanSite("");
/** The pool policy's NEGOTIATOR_PE_RESOURCE_EXPR, MY = the machine, TARGET = the job. */
export const POLICY_RESOURCE = new PlanSite("");
/** The pool policy's NEGOTIATOR_PE_JOB_EXPR, MY = the job, TARGET = the machine. */
export const POLICY_JOB = new PlanSite("");

/** What `left && …` is when the left side alone decides it (false or ERROR), or null when the right side is needed. */
export function andDecidedBy(left: Value): Value | null {
  if (left === false || left === ERROR) return left;
  if (left === true || left === UNDEF) return null;
  const t = truth(left);
  if (t === null) return ERROR;
  return t ? null : false;
}

/** `left && y` once the left side has not decided it: left is true (or true-equivalent) or UNDEFINED. */
export function andRest(left: Value, y: Value): Value {
  if (y === UNDEF || y === ERROR) return y;
  const ty = truth(y);
  if (ty === null) return ERROR;
  return left !== UNDEF ? ty : ty ? UNDEF : false;
}

/** `(<left>) && (<right>)` on values, the right side evaluated only when needed. */
export function andThen(left: Value, right: () => Value): Value {
  return andDecidedBy(left) ?? andRest(left, right());
}

/** TRUE as the policy means it: Boolean-equivalent true. */
export function isTrue(v: Value): boolean {
  return truth(v) === true;
}

/** `a && b` on two values already computed (no closure, for the negotiator's inner loop). */
export function andValues(left: Value, y: Value): Value {
  return andDecidedBy(left) ?? andRest(left, y);
}

/** A rank value as a double: numbers and Booleans, anything else 0.0. */
export function rankOf(v: Value): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof Real) return v.v;
  return 0;
}
