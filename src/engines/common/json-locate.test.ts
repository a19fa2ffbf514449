import { describe, expect, it } from "vitest";
import { locatePointer, pointerOffset, placeAt, stringCharOffset } from "./json-locate.js";

const text = `{
  "a": [1, {"b": "x\\\\ny"}, [true]],
  "c~d/e": {"#": "comment", "f": null},
  "a": [{"z": 2}, {"b": "last"}]
}`;

describe("pointerOffset", () => {
  it("finds the value a pointer names, the last of a key written twice", () => {
    expect(text.slice(pointerOffset(text, "/a/1/b")!).startsWith('"last"')).toBe(true);
    expect(text.slice(pointerOffset(text, "/c~0d~1e/f")!).startsWith("null")).toBe(true);
    expect(pointerOffset(text, "")).toBe(0);
  });

  it("answers null for what the text does not hold", () => {
    expect(pointerOffset(text, "/a/2")).toBeNull();
    expect(pointerOffset(text, "/nope")).toBeNull();
    expect(pointerOffset(text, "/a/01")).toBeNull();
    expect(pointerOffset("{", "/x")).toBeNull();
    expect(pointerOffset(text, "no-slash")).toBeNull();
  });
});

describe("stringCharOffset", () => {
  it("counts an escape as one decoded character", () => {
    const t = String.raw`"a\nb\u00e9c"`;
    expect(t[stringCharOffset(t, 0, 0)!]).toBe("a");
    expect(t.slice(stringCharOffset(t, 0, 1)!).startsWith(String.raw`\n`)).toBe(true);
    expect(t[stringCharOffset(t, 0, 2)!]).toBe("b");
    expect(t[stringCharOffset(t, 0, 4)!]).toBe("c");
    expect(stringCharOffset(t, 0, 99)).toBe(t.length - 1);
    expect(stringCharOffset(t, 1, 0)).toBeNull();
  });
});

describe("locatePointer", () => {
  it("gives the 1-based line and column, inside a string when asked", () => {
    expect(locatePointer(text, "/c~0d~1e")).toEqual({ line: 3, column: 12 });
    expect(locatePointer(text, "/a/1/b", 2)).toEqual({ line: 4, column: 28 });
    expect(placeAt("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
