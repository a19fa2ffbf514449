/**
 * Case-file runner for test/cases/match-analyze: each case analyses a match
 * request under a pool policy (the shipped policies/pool.conf when the case
 * has none) and compares the parts its `want` names. Every case is also held
 * against the match engine itself: the analysis's counts of discarded and
 * matching machines are /v1/match's, and every suggestion that names a job
 * attribute, applied to the job, makes /v1/match match `more` more machines.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  analysisText,
  analyzeMatch,
  ClassAdRequestError,
  decideMatch,
  matchEngine,
  type MatchAnalysis,
  type MatchPolicy,
} from "../../src/engines/classad/index.js";
import { MatchRequest } from "../../src/http/schemas/match.js";
import { loadCases, REPO_ROOT } from "../support/cases.js";

const Counts = z.strictObject({
  total: z.number().int(),
  discarded_by_policy: z.number().int(),
  rejected_by_job: z.number().int(),
  rejecting_job: z.number().int(),
  matching: z.number().int(),
});
const Operand = z.strictObject({
  expr: z.string(),
  value: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  values: z.array(z.strictObject({ value: z.string(), machines: z.number().int() })).optional(),
  distinct: z.number().int().optional(),
});
const Want = z.strictObject({
  outcome: z.string().optional(),
  cacheable: z.boolean().optional(),
  job: z.strictObject({ id: z.string().optional(), discarded: z.boolean().optional() }).optional(),
  schedd: z.strictObject({ discarded: z.boolean() }).optional(),
  machines: Counts.optional(),
  requirements: z.array(z.strictObject({ origin: z.string(), expr: z.string() })).optional(),
  job_attributes: z.array(z.strictObject({ name: z.string(), expr: z.string() })).optional(),
  clauses: z
    .array(
      z.strictObject({
        index: z.number().int().optional(),
        origin: z.string().optional(),
        expr: z.string().optional(),
        matches: z.number().int(),
        values: z.array(Operand).optional(),
      }),
    )
    .optional(),
  machine_side: z
    .array(
      z.strictObject({
        origin: z.string(),
        expr: z.string().optional(),
        machines: z.number().int(),
        names: z.array(z.union([z.string(), z.number()])).optional(),
      }),
    )
    .optional(),
  suggestions: z
    .array(
      z.strictObject({
        kind: z.enum(["blocker", "modify", "discarded"]),
        clause: z.number().int().optional(),
        message: z.string().optional(),
        attribute: z.string().optional(),
        from: z.string().optional(),
        to: z.string().optional(),
        more: z.number().int().optional(),
        most: z.strictObject({ to: z.string(), more: z.number().int() }).optional(),
      }),
    )
    .optional(),
  /** Lines the text form holds, each exactly. */
  text: z.array(z.string()).optional(),
});
const WantError = z.strictObject({ code: z.string(), field: z.string().optional() });

const DEFAULT_POLICY = readFileSync(resolve(REPO_ROOT, "policies/pool.conf"), "utf8");
const ctx = { now: Date.UTC(2024, 0, 1), random: () => 0.5 };

function policyOf(source: unknown): MatchPolicy {
  const compiled = matchEngine.compile(source === undefined ? DEFAULT_POLICY : z.string().parse(source));
  if (!compiled.ok) throw new Error(`policy does not compile: ${JSON.stringify(compiled.error)}`);
  return matchEngine.load(compiled.value);
}

/** A list the analysis gives, compared item by item with the keys the case names (same length). */
function expectItems(got: readonly object[], want: readonly object[], what: string): void {
  expect(got.length, `${what}: ${JSON.stringify(got)}`).toBe(want.length);
  want.forEach((w, i) => expect(got[i], `${what}[${i}]`).toMatchObject(w));
}

/** The job ad with one attribute set (old-syntax text gets a later line, which replaces the earlier one; JSON a key). */
function withAttribute(job: unknown, name: string, value: string): unknown {
  if (typeof job === "string" && !/^\s*[[{]/.test(job)) return `${job}\n${name} = ${value}`;
  if (typeof job === "object" && job !== null) return { ...job, [name]: `/Expr(${value})/` };
  throw new Error("the runner applies suggestions to old-syntax or JSON-object jobs only");
}

const matchedCount = (policy: MatchPolicy, request: MatchRequest) =>
  decideMatch(policy, request, ctx).verdict.machines.filter((m) => m.match).length;

describe("match analysis cases", () => {
  const cases = loadCases("match-analyze");
  it("has at least 15 cases over at least 7 pools", () => expect(cases.length).toBeGreaterThanOrEqual(15));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const policy = policyOf(c.value.policy);
      const request = MatchRequest.parse(c.value.input);
      if (c.value.want_error !== undefined) {
        const we = WantError.parse(c.value.want_error);
        let thrown: unknown = null;
        try {
          analyzeMatch(policy, request, ctx);
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ClassAdRequestError);
        expect((thrown as ClassAdRequestError).code).toBe(we.code);
        if (we.field !== undefined) expect((thrown as ClassAdRequestError).field).toBe(we.field);
        return;
      }
      const want = Want.parse(c.value.want);
      const d = analyzeMatch(policy, request, ctx);
      const a: MatchAnalysis = d.verdict;
      if (want.outcome !== undefined) expect(d.outcome).toBe(want.outcome);
      if (want.cacheable !== undefined) expect(d.cacheable).toBe(want.cacheable);
      if (want.job !== undefined) expect(a.job).toMatchObject(want.job);
      if (want.schedd !== undefined) expect(a.schedd).toEqual(want.schedd);
      if (want.machines !== undefined) expect(a.machines).toEqual(want.machines);
      if (want.requirements !== undefined) expect(a.requirements).toEqual(want.requirements);
      if (want.job_attributes !== undefined) expect(a.job_attributes).toEqual(want.job_attributes);
      if (want.clauses !== undefined) expectItems(a.clauses, want.clauses, "clauses");
      if (want.machine_side !== undefined) expectItems(a.machine_side, want.machine_side, "machine_side");
      if (want.suggestions !== undefined) expectItems(a.suggestions, want.suggestions, "suggestions");
      if (want.text !== undefined) {
        const lines = analysisText(a).split("\n");
        for (const line of want.text)
          expect(lines, `text has ${JSON.stringify(line)}\n${lines.join("\n")}`).toContain(line);
      }

      // the match engine agrees: what it discards and what it matches
      const verdict = decideMatch(policy, request, ctx).verdict;
      expect(a.machines.discarded_by_policy).toBe(verdict.machines.filter((m) => m.discarded).length);
      expect(a.machines.matching).toBe(verdict.machines.filter((m) => m.match).length);
      if (!a.job.discarded && !a.schedd?.discarded) {
        const m = a.machines;
        expect(m.discarded_by_policy + m.rejected_by_job + m.rejecting_job + m.matching).toBe(m.total);
      }
      // and a suggested attribute value, put in the job, matches that many more machines
      for (const s of a.suggestions) {
        if (s.kind !== "modify" || s.attribute === undefined || s.to === undefined) continue;
        for (const [to, more] of [[s.to, s.more], ...(s.most ? [[s.most.to, s.most.more]] : [])] as [
          string,
          number,
        ][]) {
          const changed = { ...request, job: withAttribute(request.job, s.attribute, to) } as MatchRequest;
          expect(matchedCount(policy, changed), `${s.attribute} = ${to}`).toBe(a.machines.matching + more);
        }
      }
    });
  }
});
