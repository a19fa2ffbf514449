import { describe, expect, it } from "vitest";
import { formatTable, niceSort, parseServiceJson, pythonRepr } from "./filter-format.js";

// Expected texts are CPython 3's repr(json.loads(text)), what gnt-filter prints through `%s`.
describe("pythonRepr", () => {
  it.each([
    ["1.5", "1.5"],
    ["1e16", "1e+16"],
    ["1e15", "1000000000000000.0"],
    ["0.0001", "0.0001"],
    ["0.00001", "1e-05"],
    ["1.5e-7", "1.5e-07"],
    ["123.456", "123.456"],
    ["-2.0", "-2.0"],
    ["1e22", "1e+22"],
    ["12345678901234567.0", "1.2345678901234568e+16"],
    ["100.0", "100.0"],
    ["-0", "0"],
    ["-0.0", "-0.0"],
    ["5E+2", "500.0"],
    ["1795482117065516288", "1795482117065516288"],
    ['"a\\u0001b\\u007f\\u00e9\\t"', "'a\\x01b\\x7fé\\t'"],
    ['"it\'s"', '"it\'s"'],
    ['"\\""', "'\"'"],
    ['"\\\\"', "'\\\\'"],
    ['[true, false, null, {"k": [1, "x"]}]', "[True, False, None, {'k': [1, 'x']}]"],
    ["[]", "[]"],
    ["{}", "{}"],
  ])("%s prints as %s", (json, want) => {
    expect(pythonRepr(parseServiceJson(json))).toBe(want);
  });

  it("refuses text that is not JSON", () => {
    expect(() => parseServiceJson("[1,")).toThrow(SyntaxError);
    expect(() => parseServiceJson("1 2")).toThrow(SyntaxError);
  });
});

describe("niceSort", () => {
  // Cases of Ganeti's case_niceSort_static (test/hs/Test/Ganeti/Utils.hs).
  it.each([
    [
      ["0;099", "0,099", "0.1", "0.2"],
      ["0,099", "0.1", "0.2", "0;099"],
    ],
    [
      ["a0", "a1", "a99", "a20", "a2", "b10", "b70", "b00", "0000"],
      ["0000", "a0", "a1", "a2", "a20", "a99", "b00", "b10", "b70"],
    ],
    [
      ["a0-0", "a1-0", "a99-10", "a20-3", "a0-4", "a99-3", "a09-2", "Z", "a9-1", "A", "b"],
      ["A", "Z", "a0-0", "a0-4", "a1-0", "a9-1", "a09-2", "a20-3", "a99-3", "a99-10", "b"],
    ],
    [
      [
        "host2.example.com",
        "host11.example.com",
        "host03.example.com",
        "host1.example.com",
        "host255.example.com",
      ],
      [
        "host1.example.com",
        "host2.example.com",
        "host03.example.com",
        "host11.example.com",
        "host255.example.com",
      ],
    ],
  ])("sorts %j as Ganeti does", (input, want) => {
    expect(niceSort(input, (s) => s)).toEqual(want);
  });
});

describe("formatTable", () => {
  it("pads every column but the last, or joins by the separator", () => {
    expect(
      formatTable(
        ["A", "Bee"],
        [
          ["xyz", "1"],
          ["", "22"],
        ],
        true,
        undefined,
      ),
    ).toEqual(["A   Bee", "xyz 1", "    22"]);
    expect(formatTable(["A", "Bee"], [["xyz", "1"]], false, ",")).toEqual(["xyz,1"]);
  });
});
