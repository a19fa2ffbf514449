/**
 * The page's error placement (playground/locate.js): every error's `at`, a
 * `line:column` or a JSON pointer, lands on the line the editor marks.
 */
import { describe, expect, it } from "vitest";
import { compactJson, locate, offsetOf, placeOf, scanJson } from "../../playground/locate.js";

const policy = `{
  "defaults": {
    "maxLoad": "x",
    "allow": ["a", "b"]
  },
  "networks": {"a/b": {"bias": 1}, "t~x": 2}
}`;

describe("locate", () => {
  it("takes line:column as given", () => {
    expect(locate("5:9", "whatever")).toEqual({ line: 5, column: 9 });
  });

  it("puts a JSON pointer on the key of the member it names", () => {
    expect(locate("/defaults/maxLoad", policy)).toEqual({ line: 3, column: 5 });
    expect(locate("/defaults", policy)).toEqual({ line: 2, column: 3 });
  });

  it("puts an array index on the element, and unescapes ~0 and ~1", () => {
    expect(locate("/defaults/allow/1", policy)).toEqual({ line: 4, column: 20 });
    expect(locate("/networks/a~1b/bias", policy)).toEqual({ line: 6, column: 24 });
    expect(locate("/networks/t~0x", policy)).toEqual({ line: 6, column: 36 });
  });

  it("falls back to the nearest ancestor the text holds (an absent field's object)", () => {
    expect(locate("/defaults/missing", policy)).toEqual({ line: 2, column: 3 });
    expect(locate("", policy)).toEqual({ line: 1, column: 1 });
  });

  it("strips a prefix (request errors arrive under /request), and places nothing outside it", () => {
    const request = '{\n  "user": 7\n}';
    expect(locate("/request/user", request, { strip: "/request" })).toEqual({ line: 2, column: 3 });
    expect(locate("/policy", request, { strip: "/request" })).toBeNull();
  });

  it("reads pScheduler's # comments when asked", () => {
    const text = '# comment\n{\n  # another\n  "schema": 3 # trailing\n}';
    expect(locate("/schema", text, { comments: true })).toEqual({ line: 4, column: 3 });
    expect(scanJson(text).ok).toBe(false);
  });

  it("places nothing in text that is not JSON, or for an `at` that is neither form", () => {
    expect(locate("/a", "a: 1")).toBeNull();
    expect(locate("somewhere", policy)).toBeNull();
    expect(locate(undefined, policy)).toBeNull();
  });
});

describe("scanJson", () => {
  it("reports where a syntax error is", () => {
    const text = '{\n  "a": 1,\n  "b" 2\n}';
    const scan = scanJson(text);
    expect(scan.ok).toBe(false);
    if (!scan.ok) {
      expect(placeOf(text, scan.offset)).toEqual({ line: 3, column: 7 });
      expect(scan.message).toBe("expected ':' after a property name");
    }
    for (const bad of ["", "{", "[1,]", '{"a":1}}', '"\\x"', "01", "tru"])
      expect(scanJson(bad).ok, bad).toBe(false);
    for (const good of ["1", "-0.5e3", '"\\u00e9"', "[]", '{"a":[null,true,{"b":"c"}]}', " 3 "])
      expect(scanJson(good).ok, good).toBe(true);
  });

  it("stops at a nesting depth instead of overflowing the stack", () => {
    const scan = scanJson("[".repeat(100_000));
    expect(scan.ok).toBe(false);
    if (!scan.ok) expect(scan.message).toBe("nested too deeply");
  });
});

describe("offsets and compact JSON", () => {
  it("turns line:column into an offset and back", () => {
    const text = "ab\ncde\n\nf";
    for (let offset = 0; offset <= text.length; offset++)
      expect(offsetOf(text, placeOf(text, offset))).toBe(offset);
    expect(offsetOf(text, { line: 2, column: 99 })).toBe(6);
    expect(offsetOf(text, { line: 99, column: 1 })).toBe(text.length);
  });

  it("drops whitespace between tokens only, keeping number literals as written", () => {
    const text = '{\n  "a b": [1700000000123456789, 1.50],\n  "c": "x\\" y"\n}';
    expect(compactJson(text)).toBe('{"a b":[1700000000123456789,1.50],"c":"x\\" y"}');
  });
});
