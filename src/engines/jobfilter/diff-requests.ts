/**
 * Jobfilter's diff requests: jobs built from each predicate's sides. Every
 * leaf `[op, field, value]` of a predicate gives its field the value and, for
 * numbers, the value ± 1; each field also takes a fresh value and absence;
 * `jobid` predicates give ids around their thresholds and the watermark. The
 * queue is empty. Equality and numeric order over those values split jobs into
 * the classes the rules tell apart, so without regexes, string ordering or
 * rate limits the full product is exhaustive.
 */
import {
  countBoundary,
  MAX_DIFF_REQUESTS,
  productSteps,
  regexWitnesses,
  type DiffRequests,
} from "../common/diff-requests.js";
import type { JsonObject } from "../common/json.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import { compileRegex } from "./expression.js";
import type { FilterRule, Job } from "./types.js";

const FRESH = "zz-fresh-9";
const ABSENT = Symbol("absent");
type Value = unknown;

interface Fields {
  opcode: Map<string, Value[]>;
  ids: Set<number>;
  reasons: Map<string, Value[]>;
  why: Set<string>;
}

function add(map: Map<string, Value[]>, field: string, v: Value): void {
  const list = map.get(field) ?? [];
  if (!list.some((x) => x === v)) list.push(v);
  map.set(field, list);
}

function walk(
  expr: unknown,
  into: Map<string, Value[]> | "id",
  f: Fields,
  boundaries: Record<string, number>,
  watermark: number,
  depth = 0,
): void {
  if (!Array.isArray(expr) || depth > 60) return;
  const [op, ...args] = expr as unknown[];
  if (op === "&" || op === "|" || op === "!") {
    for (const a of args) walk(a, into, f, boundaries, watermark, depth + 1);
    return;
  }
  if (op === "?" && typeof args[0] === "string" && into !== "id") {
    add(into, args[0], true);
    add(into, args[0], false);
    return;
  }
  if (typeof args[0] !== "string" || args.length < 2) return;
  const field = args[0];
  let value = args[1];
  if (typeof value === "bigint") value = Number(value);
  if (value === "watermark") value = watermark;
  countBoundary(boundaries, "predicate side");
  if (into === "id") {
    if (typeof value === "number") for (const d of [-1, 0, 1]) if (value + d >= 1) f.ids.add(value + d);
    return;
  }
  if (op === "=~" && typeof value === "string") {
    f.why.add("a regex predicate: its witnesses are searched, not every string it tells apart");
    const re = compileRegex(value);
    if (re.ok) for (const w of regexWitnesses(value, (s) => re.value.test(s), FRESH)) add(into, field, w);
    countBoundary(boundaries, "regex witness", 2);
    return;
  }
  if (typeof value === "number") {
    for (const d of [-1, 0, 1]) add(into, field, value + d);
    countBoundary(boundaries, "threshold ±1");
  } else {
    add(into, field, value);
    if (typeof value === "string" && (op === "<" || op === ">" || op === "<=" || op === ">="))
      f.why.add("an ordering comparison with a string: strings between the literals are not all tried");
  }
}

/** Each rule's values and thresholds, read a slice of rules at a time (each counts its predicates and a few more units). */
function* collect(
  rules: readonly FilterRule[],
  f: Fields,
  boundaries: Record<string, number>,
  pace: Pace,
): Steps<void> {
  for (const r of rules) {
    if (pace.spend(64 + 16 * r.predicates.length)) yield;
    const wm = Number(r.watermark);
    f.ids.add(wm);
    f.ids.add(wm + 1);
    if (Array.isArray(r.action) && r.action[0] === "RATE_LIMIT")
      f.why.add("a RATE_LIMIT rule: only an empty queue is tried");
    for (const [name, expr] of r.predicates) {
      if (name === "jobid") walk(expr, "id", f, boundaries, wm);
      else if (name === "opcode") walk(expr, f.opcode, f, boundaries, wm);
      else walk(expr, f.reasons, f, boundaries, wm);
    }
  }
}

/** The jobfilter requests (`{job, queue}` with an empty queue) that reach every predicate side of either rule list. */
export function jobfilterDiffRequests(
  a: readonly FilterRule[],
  b: readonly FilterRule[],
): DiffRequests<JobfilterDiffRequest> {
  return finish(jobfilterDiffRequestsSteps(a, b));
}

/** One request of the jobfilter diff: a job and the queue it meets. */
type JobfilterDiffRequest = { job: Job; queue: { running: Job[]; queued: Job[] } };

/** {@link jobfilterDiffRequests} as resumable work (common/slices.ts): the rules are read, then the requests made, a slice at a time. */
export function* jobfilterDiffRequestsSteps(
  a: readonly FilterRule[],
  b: readonly FilterRule[],
): Steps<DiffRequests<JobfilterDiffRequest>> {
  const pace = new Pace();
  const boundaries: Record<string, number> = {};
  const f: Fields = { opcode: new Map(), ids: new Set([1]), reasons: new Map(), why: new Set() };
  yield* collect(a, f, boundaries, pace);
  yield* collect(b, f, boundaries, pace);
  const opFields = [...f.opcode.keys()];
  const reasonFields = [...f.reasons.keys()];
  const lists: Value[][] = [
    [...f.ids].filter((n) => n >= 1),
    ...opFields.map((k) => [...(f.opcode.get(k) ?? []), FRESH, ABSENT]),
    ...reasonFields.map((k) => [...(f.reasons.get(k) ?? []), FRESH]),
  ];
  countBoundary(boundaries, "job id", lists[0].length);
  countBoundary(boundaries, "opcode field", opFields.length);
  const made = yield* productSteps(
    lists,
    MAX_DIFF_REQUESTS,
    (v) => {
      const opcode: JsonObject = {};
      opFields.forEach((k, i) => {
        if (v[1 + i] !== ABSENT) opcode[k] = v[1 + i] as never;
      });
      if (opcode.OP_ID === undefined) opcode.OP_ID = FRESH;
      const rv = (k: string): Value => v[1 + opFields.length + reasonFields.indexOf(k)];
      if (reasonFields.length > 0) {
        const ts = rv("timestamp");
        opcode.reason = [
          [String(rv("source") ?? FRESH), String(rv("reason") ?? FRESH), typeof ts === "number" ? ts : 0],
        ] as never;
      }
      return { job: { id: v[0] as number, opcodes: [opcode] }, queue: { running: [], queued: [] } };
    },
    pace,
  );
  const why = [...f.why];
  if (!made.complete) why.push(`the combinations exceed the ${made.out.length} requests generated`);
  return { requests: made.out, boundaries, exhaustive: why.length === 0, why };
}
