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

  it("charges eval() the parse of its string, by length (issue 24 item 4)", () => {
    const text = Array(300).fill("1").join(" + ");
    const b = new Budget(1e9);
    const d = b.run(() => decideMatch(null, { job: `[ s = "${text}"; Requirements = eval(strcat(s, " + 0")) > 0 ]`, machines: machines.slice(0, 1) }, ctx));
    expect(d.outcome).toBe("matched");
    expect(b.used).toBeGreaterThan(4 * text.length);
  });

  it("ends a string that evals itself twice with the budget, not the stack (issue 24 item 4)", () => {
    const b = new Budget(400_000);
    const d = b.run(() => decideMatch(null, { job: '[ s = "eval(s) + eval(s)"; Requirements = eval(s) > 0 ]', machines: machines.slice(0, 1) }, ctx));
    expect(d.outcome).toBe("budget_exceeded");
    const deep = new Budget(400_000);
    const e = deep.run(() => decideMatch(null, { job: `[ s = "eval(s)${" + 1".repeat(380)}"; Requirements = eval(s) > 0 ]`, machines: machines.slice(0, 1) }, ctx));
    expect(e.verdict.best).toBeNull();
  });

  it("ends a 199-deep chain of 380-level expressions with ERROR, not a stack overflow", () => {
    const chain = Array.from({ length: 199 }, (_, i) => `c${i} = c${i + 1}${" + 1".repeat(380)}`).join("; ");
    const b = new Budget(400_000);
    const d = b.run(() => decideMatch(null, { job: `[ Requirements = c0 > 0; ${chain}; c199 = 1 ]`, machines: machines.slice(0, 2) }, ctx));
    expect(d.verdict.best).toBeNull();
    // a shallow chain of the same expressions still evaluates
    const short = Array.from({ length: 5 }, (_, i) => `c${i} = c${i + 1}${" + 1".repeat(380)}`).join("; ");
    const ok = b.run(() => decideMatch(null, { job: `[ Requirements = c0 > 0; ${short}; c5 = 1 ]`, machines: machines.slice(0, 2) }, ctx));
    expect(ok.outcome).toBe("matched");
  });

  it("charges regexp() the compiles of the patterns an ad brings (issue 24 item 3)", () => {
    const b = new Budget(400_000);
    const terms = Array.from({ length: 20 }, (_, i) => `regexp("(a{1000}){49}t${i}${Date.now()}", "aaa")`).join(" || ");
    const d = b.run(() => decideMatch(null, { job: `[ Requirements = ${terms} ]`, machines: machines.slice(0, 1) }, ctx));
    expect(d.outcome).toBe("budget_exceeded");
    expect(b.regexCompiles).toBeLessThanOrEqual(3);
  });
});
