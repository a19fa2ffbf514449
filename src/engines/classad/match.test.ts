import { describe, expect, it } from "vitest";
import { ClassAdRequestError, decideAdCheck, decideMatch, parseMatchRequest } from "./match.js";
import { compileMatchPolicy, loadMatchPolicy } from "./policy.js";

const ctx = { now: Date.UTC(2024, 0, 1), random: () => 0.5 };

function policy(src: string) {
  const c = compileMatchPolicy(src);
  if (!c.ok) throw new Error(JSON.stringify(c.error));
  return loadMatchPolicy(JSON.parse(JSON.stringify(c.value)));
}

describe("match decisions", () => {
  it("builds the trace only when explain is asked for", () => {
    const p = policy("NEGOTIATOR_PE_JOB_EXPR = TARGET.Memory > 1");
    const req = { job: "Requirements = true", machines: ['[Name = "a"; Memory = 2; Requirements = true]'] };
    expect(decideMatch(p, req, ctx).trace).toBeUndefined();
    const d = decideMatch(p, req, { ...ctx, explain: true });
    expect(d.trace).toMatchObject({ pairs: [{ machine: "a", job_expr: "true", match: true }] });
  });
  it("reads request ads as a Result naming the bad field", () => {
    const r = parseMatchRequest({ job: "[]", machines: ["[]", "[a = ]"] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.field).toBe("machines[1]");
    expect(() => decideAdCheck(null, { kind: "job", ad: "a = (" }, ctx)).toThrow(ClassAdRequestError);
  });
  it("marks verdicts that read the clock or drew random numbers as not cacheable", () => {
    const p = policy("NEGOTIATOR_PE_STARTD_ONLY_EXPR = random(2) > 5");
    expect(decideAdCheck(p, { kind: "startd", ad: "[]" }, ctx).cacheable).toBe(false);
    expect(decideAdCheck(p, { kind: "job", ad: "[]" }, ctx).cacheable).toBe(true);
  });
  it("works with no policy loaded", () => {
    const d = decideMatch(
      null,
      { job: "Requirements = true\nRank = 2", machines: ["[Requirements = true]"] },
      ctx,
    );
    expect(d.verdict.best).toBe(0);
    expect(d.verdict.machines[0].rank).toBe(2);
  });
});
