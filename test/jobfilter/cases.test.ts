import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadCases } from "../support/cases.js";
import { compileBundle, ENGINES } from "../../src/bundle/index.js";
import {
  decideJobfilter,
  loadFilters,
  parseBucket,
  parseRuleBody,
  readRapiJson,
  scheduleJobfilter,
  validateRules,
} from "../../src/engines/jobfilter/index.js";
import { parseExactJson, stringifyExactJson } from "../../src/engines/common/exact-json.js";
import type { Job, JobfilterPolicy } from "../../src/engines/jobfilter/index.js";

// A job in a case file: opcodes may be left out (a job with none), for jobid-only cases.
const CaseJob = z.strictObject({
  id: z.number().int().positive(),
  opcodes: z.array(z.record(z.string(), z.json())).default([]),
});
const Queue = z.strictObject({ running: z.array(CaseJob).default([]), queued: z.array(CaseJob).default([]) });

// What a case asks: one decision, one scheduling pass, one RAPI body check, or one reason string's bucket.
const Input = z.union([
  z.strictObject({ job: CaseJob, queue: Queue.optional() }),
  z.strictObject({
    schedule: z.strictObject({ running: z.array(CaseJob).default([]), candidates: z.array(CaseJob) }),
  }),
  z.strictObject({ rapi_body: z.unknown() }),
  // A RAPI body as text, read as the route reads it (exact integers); the want is the checked body as JSON text.
  z.strictObject({ rapi_text: z.string() }),
  // Rules and a job as JSON text with exact integers (YAML numbers are doubles), decided as the queue does.
  z.strictObject({ exact: z.strictObject({ rules: z.string(), job: z.string() }) }),
  z.strictObject({ reason: z.string() }),
  // The policy's rules as a queue is seeded with them, written as exact JSON text.
  z.strictObject({ seed: z.literal("rules") }),
  // The explain trace of one decision (`?explain=true`): the want is the trace.
  z.strictObject({ explain: CaseJob }),
]);

const cases = loadCases("jobfilter");

async function run(
  policy: unknown,
  input: z.output<typeof Input>,
): Promise<{ ok: true; value: unknown } | { ok: false; error: unknown }> {
  if ("rapi_body" in input) {
    const r = parseRuleBody(input.rapi_body);
    return r.ok ? { ok: true, value: r.value } : { ok: false, error: r.error };
  }
  if ("reason" in input) return { ok: true, value: parseBucket(input.reason) };
  if ("rapi_text" in input) {
    const { value, floats } = readRapiJson(input.rapi_text);
    const r = parseRuleBody(value, floats);
    return r.ok ? { ok: true, value: stringifyExactJson(r.value) } : { ok: false, error: r.error };
  }
  if ("exact" in input) {
    const rules = validateRules(parseExactJson(input.exact.rules));
    if (!rules.ok) return { ok: false, error: rules.error };
    const job = parseExactJson(input.exact.job) as unknown as Job;
    return {
      ok: true,
      value: decideJobfilter(
        loadFilters(rules.value),
        { job, queue: { running: [], queued: [] } },
        { explain: false },
      ).verdict,
    };
  }
  // A string policy is the source text itself (a syntax error case, or integers past 2^53, which YAML
  // cannot hold); anything else is the rule list. It goes through the bundle as policies/filters.json does.
  const source = typeof policy === "string" ? policy : JSON.stringify(policy ?? []);
  const bundle = await compileBundle({ jobfilter: source }, new Date(0).toISOString());
  if (!bundle.ok) return { ok: false, error: bundle.error };
  const loaded = ENGINES.jobfilter.load(bundle.value.engines.jobfilter?.compiled) as JobfilterPolicy;
  if ("seed" in input) return { ok: true, value: stringifyExactJson(loaded.rules) };
  if ("explain" in input) {
    return {
      ok: true,
      value: decideJobfilter(loaded, { job: input.explain as Job }, { explain: true }).trace,
    };
  }
  if ("schedule" in input) {
    return {
      ok: true,
      value: scheduleJobfilter(loaded, input.schedule.running as Job[], input.schedule.candidates as Job[]),
    };
  }
  const queue = input.queue ?? { running: [], queued: [] };
  return {
    ok: true,
    value: decideJobfilter(
      loaded,
      { job: input.job as Job, queue: queue as { running: Job[]; queued: Job[] } },
      { explain: false },
    ).verdict,
  };
}

describe("jobfilter cases", () => {
  it("has at least 50 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(50);
  });
  for (const c of cases) {
    const test = c.value.skip ? it.skip : it;
    test(c.name, async () => {
      const input = Input.parse(c.value.input);
      const got = await run(c.value.policy, input);
      if (c.value.want_error !== undefined) {
        expect(got.ok, "expected an error").toBe(false);
        if (!got.ok) {
          // A string names the first error's message; a list of {code?, message?, at?} matches the errors in order.
          const want = c.value.want_error;
          const errors = Array.isArray(got.error) ? got.error : [{ message: got.error }];
          if (typeof want === "string") expect(errors[0].message).toBe(want);
          else expect(errors).toMatchObject(want as object[]);
        }
      } else {
        expect(got).toEqual({ ok: true, value: c.value.want });
      }
    });
  }
});
