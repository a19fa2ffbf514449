import { describe, expect, it } from "vitest";
import { describeDifference, differences } from "./test-expect.js";

const fields = (expected: unknown, actual: unknown) => differences(expected, actual).map((d) => d.field);

describe("differences", () => {
  it("matches objects key by key, ignoring fields not named", () => {
    expect(differences({ queue: "root.a" }, { queue: "root.a", create: true })).toEqual([]);
    expect(
      fields({ queue: "root.b", rule: { index: 1 } }, { queue: "root.a", rule: { index: 0, name: "x" } }),
    ).toEqual(["queue", "rule.index"]);
  });

  it("tells a missing field from a null one", () => {
    expect(differences({ reason: null }, {})).toEqual([
      { field: "reason", expected: "null", actual: undefined },
    ]);
    expect(describeDifference(differences({ reason: "x" }, {})[0])).toBe('reason: expected "x", got nothing');
  });

  it("matches lists item by item, with equal lengths", () => {
    expect(differences([{ name: "a" }, { name: "b" }], [{ name: "a", x: 1 }, { name: "b" }])).toEqual([]);
    expect(fields([1, 2], [1, 3])).toEqual(["[1]"]);
    expect(fields([1], [1, 2])).toEqual([""]);
  });

  it("compares scalars strictly", () => {
    expect(fields(1, "1")).toEqual([""]);
    expect(fields(false, null)).toEqual([""]);
    expect(differences(0, -0)).toEqual([]);
  });

  it("`contains` asks for a substring of text, or a list item holding the text or matching the value", () => {
    expect(differences({ contains: "FAIL" }, "Application FAILS")).toEqual([]);
    expect(fields({ contains: "PASS" }, "Application FAILS")).toEqual([""]);
    expect(differences({ contains: "reason=X" }, ["t0 Rejected reason=X", "t1 Matched"])).toEqual([]);
    expect(differences({ contains: { name: "b" } }, [{ name: "a" }, { name: "b", rank: 1 }])).toEqual([]);
    expect(differences({ contains: [1, 2] }, [[1, 2], [3]])).toEqual([]);
    expect(differences({ contains: ["Hints", "FAILS"] }, "Hints:\nApplication FAILS")).toEqual([]);
  });

  it("`line` asks for a line equal to it, outer spaces aside, each of a list", () => {
    expect(differences({ line: "Application FAILS" }, "Hints:\n  Application FAILS\nend")).toEqual([]);
    expect(fields({ line: "Application" }, "Hints:\n  Application FAILS")).toEqual([""]);
    expect(differences({ line: ["a", "b"] }, "a\nc")).toEqual([
      { field: "", expected: 'a line "b"', actual: "a\nc" },
    ]);
  });

  it("`matches` asks for a regular expression, and a bad one is a difference, not a crash", () => {
    expect(differences({ matches: "^Priority set to .* 0$" }, "x\nPriority set to default of 0")).toEqual([]);
    expect(fields({ matches: "(" }, "x")).toEqual([""]);
  });

  it("treats a one-key object as a matcher only against text and lists", () => {
    expect(differences({ contains: 1 }, { contains: 1, other: 2 })).toEqual([]);
    expect(fields({ line: "x" }, 5)).toEqual([""]);
  });
});
