/**
 * HTCondor's ClassAd functional tests (test/cases/classad-functional): each case evaluates
 * two expressions and checks that they are the same value, or differ, as HTCondor's
 * Value::SameAs decides (src/classad/value.cpp): the same type, then reals by `==`, every
 * other value by its printed form (strings, lists and ads print exactly).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { loadCases } from "../support/cases.js";

const Input = z.strictObject({ expr: z.string() });
const Want = z.union([z.strictObject({ same: z.string() }), z.strictObject({ diff: z.string() })]);

const ctx = { now: Date.UTC(2024, 0, 1), random: () => 0.5 };

/** A printed real as a number: `real("NaN")`, `real("INF")`, `real("-INF")` or a decimal. */
function realOf(printed: string): number {
  const special = /^real\("(-?)(NaN|INF)"\)$/.exec(printed);
  if (special === null) return Number(printed);
  if (special[2] === "NaN") return NaN;
  return special[1] === "-" ? -Infinity : Infinity;
}

/** Value::SameAs on two printed values. */
function sameAs(a: { type: string; value: string }, b: { type: string; value: string }): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "real") return realOf(a.value) === realOf(b.value);
  return a.value === b.value;
}

describe("HTCondor functional_tests.txt", () => {
  const cases = loadCases("classad-functional");
  it("has the file's cases", () => expect(cases.length).toBeGreaterThanOrEqual(200));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const { expr } = Input.parse(c.value.input);
      const want = Want.parse(c.value.want);
      const other = "same" in want ? want.same : want.diff;
      const a = evaluateRequest({ expr }, ctx);
      const b = evaluateRequest({ expr: other }, ctx);
      expect(a.type, `${expr}: ${a.value}`).not.toBe("parse_error");
      expect(b.type, `${other}: ${b.value}`).not.toBe("parse_error");
      expect(sameAs(a, b), `${expr} → ${a.type} ${a.value}; ${other} → ${b.type} ${b.value}`).toBe("same" in want);
    });
  }
});

describe("Value::SameAs as the runner applies it", () => {
  it("takes 0.0 and -0.0 as the same real, NaN as different from itself, and never mixes types", () => {
    expect(sameAs({ type: "real", value: "0.0" }, { type: "real", value: "-0.0" })).toBe(true);
    expect(sameAs({ type: "real", value: 'real("NaN")' }, { type: "real", value: 'real("NaN")' })).toBe(false);
    expect(sameAs({ type: "real", value: 'real("-INF")' }, { type: "real", value: 'real("INF")' })).toBe(false);
    expect(sameAs({ type: "integer", value: "3" }, { type: "real", value: "3.000000000000000E+00" })).toBe(false);
    expect(sameAs({ type: "string", value: '"a"' }, { type: "string", value: '"a"' })).toBe(true);
  });
});
