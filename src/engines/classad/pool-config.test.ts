import { describe, expect, it } from "vitest";
import { expand, MacroError, readConfig } from "./pool-config.js";

describe("pool.conf reader", () => {
  it("joins continuations, skips comments inside them, and lets later assignments win", () => {
    const { table, errors } = readConfig("A = 1 \\\n# note\n  + 2\nb = 3\nB = 4\n");
    expect(errors).toEqual([]);
    expect(table.get("A")?.value).toBe("1    + 2");
    expect(table.get("B")?.value).toBe("4");
  });
  it("cuts lines as split(/\\r?\\n/) does: CRLF and LF end a line, a lone CR does not, the last line needs no end", () => {
    const { table, errors } = readConfig("A = 1 \\\r\n# c\r\n  + 2\r\nnot one\r\rB = x\ry\n\nC = 3");
    expect(table.get("A")).toMatchObject({ value: "1    + 2", line: 1, column: 5 });
    expect(table.get("A")?.pieces.map((p) => p.line)).toEqual([1, 3]);
    expect(errors).toEqual([
      { code: "match_config_syntax", message: "policy line 4: expected NAME = value", at: "4:1" },
    ]);
    expect(table.get("C")).toMatchObject({ value: "3", line: 6 });
    expect(readConfig("").table.size).toBe(0);
    expect(readConfig("D = \\").table.get("D")?.value).toBe("");
  });
  it("reports lines that are not assignments with their number", () => {
    const { errors } = readConfig("A = 1\nnot an assignment\n");
    expect(errors).toEqual([
      { code: "match_config_syntax", message: "policy line 2: expected NAME = value", at: "2:1" },
    ]);
  });
  it("expands macros recursively, with defaults, at use time", () => {
    const { table } = readConfig("X = $(Y) + $(Z:7)\nY = $(W)1\nW = 4\n");
    expect(expand("$(X)", table)).toBe("41 + 7");
    expect(expand("$(NOPE)|$(NOPE:d)", table)).toBe("|d");
  });
  it("rejects cycles and unsupported macro forms", () => {
    const { table } = readConfig("A = $(B)\nB = $(A)\n");
    expect(expand("$(A)", table)).toBeInstanceOf(MacroError);
    expect((expand("$ENV(HOME)", table) as MacroError).code).toBe("match_macro_unsupported");
    expect((expand("$$(Memory)", table) as MacroError).code).toBe("match_macro_unsupported");
  });
});
