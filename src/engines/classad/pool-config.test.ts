import { describe, expect, it } from "vitest";
import { expand, MacroError, readConfig } from "./pool-config.js";

describe("pool.conf reader", () => {
  it("joins continuations, skips comments inside them, and lets later assignments win", () => {
    const { table, errors } = readConfig("A = 1 \\\n# note\n  + 2\nb = 3\nB = 4\n");
    expect(errors).toEqual([]);
    expect(table.get("A")?.value).toBe("1    + 2");
    expect(table.get("B")?.value).toBe("4");
  });
  it("reports lines that are not assignments with their number", () => {
    const { errors } = readConfig("A = 1\nnot an assignment\n");
    expect(errors).toEqual([{ code: "match_config_syntax", message: "policy line 2: expected NAME = value", at: "2:1" }]);
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
