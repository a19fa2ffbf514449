/**
 * Bounded work in placement decisions (issue 24): filter expressions are
 * compiled the first time a decision tests them, and that compile is charged
 * to the decision's work budget; expressions that match only a few whole texts
 * (`^(u1|v1)$`) are stored with those texts at publish and never compiled.
 * Found in session 37: the first decision over 9,000 such literal-free
 * expressions compiled all 9,000, uncharged (about 480 ms CPU in node). The
 * CPU figures are in `npm run bench:hostile` (placement rules tables), not here.
 */
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded, DEFAULT_DECISION_BUDGET } from "../../src/engines/common/budget.js";
import { policyCompileCharge } from "../../src/engines/common/regex/lazy.js";
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { LazyChain } from "../../src/engines/placement/rule-chain.js";
import { storePlacement } from "../../src/engines/placement/store.js";
import type {
  PlacementData,
  PlacementPolicy,
  PlacementRequest,
  RuleData,
} from "../../src/engines/placement/types.js";
import { placementWithRules } from "../../bench/fixtures.js";

/** A policy of `n` rules placing in root.u.q<i> when the user's name passes rule i's expression, loaded from its stored form as KV gives it back. */
function policyOf(n: number, expression: (i: number) => string): PlacementPolicy {
  const c = compilePlacement(
    placementWithRules(
      n,
      (i) =>
        `{name: fixed, value: root.u.q${i}, create: true, filter: {type: allow, users: ["${expression(i)}"]}}`,
      ['{name: u, parent: true, submitacl: "*"}'],
    ),
  );
  if (!c.ok) throw new Error(JSON.stringify(c.error[0]));
  return loadPlacement(JSON.parse(JSON.stringify(storePlacement(c.value))));
}

function chainOf(p: PlacementPolicy): LazyChain {
  return p.partitions.get("default")!.rules as LazyChain;
}

/** The verdict's queue under a fresh default budget, or "budget" when the decision spent it. */
function placeWithin(
  policy: PlacementPolicy,
  request: PlacementRequest,
  budget = new Budget(DEFAULT_DECISION_BUDGET),
): string | null {
  try {
    return budget.run(() => decidePlacement(policy, request, { explain: false }).verdict.queue);
  } catch (e) {
    if (e instanceof BudgetExceeded) return "budget";
    throw e;
  }
}

describe("placement: bounded work on the first decision (issue 24)", () => {
  it("answers the first decision over 9,000 literal-free expressions of a few whole texts without building their rules", () => {
    const policy = policyOf(9_000, (i) => `^(u${i}|v${i})$`);
    expect(placeWithin(policy, { user: "carol", groups: ["staff"] })).toBe("root.default");
    // the expressions' texts are indexed as names are: no rule was reached, none compiled
    expect(chainOf(policy).built).toBe(1);
    expect(placeWithin(policy, { user: "u4242" })).toBe("root.u.q4242");
    expect(placeWithin(policy, { user: "v17" })).toBe("root.u.q17");
    expect(placeWithin(policy, { user: "u4242x" })).toBe("root.default");
    expect(placeWithin(policy, { user: "u1", groups: [] })).toBe("root.u.q1");
    expect(chainOf(policy).built).toBe(4);
    // the explained walk tests every expression, by its texts
    const explained = new Budget(DEFAULT_DECISION_BUDGET);
    expect(
      explained.run(() => decidePlacement(policy, { user: "v8999" }, { explain: true }).verdict.queue),
    ).toBe("root.u.q8999");
    expect(explained.used).toBeLessThan(9_000 * policyCompileCharge("^(u1|v1)$"));
  }, 60_000);

  it("charges each expression's first compile to the decision: thousands no gate skips end with the budget error, and later decisions go on", () => {
    const n = 2_000;
    const policy = policyOf(n, (i) => `^(u${i}|v${i})+$`);
    // nothing is compiled at load; the first decision would compile all 2,000, past its budget
    expect(placeWithin(policy, { user: "carol" })).toBe("budget");
    const each = policyCompileCharge("^(u1000|v1000)+$");
    expect(n * each).toBeGreaterThan(DEFAULT_DECISION_BUDGET);
    // what one decision compiled is kept: the next ones go on where it stopped, and one answers
    let decisions = 1;
    let queue = placeWithin(policy, { user: "carol" });
    for (; queue === "budget" && decisions < 40; decisions++) queue = placeWithin(policy, { user: "carol" });
    expect(queue).toBe("root.default");
    expect(decisions).toBeGreaterThan(1);
    expect(decisions).toBeLessThanOrEqual(Math.ceil((n * each) / DEFAULT_DECISION_BUDGET) + 1);
    // compiled, a decision pays only its matching, a small part of what compiling them all cost
    const later = new Budget(DEFAULT_DECISION_BUDGET);
    expect(placeWithin(policy, { user: "u1999u1999" }, later)).toBe("root.u.q1999");
    expect(later.used).toBeLessThan((n * each) / 10);
  }, 60_000);

  it("loads bundles made before the whole texts were stored (plain data, and columns without them), compiling those expressions when tested", () => {
    const c = compilePlacement(
      placementWithRules(
        200,
        (i) =>
          `{name: fixed, value: root.u.q${i}, create: true, filter: {type: allow, users: ["^(u${i}|v${i})$"]}}`,
        ['{name: u, parent: true, submitacl: "*"}'],
      ),
    );
    if (!c.ok) throw new Error(JSON.stringify(c.error[0]));
    // the data an older compile made: no whole texts
    const forget = (r: RuleData | null): void => {
      if (r === null) return;
      delete r.filter.userExp?.exact;
      delete r.filter.groupExp?.exact;
      forget(r.parent);
    };
    const old: PlacementData = JSON.parse(JSON.stringify(c.value));
    for (const p of old.partitions) p.rules.forEach(forget);
    const columns = JSON.parse(JSON.stringify(storePlacement(old)));
    for (const p of columns.partitions) {
      delete p.exps.exactAt;
      delete p.exps.exactCount;
      delete p.exps.exact;
    }
    for (const policy of [loadPlacement(old), loadPlacement(columns)]) {
      const budget = new Budget(DEFAULT_DECISION_BUDGET);
      expect(placeWithin(policy, { user: "carol" }, budget)).toBe("root.default");
      // no gate skips them there: each is compiled, and charged, when tested
      expect(budget.used).toBeGreaterThan(200 * policyCompileCharge("^(u1|v1)$"));
      expect(placeWithin(policy, { user: "u142" })).toBe("root.u.q142");
      expect(placeWithin(policy, { user: "v7" })).toBe("root.u.q7");
    }
  });
});
