import { describe, expect, it } from "vitest";
import { Budget, BUDGET_EXCEEDED_MESSAGE } from "../engines/common/budget.js";
import { BUDGET_MESSAGE, compileJq } from "./index.js";

function program(src: string) {
  const c = compileJq(src);
  if (!c.ok) throw new Error(c.error[0].message);
  return c.value;
}

/** Runs `src` under a fresh decision budget of `limit` units; returns the result and the units used. */
function within(limit: number, src: string, input: unknown = null) {
  const b = new Budget(limit);
  const r = b.run(() => program(src).run(input as never));
  return { r, used: b.used };
}

describe("jq charges the decision's work budget by the size of what it builds", () => {
  it("counts elements built, not steps: an array of n elements costs at least n", () => {
    expect(within(1e9, "[range(1000)] | length").used).toBeGreaterThanOrEqual(1000);
    expect(within(1e9, "[range(10)] + [range(1000)] | length").used).toBeGreaterThanOrEqual(1010);
    expect(within(1e9, '"x" * 5000 | length').used).toBeGreaterThanOrEqual(5000);
    expect(within(1e9, "[range(2000)] | tostring | length").used).toBeGreaterThanOrEqual(2000 * 3);
  });

  it("ends doubling, huge builds and object copies with budget_exceeded, quickly", () => {
    for (const src of [
      "reduce range(40) as $i ([1]; .+.)",
      '[range(1e6)] | length',
      'reduce range(40) as $i ("ab"; . + .) | length',
      "reduce range(1e5) as $i ({}; .[$i | tostring] = $i) | length",
      "[(.a, .b) = range(1e400)] | length",
      "[range(3000)] as $a | $a - $a",
    ]) {
      const { r } = within(100_000, src, {});
      expect(r.error, src).toBe(BUDGET_EXCEEDED_MESSAGE);
    }
  });

  it("leaves programs within the budget alone, and try cannot catch a spent budget", () => {
    expect(within(100_000, "[range(100)] | add").r.outputs).toEqual([4950]);
    expect(within(1000, "try ([range(1e6)] | length) catch 0").r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("shares one budget between the runs of a decision", () => {
    const b = new Budget(15_000);
    const p = program("[range(3000)] | length");
    const first = b.run(() => p.run(null));
    const second = b.run(() => p.run(null));
    expect(first.outputs).toEqual([3000]);
    expect(second.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("keeps its own step budget and message outside a decision", () => {
    expect(program("[range(1e6)] | length").run(null, { maxSteps: 1000 }).error).toBe(BUDGET_MESSAGE);
    expect(program("reduce range(40) as $i ([1]; .+.)").run(null).error).toBe(BUDGET_MESSAGE);
  });
});
