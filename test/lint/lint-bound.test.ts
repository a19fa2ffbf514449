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

describe("placement's unreachable-queue check walks each distinct rule pattern once", () => {
  it("2,000 rules under one parent and 100 leaf queues finish within a bound the check by rule spent", () => {
    const rule = (i: number) =>
      `{name: user, create: true, filter: {type: allow, users: ["^.*-t${i}[a-z]+$"], groups: [g${i}, h${i}]}, parent: {name: fixed, value: users}}`;
    const queues = Array.from({ length: 100 }, (_, i) => `          - {name: q${i}, submitacl: "*"}`);
    const source = [
      "partitions:",
      "  - name: default",
      "    placementrules:",
      ...Array.from({ length: 2_000 }, (_, i) => `      - ${rule(i)}`),
      "    queues:",
      "      - name: root",
      "        queues:",
      ...queues,
    ].join("\n");
    // the 2,000 rules draw one pattern, root.users.*, which none of the queues fits; each queue
    // was checked against all 2,000 copies (charged 2,000 units), which spent this bound first:
    // about 1,000,000 units were needed before, 800,000 now
    const r = lintSource("placement", source, { work: 900_000 });
    if (!r.ok) throw new Error(r.error[0].message);
    expect(r.value.some((f) => f.code === "lint_incomplete")).toBe(false);
    expect(r.value.filter((f) => f.code === "placement_unreachable_queue")).toHaveLength(100);
  });
});
