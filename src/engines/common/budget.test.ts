import { describe, expect, it } from "vitest";
import {
  Budget,
  BudgetExceeded,
  currentBudget,
  DEFAULT_DECISION_BUDGET,
  decisionBudget,
  spend,
  trySpend,
  UNLIMITED,
} from "./budget.js";

describe("the decision work budget", () => {
  it("is unlimited outside any decision", () => {
    expect(currentBudget()).toBe(UNLIMITED);
    expect(trySpend(1e12)).toBe(true);
  });

  it("charges the budget made current by run, and restores the previous one after it", () => {
    const outer = new Budget(100);
    const inner = new Budget(10);
    outer.run(() => {
      spend(40);
      inner.run(() => {
        expect(currentBudget()).toBe(inner);
        spend(10);
        expect(trySpend(1)).toBe(false);
      });
      expect(currentBudget()).toBe(outer);
      spend(60);
    });
    expect(outer.used).toBe(100);
    expect(outer.exhausted()).toBe(false);
    expect(inner.exhausted()).toBe(true);
    expect(inner.remaining()).toBe(0);
    expect(currentBudget()).toBe(UNLIMITED);
  });

  it("throws BudgetExceeded from spend once the limit is passed, even out of a nested run", () => {
    const b = new Budget(5);
    expect(() => b.run(() => spend(6))).toThrow(BudgetExceeded);
    expect(currentBudget()).toBe(UNLIMITED);
  });

  it("reads DECISION_BUDGET, falling back to the default for a missing or meaningless setting", () => {
    expect(decisionBudget("1234").limit).toBe(1234);
    for (const bad of [undefined, "", "zero", "-5", "0"])
      expect(decisionBudget(bad).limit).toBe(DEFAULT_DECISION_BUDGET);
  });
});
