import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear, inspectPattern } from "./index.js";
import { inspectSimple } from "./inspect-simple.js";
import { parsePattern } from "./parse.js";
import { prefilterOf } from "./prefilter.js";
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

describe("inspectSimple reads plain patterns as parsing them does", () => {
  const same = (p: string, origin: "re2" | "python" | "pcre" | "onig"): boolean => {
    const quick = inspectSimple(p);
    if (quick === null) return false;
    const parsed = parsePattern(p, origin, {});
    if ("kind" in parsed)
      throw new Error(`${JSON.stringify(p)}: quick path took a pattern ${origin} refuses (${parsed.kind})`);
    const pf = prefilterOf(parsed.node);
    expect(quick).toEqual({ prefix: pf?.prefix ?? "", required: pf?.required ?? "" });
    return true;
  };
  it("takes the policies' usual shapes", () => {
    for (const p of [
      "^.*-t12[a-z]+$",
      "^team3-[a-z]+$",
      "a+b*c?",
      "^ab$cd",
      "x.y*?z",
      "[--z]+a",
      "[a-]b",
      "",
      "^",
    ])
      expect(same(p, "re2")).toBe(true);
    expect(inspectSimple("^ab$cd")).toEqual({ prefix: "ab", required: "abcd" });
    expect(inspectSimple("^.*-t12[a-z]+$")).toEqual({ prefix: "", required: "-t12" });
  });
  it("leaves every other pattern, errors included, to the parser", () => {
    for (const p of [
      "(a)",
      "a|b",
      "a{2}",
      "\\d",
      "[]a]",
      "[z-a]",
      "a**",
      "a*??",
      "^*",
      "*a",
      "[a",
      "[[:alpha:]]",
      "(?i)a",
      "é",
    ])
      expect(inspectSimple(p)).toBeNull();
  });
  it("on random patterns, for every origin", () => {
    let taken = 0;
    fc.assert(
      fc.property(fc.stringMatching(/^[ab.^$*+?\[\]{}|()\\-]{0,12}$/), (p) => {
        for (const o of ["re2", "python", "pcre", "onig"] as const) if (same(p, o)) taken++;
      }),
      { numRuns: 3000, seed: 24 },
    );
    expect(taken).toBeGreaterThan(500);
  });
});
