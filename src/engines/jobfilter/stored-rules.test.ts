import { describe, expect, it } from "vitest";
import { restoreRules, storeRules } from "./stored-rules.js";
import type { FilterRule } from "./types.js";

const big = 2n ** 63n - 1n;

function rule(i: number, value: number | bigint): FilterRule {
  return {
    uuid: `30000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
    watermark: typeof value === "bigint" ? value : 100,
    priority: i,
    predicates: [["opcode", ["&", ["==", "beparams.memory", value], ["=~", "instance_name", `^db${i}\\.`]]]],
    action: ["RATE_LIMIT", 3],
    reason_trail: [["gnt:user", "ticket", typeof value === "bigint" ? value : 5]],
  } as FilterRule;
}

describe("the bundle's form of filter rules", () => {
  it("gives back every rule through JSON, integers past 2^53 as bigints with their digits", () => {
    const rules = [rule(0, 7), rule(1, big), rule(2, 2n ** 60n + 1n), rule(3, -4)];
    const back = restoreRules(JSON.parse(JSON.stringify(storeRules(rules))));
    expect(back).toEqual(rules);
    expect(back[1].watermark).toBe(big);
    expect((back[2].predicates[0][1] as unknown[])[1]).toEqual(["==", "beparams.memory", 2n ** 60n + 1n]);
  });

  it("copies only the parts that held a tagged integer", () => {
    const stored = JSON.parse(JSON.stringify(storeRules([rule(0, 7), rule(1, big)]))) as Record<
      string,
      unknown
    >[];
    const back = restoreRules(stored) as unknown as Record<string, unknown>[];
    expect(back[0]).toBe(stored[0]);
    expect(back[1]).not.toBe(stored[1]);
    expect(back[1].action).toBe(stored[1].action);
    expect(stored[1].watermark).toEqual({ $int: big.toString() });
  });
});
