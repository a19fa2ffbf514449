import { describe, expect, it } from "vitest";
import { compileJq } from "../../jq/index.js";
import type { Json } from "../common/json.js";
import { harvestJq, type PathValues } from "./diff-jq-literals.js";

function harvested(script: string): Json[] {
  const out: PathValues = new Map();
  expect(harvestJq({ script }, out)).toBe(true);
  return [...out.values()].find((e) => e.path.join(".") === "test.spec.dest")?.values ?? [];
}

/** What our jq (jq 1.7.1's dialect) answers for `test(pattern)` on each value. */
function jqTests(pattern: string, values: Json[]): boolean[] {
  const p = compileJq(`map(test(${JSON.stringify(pattern)}))`);
  if (!p.ok) throw new Error(p.error[0].message);
  return p.value.first(values) as boolean[];
}

describe("the limits diff's jq witnesses", () => {
  it("are one text the script's `test` accepts and one it refuses, in jq's dialect (\\A: the start of the text)", () => {
    // a JavaScript RegExp reads \A as the letter A, so it accepted none of the candidates
    const pattern = "\\Ax";
    const values = harvested(`.test.spec.dest | test(${JSON.stringify(pattern)})`);
    expect(jqTests(pattern, values).sort()).toEqual([false, true]);
  });

  it("test a backtracking-catastrophic pattern's candidates on the linear engine", () => {
    // its own long literal run is a candidate, on which a backtracking engine tries 2^34 ways of `(a|a)*c` first
    const pattern = `(a|a)*c|${"a".repeat(34)}b`;
    const values = harvested(`.test.spec.dest | test(${JSON.stringify(pattern)})`);
    expect(jqTests(pattern, values).sort()).toEqual([false, true]);
  });
});
