/**
 * Bounded work in jobfilter loads and decisions (issue 24): a rule's `=~`
 * pattern is checked when the rule is validated and compiled the first time a
 * decision tests it, charged to that decision's work budget; plain-text
 * patterns (most rules' `^db1\.`) are never compiled. Found in session 37:
 * loading a filters.json of 4,000 rules (bench/fixtures.ts chain(4000)) compiled
 * every pattern in one piece, about 120 ms in node. The CPU figures are in
 * `npx tsx bench/jobfilter.ts`, not here.
 */
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded, DEFAULT_DECISION_BUDGET } from "../../src/engines/common/budget.js";
import { policyCompileCharge } from "../../src/engines/common/regex/lazy.js";
import { compileFilters, loadFilters } from "../../src/engines/jobfilter/policy.js";
import { decideJob } from "../../src/engines/jobfilter/schedule.js";
import { compileRegex } from "../../src/engines/jobfilter/expression.js";
import { restoreRules, storeRules } from "../../src/engines/jobfilter/stored-rules.js";
import type { FilterRule, Job } from "../../src/engines/jobfilter/types.js";
import { chain } from "../../bench/fixtures.js";

/** `n` REJECT rules, rule i matching instances the pattern `pattern(i)` finds. */
function patternRules(n: number, pattern: (i: number) => string): FilterRule[] {
  return Array.from({ length: n }, (_, i) => ({
    uuid: `10000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
    watermark: 100,
    priority: i,
    predicates: [["opcode", ["=~", "instance_name", pattern(i)]]],
    action: "REJECT",
    reason_trail: [],
  })) as FilterRule[];
}

function job(instance: string): Job {
  return { id: 200, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", instance_name: instance }] } as Job;
}

/** The applying rule's action for the job under `budget`, or "budget" when the decision spent it. */
function decideWithin(
  rules: FilterRule[],
  j: Job,
  budget: Budget,
  policy = loadFilters(restoreRules(storeRules(rules))),
): string {
  try {
    return budget.run(() => decideJob(policy.set, j, { running: [], queued: [] }).action);
  } catch (e) {
    if (e instanceof BudgetExceeded) return "budget";
    throw e;
  }
}

describe("jobfilter: bounded work in loads and decisions (issue 24)", () => {
  it("loads 4,000 rules compiling no pattern: the first decision that tests one pays for compiling it", () => {
    const rules = [...chain(4_000).slice(0, -1), ...patternRules(50, (i) => `^(db|web)${i}[0-9]+\\.`)];
    const policy = loadFilters(restoreRules(storeRules(rules)));
    const first = new Budget(DEFAULT_DECISION_BUDGET);
    // the job passes every rule of the chain and every pattern rule: each of the 50 patterns is tested once
    expect(decideWithin(rules, job("mail7.example"), first, policy)).toBe("ACCEPT");
    expect(first.used).toBeGreaterThanOrEqual(50 * policyCompileCharge("^(db|web)0[0-9]+\\."));
    // compiled once: the next decision pays only its matching
    const second = new Budget(DEFAULT_DECISION_BUDGET);
    expect(decideWithin(rules, job("web37123.example"), second, policy)).toBe("REJECT");
    expect(second.used).toBeLessThan(policyCompileCharge("^(db|web)0[0-9]+\\."));
    // the chain's own patterns are plain text (`^db12\.`, `ticket 13$`), tested with string methods, never compiled
    const plain = new Budget(DEFAULT_DECISION_BUDGET);
    expect(decideWithin(chain(4_000), job("mail7.example"), plain)).toBe("ACCEPT");
    expect(plain.used).toBeLessThan(policyCompileCharge("^db1\\."));
  }, 60_000);

  it("ends a decision that would compile thousands of patterns with the budget error; later decisions go on where it stopped", () => {
    const n = 2_000;
    const rules = patternRules(n, (i) => `^(db|web)${i}[0-9]+\\.`);
    const policy = loadFilters(restoreRules(storeRules(rules)));
    expect(n * policyCompileCharge("^(db|web)1000[0-9]+\\.")).toBeGreaterThan(DEFAULT_DECISION_BUDGET);
    expect(decideWithin(rules, job("mail7.example"), new Budget(DEFAULT_DECISION_BUDGET), policy)).toBe(
      "budget",
    );
    let action = "budget";
    let decisions = 1;
    for (; action === "budget" && decisions < 20; decisions++)
      action = decideWithin(rules, job("mail7.example"), new Budget(DEFAULT_DECISION_BUDGET), policy);
    expect(action).toBe("ACCEPT");
    expect(decisions).toBeGreaterThan(2);
  }, 60_000);

  it("refuses at validation the patterns it refused when it compiled them, with the same text", () => {
    const patterns = [
      "(a",
      "a)",
      "[z-a]",
      "(a)\\1",
      "(?=x)",
      "a{2,1}",
      "\\",
      "x**",
      "(?<n>a)(?<n>b)",
      "^db1\\.",
      "a|b",
      "\\p{Zzz}",
    ];
    let refused = 0;
    for (const p of patterns) {
      const compiled = compileRegex(p);
      if (!compiled.ok) refused++;
      const source = JSON.stringify([
        {
          uuid: "20000000-0000-4000-8000-000000000000",
          watermark: 1,
          priority: 0,
          predicates: [["opcode", ["=~", "instance_name", p]]],
          action: "REJECT",
          reason_trail: [],
        },
      ]);
      const validated = compileFilters(source);
      expect(validated.ok, p).toBe(compiled.ok);
      if (!validated.ok && !compiled.ok)
        expect(
          validated.error.map((e) => e.message),
          p,
        ).toContain(compiled.error);
    }
    expect(refused).toBeGreaterThan(6);
  });
});
