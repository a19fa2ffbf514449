import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { allPartsValid, isQueueNameValid, parseGoBoolTrue, QUEUE_NAME_RE, replaceDot } from "./names.js";

describe("queue names", () => {
  it("the character loop agrees with YuniKorn's pattern", () => {
    const chars = fc.constantFrom(..."aZ09_:#/@-. !$%^&*()+=[]{}|\\\"'~`é;,<>?".split(""));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 70 }), (cs) => {
        const name = cs.join("");
        expect(isQueueNameValid(name)).toBe(QUEUE_NAME_RE.test(name));
      }),
    );
    expect(isQueueNameValid("a".repeat(64))).toBe(true);
    expect(isQueueNameValid("a".repeat(65))).toBe(false);
    expect(isQueueNameValid("")).toBe(false);
  });

  it("replaces every dot, including runs", () => {
    expect(replaceDot("a...b")).toBe("a_dot__dot__dot_b");
    expect(replaceDot("plain")).toBe("plain");
  });

  it("checks every level of a path", () => {
    expect(allPartsValid("root.a.b")).toBe(true);
    expect(allPartsValid("root..b")).toBe(false);
    expect(allPartsValid("root.a.")).toBe(false);
  });

  it("accepts exactly Go's true spellings for the force tag", () => {
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) expect(parseGoBoolTrue(t)).toBe(true);
    for (const f of ["yes", "on", "tRUE", "", "0", undefined]) expect(parseGoBoolTrue(f)).toBe(false);
  });
});
