import { describe, expect, it } from "vitest";
import { stripExtended } from "./regex-extended.js";

describe("stripExtended", () => {
  it("drops white space and comments outside classes and keeps escapes", () => {
    expect(stripExtended("a b  # a comment\n c")).toBe("abc");
    expect(stripExtended("[ #]x")).toBe("[ #]x");
    expect(stripExtended("\\ a\\#b")).toBe("\\ a\\#b");
    expect(stripExtended("a[\\]] b")).toBe("a[\\]]b");
  });
});
