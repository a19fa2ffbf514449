import type { ExactJson } from "../common/exact-json.js";
import type { JsonObject } from "../common/json.js";

/** A reason-trail entry: who, why, when (nanoseconds since the epoch; a bigint past 2^53, so it stays exact). */
export type ReasonEntry = [source: string, reason: string, timestamp: number | bigint];

/** What a rule does to the jobs it applies to, in Ganeti's JSON form. */
export type FilterAction = "ACCEPT" | "PAUSE" | "REJECT" | "CONTINUE" | ["RATE_LIMIT", number];

/** A predicate as stored: `[name, expression]` in the query language's JSON form. */
export type FilterPredicate = [name: "jobid" | "opcode" | "reason", expression: ExactJson];

/** One filter rule, exactly as the RAPI resource and the bundle hold it. */
export interface FilterRule {
  uuid: string;
  watermark: number | bigint;
  /** 0 to 2^63-1 (Ganeti's `NonNegative Int`); a bigint past 2^53. */
  priority: number | bigint;
  predicates: FilterPredicate[];
  action: FilterAction;
  reason_trail: ReasonEntry[];
}

/** A job as the engine sees it: its id and its opcodes (each with `OP_ID` and its parameters). */
export interface Job {
  id: number;
  opcodes: JsonObject[];
}

/** The outcome of the filter chain and the buckets for one job. */
export type JobAction = "ACCEPT" | "PAUSE" | "REJECT" | "RATE_LIMITED" | "ADHOC_RATE_LIMITED";

/** The pure decision: what happens to the job and which rule applied (null when none did). */
export interface JobDecision {
  action: JobAction;
  rule: string | null;
}

/** One candidate's result in a scheduling pass. */
export interface PassResult extends JobDecision {
  id: number;
}

/** Three-valued leaf result: false, true, or an evaluation error that makes the expression false. */
export const FALSE = 0;
/** See FALSE. */
export const TRUE = 1;
/** See FALSE. */
export const ERROR = 2;
/** Result of evaluating an expression node. */
export type Tri = typeof FALSE | typeof TRUE | typeof ERROR;
