import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded } from "../common/budget.js";
import { analyzeMatch, decideMatch } from "./index.js";

const ctx = { now: Date.UTC(2026, 0, 1), random: () => 0.5 };
const machines = Array.from(
  { length: 2000 },
  (_, i) => `[ Name = "m${i}"; Memory = ${i}; Requirements = true ]`,
);

describe("the match analysis charges the decision's work budget", () => {
  it("analyses an ordinary pool of 2,000 machines within the default budget", () => {
    const b = new Budget(400_000);
    const job =
      "[ RequestMemory = 1500; Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Memory < 1900) ]";
    const d = b.run(() => analyzeMatch(null, { job, machines }, ctx));
    expect(d.verdict.machines.matching).toBe(400);
    expect(d.verdict.clauses.map((c) => c.matches)).toEqual([500, 1900]);
    expect(b.exhausted()).toBe(false);
  });

  it("stops with BudgetExceeded rather than answer partial counts", () => {
    const b = new Budget(20_000);
    const job = "[ Requirements = (TARGET.Memory >= 1) && (TARGET.Memory < 1900) ]";
    expect(() => b.run(() => analyzeMatch(null, { job, machines }, ctx))).toThrow(BudgetExceeded);
    expect(b.exhausted()).toBe(true);
  });

  it("charges each conjunct it evaluates, also one that reads nothing (a literal), beyond what deciding costs", () => {
    // 300 conjuncts of `true` against 2,000 machines: 600,000 evaluations that look nothing up
    const job = `[ Requirements = ${Array(300).fill("true").join(" && ")} ]`;
    const decided = new Budget(1e9);
    decided.run(() => decideMatch(null, { job, machines }, ctx));
    const analysed = new Budget(1e9);
    analysed.run(() => analyzeMatch(null, { job, machines }, ctx));
    expect(analysed.used - decided.used).toBeGreaterThanOrEqual(250 * 2000);
    expect(() => new Budget(400_000).run(() => analyzeMatch(null, { job, machines }, ctx))).toThrow(
      BudgetExceeded,
    );
  });

  it("costs about what deciding costs, per conjunct evaluated, not more than a few times it", () => {
    const job =
      "[ RequestMemory = 1500; Requirements = (TARGET.Memory >= RequestMemory) && (TARGET.Memory < 1900) ]";
    const decided = new Budget(1e9);
    decided.run(() => decideMatch(null, { job, machines }, ctx));
    const analysed = new Budget(1e9);
    analysed.run(() => analyzeMatch(null, { job, machines }, ctx));
    expect(analysed.used).toBeGreaterThan(decided.used);
    expect(analysed.used).toBeLessThan(8 * decided.used);
  });
});
