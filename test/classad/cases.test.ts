/**
 * Case-file runner for test/cases/classad (expressions and single matches,
 * through the `arbiter eval classad` line evaluator) and test/cases/match
 * (pool policies, /v1/match and /v1/ads/check requests). Inputs and wants
 * are checked with strict schemas so a typo fails the file.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { evalClassadLine } from "../../src/cli/eval-classad.js";
import {
  ClassAdRequestError,
  decideAdCheck,
  decideMatch,
  matchEngine,
  type MatchPolicy,
} from "../../src/engines/classad/index.js";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { matchOne } from "../../src/engines/classad/match.js";
import { readAd } from "../../src/engines/classad/ad-input.js";
import { printValue } from "../../src/engines/classad/evaluate.js";
import { AdCheckRequest, MatchRequest } from "../../src/http/schemas/match.js";
import { loadCases, REPO_ROOT } from "../support/cases.js";
import { impliedBest, type MatchAnswer } from "../support/match-best.js";

const Ad = z.union([z.string(), z.record(z.string(), z.unknown())]);
const Printed = z.strictObject({ type: z.string(), value: z.string().optional() });

const ClassadInput = z.union([
  z.strictObject({ expr: z.string(), my: Ad.optional(), target: Ad.optional() }),
  z.strictObject({ match: z.literal(true), job: Ad, machine: Ad }),
]);
const ClassadWant = z.union([
  Printed,
  z.strictObject({
    symmetric_match: z.boolean(),
    job_rank: Printed.optional(),
    machine_rank: Printed.optional(),
  }),
]);

const MachineLine = z.strictObject({
  name: z.union([z.string(), z.number()]),
  discarded: z.boolean(),
  match: z.boolean(),
  rank: z.number(),
});
const MatchWant = z.strictObject({
  job: z.strictObject({ discarded: z.boolean() }).optional(),
  schedd: z.strictObject({ discarded: z.boolean() }).optional(),
  machines: z.array(MachineLine).optional(),
  best: z.union([z.string(), z.number(), z.null()]).optional(),
  counts: z
    .strictObject({
      machines: z.number(),
      matched: z.number(),
      discarded: z.number(),
      rejected_by_resource_expr: z.number(),
      rejected_by_job_expr: z.number(),
      unmatched: z.number(),
    })
    .optional(),
  log: z.array(z.string()).optional(),
  discarded: z.boolean().optional(),
  cacheable: z.boolean().optional(),
  outcome: z.string().optional(),
  matched: z.array(z.union([z.string(), z.number()])).optional(),
});
const MatchWantError = z.strictObject({
  code: z.string(),
  at: z.string().optional(),
  message: z.string().optional(),
  field: z.string().optional(),
});

/** Milliseconds since the epoch of a case's `now` (ISO 8601 text or ms); a fixed default keeps cases repeatable. */
function nowOf(now: string | number | undefined): number {
  if (now === undefined) return Date.UTC(2024, 0, 1);
  return typeof now === "number" ? now : Date.parse(now);
}

const DEFAULT_POLICY = readFileSync(resolve(REPO_ROOT, "policies/pool.conf"), "utf8");

describe("classad cases", () => {
  const cases = loadCases("classad");
  it("has at least 150 cases", () => expect(cases.length).toBeGreaterThanOrEqual(150));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const input = ClassadInput.parse(c.value.input);
      const want = ClassadWant.parse(c.value.want);
      const ctx = { now: nowOf(c.value.now as string | number | undefined), random: () => 0.5 };
      let got: Record<string, unknown>;
      if ("match" in input) {
        // the same line format as `arbiter eval classad`, with the case's clock
        const job = readAd(input.job);
        const machine = readAd(input.machine);
        if (!job.ok || !machine.ok) throw new Error("bad ad in case");
        const r = matchOne(job.ad, machine.ad, ctx);
        got = {
          symmetric_match: r.symmetric,
          job_rank: printValue(r.jobRank),
          machine_rank: printValue(r.machineRank),
        };
        expect(evalClassadLine(input)).toHaveProperty("symmetric_match", r.symmetric);
      } else {
        const { type, value } = evaluateRequest(input, ctx);
        got = { type, value };
      }
      for (const [k, v] of Object.entries(want)) {
        if (typeof v === "object" && v !== null) expect(got[k], k).toMatchObject(v);
        else expect(got[k], k).toEqual(v);
      }
    });
  }
});

describe("match cases", () => {
  const cases = loadCases("match");
  it("has at least 30 cases", () => expect(cases.length).toBeGreaterThanOrEqual(30));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const source = c.value.policy === undefined ? DEFAULT_POLICY : z.string().parse(c.value.policy);
      const compiled = matchEngine.compile(source);
      const ctx = { now: nowOf(c.value.now as string | number | undefined), random: () => 0.5 };
      if (c.value.want_error !== undefined) {
        const we = MatchWantError.parse(c.value.want_error);
        if (!compiled.ok) {
          const e = compiled.error.find((x) => x.code === we.code);
          expect(e, `errors: ${JSON.stringify(compiled.error)}`).toBeDefined();
          if (we.at !== undefined) expect(e?.at).toBe(we.at);
          if (we.message !== undefined) expect(e?.message).toBe(we.message);
          return;
        }
        const policy = matchEngine.load(compiled.value);
        let thrown: unknown = null;
        try {
          const input = c.value.input as Record<string, unknown>;
          if ("kind" in input) decideAdCheck(policy, AdCheckRequest.parse(input), ctx);
          // the engine's own checks (the route's schema refuses the same `best` first)
          else decideMatch(policy, input as Parameters<typeof decideMatch>[1], ctx);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ClassAdRequestError);
        expect((thrown as ClassAdRequestError).code).toBe(we.code);
        if (we.field !== undefined) expect((thrown as ClassAdRequestError).field).toBe(we.field);
        return;
      }
      if (!compiled.ok) throw new Error(`policy does not compile: ${JSON.stringify(compiled.error)}`);
      const policy: MatchPolicy = matchEngine.load(JSON.parse(JSON.stringify(compiled.value)));
      const want = MatchWant.parse(c.value.want);
      const input = c.value.input as Record<string, unknown>;
      const d =
        "kind" in input
          ? decideAdCheck(policy, AdCheckRequest.parse(input), ctx)
          : decideMatch(policy, MatchRequest.parse(input), ctx);
      const got: Record<string, unknown> = { ...d.verdict, cacheable: d.cacheable, outcome: d.outcome };
      if ("machines" in d.verdict) got.matched = d.verdict.machines.filter((m) => m.match).map((m) => m.name);
      for (const [k, v] of Object.entries(want)) expect(got[k], k).toEqual(v);
      if ("kind" in input) return;
      // every match case, asked for its best 1, 2 and 2,000: what its full answer implies
      const { best: given, ...rest } = MatchRequest.parse(input);
      const full = given === undefined ? d : decideMatch(policy, rest, ctx);
      for (const n of [1, 2, 2000]) {
        const b = decideMatch(policy, { ...rest, best: n }, ctx);
        expect(b.verdict, `best ${n}`).toEqual(impliedBest(full.verdict as MatchAnswer, n));
        expect([b.outcome, b.cacheable], `best ${n}`).toEqual([full.outcome, full.cacheable]);
      }
    });
  }
});
