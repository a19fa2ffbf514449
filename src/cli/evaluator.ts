import type { z } from "zod";
import type { Budget } from "../engines/common/budget.js";
import type { Decision } from "../engines/common/decision.js";
import type { EngineName } from "../engines/common/engine.js";

/**
 * How `arbiter eval <engine>` drives an engine that has a policy: the CLI
 * compiles and loads the policy (from `--policy`, a line's own `policy`, or the
 * embedded bundle), validates each input line with `schema` (the same zod schema
 * the HTTP route uses) and prints `decide`'s verdict in the API's envelope.
 */
export interface PolicyEvaluator<S extends z.ZodType = z.ZodType, P = unknown, V extends object = object> {
  readonly engine: EngineName;
  readonly schema: S;
  decide(
    policy: P,
    request: z.output<S>,
    ctx: { now: number; explain: boolean; budget?: Budget },
  ): Decision<V> | Promise<Decision<V>>;
  /** Reads one line's JSON text, when JSON.parse would lose something the engine needs (jobfilter's integers past 2^53). */
  parseLine?(text: string): unknown;
  /** Writes one answer line, when JSON.stringify cannot (bigints). */
  stringify?(answer: object): string;
}

/** How `arbiter eval <name>` drives a policy-less evaluator (jq, classad): one JSON line in, one out. */
export interface LineEvaluator {
  evaluateLine(line: unknown): object | Promise<object>;
  /** Reads one line's JSON text, when JSON.parse would lose something the evaluator needs (jq's number literals). */
  parseLine?(text: string): unknown;
  /** Writes one answer line, when JSON.stringify would lose something (jq's key order). */
  stringify?(answer: object): string;
}
