/**
 * A rule change's reach tested on one job directly (see job-reach.ts): when
 * the store cannot read the reached jobs through an index (a field path
 * still filling, or not indexed), the change reads the jobs after the
 * changed rule one by one, and this test skips those outside the added
 * rules' reach before they are prepared and matched against the rules.
 * Each fact reach is compiled once per change into a read of the job's own
 * fields: a finite set of values looked up by type (no key text made per
 * job), a value test asked once per distinct value (remembered for the
 * change). It holds every job the reach holds (it is the same set), so a
 * job it refuses is one no added rule can match.
 */
import type { JsonObject } from "../common/json.js";
import { isReasonEntry, lookup } from "./evaluate.js";
import {
  inRanges,
  OTHER_OP,
  pathOf,
  valueKey,
  type FactReach,
  type IdRanges,
  type ValueSet,
} from "./job-reach.js";
import type { Job } from "./types.js";

/** At most this many distinct values' answers are remembered per value test (a field with a value per job would otherwise keep one per job). */
const MEMO = 4096;

/** `values.has` on keys, each distinct key asked once (up to `MEMO` of them). */
function memoised(values: ValueSet): (key: string) => boolean {
  if (values.finite !== null) {
    const s = values.finite;
    return (k) => s.has(k);
  }
  const memo = new Map<string, boolean>();
  return (k) => {
    let r = memo.get(k);
    if (r === undefined) {
      r = values.has(k);
      if (memo.size < MEMO) memo.set(k, r);
    }
    return r;
  };
}

/**
 * Whether an opcode field's value (`inList`: an element of the list at the
 * path) has a key in `values` (see `valueKey`): a finite set's keys decoded
 * once into per-type sets of raw values, so a job's value is looked up as is.
 */
function fieldValueTest(values: ValueSet): (v: unknown, inList: boolean) => boolean {
  if (values.raw !== undefined) return values.raw;
  if (values.finite === null) {
    const has = memoised(values);
    return (v, inList) => {
      const k = valueKey(v);
      return k !== undefined && has(inList ? `l${k}` : k);
    };
  }
  const raw = [new Set<unknown>(), new Set<unknown>()];
  for (const key of values.finite) {
    const inList = key.startsWith("l") ? 1 : 0;
    const k = key.slice(inList);
    const body = k.slice(1);
    if (k[0] === "s") raw[inList].add(body);
    else if (k[0] === "n") raw[inList].add(Number(body));
    else if (k[0] === "b") raw[inList].add(BigInt(body));
  }
  const [plain, listed] = raw;
  if (listed.size === 0 && plain.size === 1) {
    // the commonest shape, one value: compared, not hashed
    const [only] = plain;
    return (v, inList) => !inList && v === only;
  }
  return (v, inList) => (inList ? listed : plain).has(v);
}

/** An opcode's value at a path given as its steps (`lookup` without its loop for a path of one step). */
function reader(steps: readonly string[]): (op: JsonObject) => unknown {
  if (steps.length > 1) return (op) => lookup(op, steps);
  const [key] = steps;
  return (op) =>
    typeof op === "object" && op !== null && !Array.isArray(op) && Object.hasOwn(op, key)
      ? op[key]
      : undefined;
}

/** Whether a job has a fact of `f` (see job-reach.ts `factsOf`), read from the job's fields. */
function factTest(f: FactReach): (job: Job) => boolean {
  const path = pathOf(f.kind);
  if (path !== undefined) {
    const read = reader(path.split("."));
    const test = fieldValueTest(f.values);
    return (job) => {
      for (const op of job.opcodes as JsonObject[]) {
        const v = read(op);
        if (Array.isArray(v)) {
          for (const x of v) if (test(x, true)) return true;
        } else if (test(v, false)) return true;
      }
      return false;
    };
  }
  const has = memoised(f.values);
  if (f.kind === "op") {
    return (job) => {
      for (const op of job.opcodes as JsonObject[]) {
        if (Object.hasOwn(op, "OP_ID") && has(typeof op.OP_ID === "string" ? op.OP_ID : OTHER_OP))
          return true;
      }
      return false;
    };
  }
  const slot = f.kind === "source" ? 0 : 1;
  return (job) => {
    for (const op of job.opcodes as JsonObject[]) {
      const trail = op.reason;
      if (!Array.isArray(trail)) continue;
      for (const e of trail) if (isReasonEntry(e) && has(e[slot])) return true;
    }
    return false;
  };
}

/** The fact reach to test among a rule's alternatives (each holds its jobs): a finite one if any, the cheapest to test. */
function pick(alts: readonly FactReach[]): FactReach {
  let best = alts[0];
  for (const f of alts) {
    if (
      f.values.finite !== null &&
      (best.values.finite === null || f.values.finite.size < best.values.finite.size)
    )
      best = f;
  }
  return best;
}

/**
 * The test of whether a job is within the reach of any of a change's added
 * rules (`reached` as job-reach.ts `anyOf` gives it, every fact reach kept):
 * its id is in `ids`, or it has a fact of one rule's chosen alternative.
 */
export function reachFilter(reached: {
  ids: IdRanges;
  facts: readonly (readonly FactReach[])[];
}): (id: number, job: Job) => boolean {
  const ids = reached.ids;
  const tests = reached.facts.map((alts) => factTest(pick(alts)));
  return (id, job) => {
    if (ids.length > 0 && inRanges(ids, id)) return true;
    for (const t of tests) if (t(job)) return true;
    return false;
  };
}
