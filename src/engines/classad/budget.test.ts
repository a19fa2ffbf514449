import { describe, expect, it } from "vitest";
import { Budget, BUDGET_EXCEEDED_MESSAGE } from "../common/budget.js";
import { decideAdCheck, decideMatch } from "./index.js";

const ctx = { now: Date.UTC(2026, 0, 1), random: () => 0.5 };
const machines = Array.from({ length: 50 }, (_, i) => `[ Name = "m${i}"; Requirements = true ]`);
/** 2^40 lookups without a budget: each attribute refers twice to the next. */
const doubling = `[ Requirements = a0 > 0; ${Array.from({ length: 40 }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ")}; a40 = 1 ]`;

describe("ClassAd evaluation charges the decision's work budget", () => {
  it("turns the evaluations past a spent budget into ERROR, and says so in the log and the outcome", () => {
    const b = new Budget(50_000);
    const d = b.run(() => decideMatch(null, { job: doubling, machines }, ctx));
    expect(d.outcome).toBe("budget_exceeded");
    expect(d.verdict.best).toBeNull();
    expect(d.verdict.log.at(-1)).toContain(BUDGET_EXCEEDED_MESSAGE);
    expect(b.exhausted()).toBe(true);
  });

  it("charges the strings an ad reads and builds by their length", () => {
    const b = new Budget(1e9);
    b.run(() => decideAdCheck(null, { kind: "job", ad: `[ s = "${"x".repeat(10_000)}"; t = strcat(s, s) ]` }, ctx));
    const d = b.run(() => decideMatch(null, { job: `[ s = "${"x".repeat(10_000)}"; Requirements = size(strcat(s, s)) > 0 ]`, machines: machines.slice(0, 1) }, ctx));
    expect(d.outcome).toBe("matched");
    expect(b.used).toBeGreaterThan(40_000);
  });

  it("decides ordinary matches well within the default budget", () => {
    const b = new Budget(400_000);
    const d = b.run(() => decideMatch(null, { job: "[ Requirements = TARGET.Memory > 1; Rank = TARGET.Memory ]", machines: machines.map((m, i) => m.replace("]", `; Memory = ${i} ]`)) }, ctx));
    expect(d.outcome).toBe("matched");
    expect(b.exhausted()).toBe(false);
  });
});
