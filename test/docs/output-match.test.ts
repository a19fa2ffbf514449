import { describe, expect, it } from "vitest";
import { outputProblems } from "./output-match.js";

describe("outputProblems (the docs test's comparison)", () => {
  it("accepts what only differs in ids, revisions, timestamps and … parts", () => {
    const want = {
      decision_id: "…",
      revision: "…",
      uuid: "c0b4ad0e-5c84-4e3c-9f1c-7b1d3f0c2a11",
      at: "2026-11-22T06:00:00.000Z",
      log: ["… Matched job=#0 machine=slot1"],
      n: 1,
    };
    const got = {
      decision_id: "x",
      revision: "y",
      uuid: "9e3f1b20-0000-4000-8000-000000000001",
      at: "2027-01-01T00:00:00Z",
      log: ["2027-01-01T00:00:00Z Matched job=#0 machine=slot1"],
      n: 1,
    };
    expect(outputProblems(want, got)).toEqual([]);
    expect(
      outputProblems(
        ["2024-01-01T00:00:00.000Z Matched job=#0"],
        ["2026-11-27T02:42:01.767Z Matched job=#0"],
      ),
    ).toEqual([]);
    expect(
      outputProblems(
        ["2024-01-01T00:00:00.000Z Matched job=#0"],
        ["2026-11-27T02:42:01.767Z Matched job=#1"],
      ),
    ).toHaveLength(1);
    expect(outputProblems({ a: 1, "…": "…" }, { a: 1, b: 2 })).toEqual([]);
    expect(outputProblems([1, "…"], [1, 2, 3])).toEqual([]);
  });

  it("names every difference: values, missing and extra keys, lengths", () => {
    expect(outputProblems({ a: 1, b: "x" }, { a: 2, c: true })).toEqual([
      "$.a: docs show 1, got 2",
      "$.b: documented, missing from the answer",
      "$.c: in the answer, not in the docs",
    ]);
    expect(outputProblems([1, 2], [1])).toEqual(["$: docs show 2 items, got 1"]);
    expect(outputProblems("RATE_LIMITED", "ACCEPT")).toEqual(['$: docs show "RATE_LIMITED", got "ACCEPT"']);
  });
});
