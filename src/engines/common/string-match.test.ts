import { describe, expect, it } from "vitest";
import { compileStringMatch, type StringMatchSpec } from "./string-match.js";

function matcher(spec: StringMatchSpec): (v: string) => boolean {
  const m = compileStringMatch(spec);
  if (!m.ok) throw new Error(m.error);
  return m.value;
}

describe("compileStringMatch", () => {
  it("matches exactly, by substring and by unanchored regex", () => {
    expect(matcher({ style: "exact", match: "abc" })("abc")).toBe(true);
    expect(matcher({ style: "exact", match: "abc" })("abcd")).toBe(false);
    expect(matcher({ style: "contains", match: "bc" })("abcd")).toBe(true);
    expect(matcher({ style: "regex", match: "b.c" })("abcd")).toBe(false);
    expect(matcher({ style: "regex", match: "b.d" })("abcd")).toBe(true);
    expect(matcher({ style: "regex", match: "c.$" })("abcd")).toBe(true);
  });
  it("is case-insensitive on request, regexes included", () => {
    expect(matcher({ style: "exact", match: "ABC", "case-insensitive": true })("abc")).toBe(true);
    expect(matcher({ style: "contains", match: "B", "case-insensitive": true })("abc")).toBe(true);
    expect(matcher({ style: "regex", match: "^AB", "case-insensitive": true })("abc")).toBe(true);
    expect(matcher({ style: "regex", match: "^AB" })("abc")).toBe(false);
  });
  it("applies invert last", () => {
    expect(matcher({ style: "exact", match: "abc", invert: true })("abc")).toBe(false);
    expect(matcher({ style: "exact", match: "abc", invert: true })("xyz")).toBe(true);
  });
  it("reports a regex that does not compile", () => {
    const r = compileStringMatch({ style: "regex", match: "[" });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Invalid regular expression: /);
  });
});
