/**
 * The work bound of lint: checks over pairs stop when it is spent and say so
 * (`lint_incomplete`) instead of running on, whatever the policy's size.
 */
import { describe, expect, it } from "vitest";
import { lintSource } from "../../src/bundle/lint.js";

/** Filter rules that all share their first predicate: each is compared with every earlier one. */
function sharedFirstPredicate(n: number): string {
  const rules = Array.from({ length: n }, (_, i) => ({
    priority: i,
    predicates: [
      ["opcode", ["=", "OP_ID", "OP_X"]],
      ["jobid", [">", "id", i]],
    ],
    action: "PAUSE",
  }));
  return JSON.stringify(rules);
}

describe("lint's work bound", () => {
  it("stops the pairwise shadowing check of a large rule set and reports it", () => {
    const r = lintSource("jobfilter", sharedFirstPredicate(3_000), { work: 200_000 });
    expect(r.ok && r.value.map((f) => f.code)).toEqual(["lint_incomplete"]);
  });

  it("finishes the same check within the default bound on a smaller set", () => {
    const r = lintSource("jobfilter", sharedFirstPredicate(200));
    expect(r.ok && r.value).toEqual([]);
  });
});
