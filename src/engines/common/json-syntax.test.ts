import { describe, expect, it } from "vitest";
import { checkJsonShape } from "./json-shape.js";
import { findJsonSyntaxError, locateJsonProblem, parseJsonText, pythonJsonMessage } from "./json-syntax.js";

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
    if (!r.ok && "error" in r)
      expect([r.error.line, r.error.column, r.error.message]).toEqual([1, 1, "Expecting value"]);
    else expect.fail("NaN is a syntax error");
  });
});

describe("deep JSON", () => {
  it("finds a syntax error 100,000 levels deep without recursion", () => {
    const n = 100_000;
    const e = findJsonSyntaxError("[".repeat(n) + "1,]" + "]".repeat(n - 1));
    expect(e && pythonJsonMessage(e)).toBe(`Expecting value: line 1 column ${n + 3} (char ${n + 2})`);
    expect(findJsonSyntaxError(`${'{"a":'.repeat(n)}1${"}".repeat(n)}`)).toBeNull();
  });

  it("names the first container past the limit, as the shape check does, when it comes before the syntax error", () => {
    const text = `{"a": [1, {"b~/": ${"[".repeat(200)}1,]`;
    const problem = locateJsonProblem(text, 100);
    expect(problem).toEqual({
      depth: { kind: "depth", path: ["a", 1, "b~/", ...Array(97).fill(0)], limit: 100 },
    });
    const valid = `{"a": [1, {"b~/": ${"[".repeat(200)}1${"]".repeat(200)}}]}`;
    expect(locateJsonProblem(valid, 100)).toEqual({
      depth: checkJsonShape(JSON.parse(valid), { maxDepth: 100, maxItems: Infinity }),
    });
    // a syntax error first in the text wins
    expect(locateJsonProblem(`[1 2, ${"[".repeat(200)}]`, 100)).toMatchObject({
      syntax: { message: "Expecting ',' delimiter", char: 3 },
    });
    expect(locateJsonProblem(`[${"[".repeat(98)}]`, 100)).toMatchObject({
      syntax: { message: "Expecting ',' delimiter" },
    });
  });

  it("parseJsonText reports a deep text that JSON.parse refuses as too deep", () => {
    const r = parseJsonText(`{"x": ${"[".repeat(5000)}}`);
    expect(r).toMatchObject({ ok: false, shape: { kind: "depth", limit: 100 } });
    expect(parseJsonText(`{"x": ${"[".repeat(5000)}${"]".repeat(5000)}}`)).toMatchObject({
      ok: false,
      shape: { kind: "depth", limit: 100 },
    });
  });
});
