import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear, inspectPattern } from "./index.js";
import { parsePattern } from "./parse.js";
import { compileProgram, MAX_PROGRAM, programSize } from "./program.js";

const PATTERNS = [
  "",
  "a",
  "^.*-t12[a-z]+$",
  "(a|bc|d)*x?",
  "a{3,}",
  "(ab){2,5}c",
  "(?:x|y){0,4}",
  "a+b*c?",
  "(?i)team[0-9]{2}-(dev|ops)",
  "(a{1000}){49}",
  "(a{1000}){51}",
  "((a|b){100}){100}",
  "x(?:[^y]{500}){99}",
  "[[:alpha:]]+\\d*",
  "(a)|(b)|(c)",
];

describe("programSize counts what compileProgram emits", () => {
  for (const p of PATTERNS) {
    it(JSON.stringify(p), () => {
      const parsed = parsePattern(p, "re2", {});
      if ("kind" in parsed) throw new Error(parsed.kind);
      const prog = compileProgram(parsed.node, parsed.names.length, parsed.word);
      const size = programSize(parsed.node);
      if (prog === null) expect(size).toBe(Infinity);
      else expect(size).toBe(prog.op.length);
    });
  }
  it("says Infinity past the limit however far past", () => {
    const parsed = parsePattern("((((a{1000}){1000}){1000}){1000})", "re2", {});
    if ("kind" in parsed) throw new Error(parsed.kind);
    expect(programSize(parsed.node, MAX_PROGRAM)).toBe(Infinity);
  });
});

describe("inspectPattern agrees with compileLinear", () => {
  const agree = (p: string): void => {
    const full = compileLinear(p, "re2");
    const quick = inspectPattern(p, "re2");
    expect(quick.ok).toBe(full.ok);
    if (full.ok && quick.ok) {
      expect(quick.value.prefix).toBe(full.value.prefix ?? "");
      expect(quick.value.required).toBe(full.value.required ?? "");
    } else if (!full.ok && !quick.ok) expect(quick.error).toEqual(full.error);
  };
  for (const p of [...PATTERNS, "a(", "[z-a]", "x{1001}", "(?P<n>a)(?P<n>b)"])
    it(JSON.stringify(p), () => agree(p));
  it("on random patterns over a small alphabet", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[ab()|*+?{}0-9,^$.\[\]-]{0,14}$/), (p) => agree(p)),
      { numRuns: 500, seed: 31 },
    );
  });
});
