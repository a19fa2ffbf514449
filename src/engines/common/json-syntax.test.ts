import { describe, expect, it } from "vitest";
import { findJsonSyntaxError, parseJsonText, pythonJsonMessage } from "./json-syntax.js";

// Expected texts are CPython 3.12's str(json.JSONDecodeError) for json.loads(text).
describe("findJsonSyntaxError", () => {
  it.each([
    ["", "Expecting value: line 1 column 1 (char 0)"],
    ["   ", "Expecting value: line 1 column 4 (char 3)"],
    ["{", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
    ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ['{"a": 1 "b": 2}', "Expecting ',' delimiter: line 1 column 9 (char 8)"],
    ['{"a": 1,}', "Expecting property name enclosed in double quotes: line 1 column 9 (char 8)"],
    ["[1, 2,]", "Expecting value: line 1 column 7 (char 6)"],
    ["[1 2]", "Expecting ',' delimiter: line 1 column 4 (char 3)"],
    ["{a: 1}", "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"],
    ['"abc', "Unterminated string starting at: line 1 column 1 (char 0)"],
    ['"a\\qb"', "Invalid \\escape: line 1 column 3 (char 2)"],
    ['"a\\u12G4"', "Invalid \\uXXXX escape: line 1 column 4 (char 3)"],
    ['"a\u0001"', "Invalid control character at: line 1 column 3 (char 2)"],
    ["[1, 2] x", "Extra data: line 1 column 8 (char 7)"],
    ["01", "Extra data: line 1 column 2 (char 1)"],
    ["-", "Expecting value: line 1 column 1 (char 0)"],
    ["1.", "Extra data: line 1 column 2 (char 1)"],
    ["1e", "Extra data: line 1 column 2 (char 1)"],
    ["tru", "Expecting value: line 1 column 1 (char 0)"],
    ["nul", "Expecting value: line 1 column 1 (char 0)"],
    ['{"a": [1, {"b": }]}', "Expecting value: line 1 column 17 (char 16)"],
    ['\n\n  {"\u00e9": 1, "b": ,}', "Expecting value: line 3 column 17 (char 18)"],
    ["\ufeff{}", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"],
    ['{"a":1}\n\n]', "Extra data: line 3 column 1 (char 9)"],
    ["[", "Expecting value: line 1 column 2 (char 1)"],
    ['{"a"', "Expecting ':' delimiter: line 1 column 5 (char 4)"],
    ['["\ud83d\ude00", x]', "Expecting value: line 1 column 7 (char 6)"],
  ])("%j: %s", (text, want) => {
    const e = findJsonSyntaxError(text);
    expect(e).not.toBeNull();
    if (e) expect(pythonJsonMessage(e)).toBe(want);
  });

  it("finds nothing in JSON", () => {
    for (const text of ['{"a": [1, 2.5e-3, "x\\u00e9", true, false, null]}', " [] ", '"\\ud83d\\ude00"']) {
      expect(findJsonSyntaxError(text)).toBeNull();
      expect(parseJsonText(text).ok).toBe(true);
    }
  });

  it("reports what JSON.parse refuses and Python would read (NaN) at its start", () => {
    const r = parseJsonText("NaN");
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.line, r.error.column, r.error.message]).toEqual([1, 1, "Expecting value"]);
  });
});
