/**
 * HTCondor's own ClassAd tests as case files.
 * - test/cases/classad-functional: each case evaluates two expressions and checks that they are
 *   the same value, or differ, as HTCondor's Value::SameAs decides (src/classad/value.cpp): the
 *   same type, then reals by `==`, every other value by its printed form.
 * - test/cases/classad-lookup: an ad read from text and one attribute looked up as
 *   OTEST_Old_Classads.cpp does (LookupInteger/Float/Bool/String, with their conversions).
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { quoteString } from "../../src/engines/classad/unparse.js";
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
      expect(sameAs(a, b), `${expr} → ${a.type} ${a.value}; ${other} → ${b.type} ${b.value}`).toBe(
        "same" in want,
      );
    });
  }
});

describe("Value::SameAs as the runner applies it", () => {
  it("takes 0.0 and -0.0 as the same real, NaN as different from itself, and never mixes types", () => {
    expect(sameAs({ type: "real", value: "0.0" }, { type: "real", value: "-0.0" })).toBe(true);
    expect(sameAs({ type: "real", value: 'real("NaN")' }, { type: "real", value: 'real("NaN")' })).toBe(
      false,
    );
    expect(sameAs({ type: "real", value: 'real("-INF")' }, { type: "real", value: 'real("INF")' })).toBe(
      false,
    );
    expect(sameAs({ type: "integer", value: "3" }, { type: "real", value: "3.000000000000000E+00" })).toBe(
      false,
    );
    expect(sameAs({ type: "string", value: '"a"' }, { type: "string", value: '"a"' })).toBe(true);
  });
});

const LookupInput = z.strictObject({
  ad: z.string(),
  target: z.string().optional(),
  attr: z.string(),
  lookup: z.enum(["integer", "float", "bool", "string", "value"]),
});
const LookupWant = z.union([
  z.strictObject({ found: z.boolean() }),
  z.strictObject({ value: z.union([z.number(), z.boolean(), z.string()]), within: z.number().optional() }),
  // strcmp-style tests that only check the sign
  z.strictObject({ sign: z.union([z.literal(-1), z.literal(1)]) }),
  // EvaluateAttr then ClassAdValueToString: the value as printed
  z.strictObject({ printed: z.string() }),
]);

/** A printed number (booleans as 0/1) as EvaluateAttrNumber reads it, or null for any other type. */
function numberOf(v: { type: string; value: string }): number | null {
  if (v.type === "integer") return Number(v.value);
  if (v.type === "real") return realOf(v.value);
  if (v.type === "boolean") return v.value === "true" ? 1 : 0;
  return null;
}

/** What ClassAd::Lookup<kind> answers for a printed value: the converted value, or undefined when the lookup fails. */
function lookup(
  kind: "integer" | "float" | "bool" | "string",
  v: { type: string; value: string },
): number | boolean | string | undefined {
  if (kind === "string") return v.type === "string" ? v.value : undefined;
  const n = numberOf(v);
  if (n === null) return undefined;
  if (kind === "integer") return Math.trunc(n);
  if (kind === "bool") return n !== 0;
  return n;
}

describe("HTCondor OTEST_Old_Classads.cpp lookups", () => {
  const cases = loadCases("classad-lookup");
  it("has the file's cases", () => expect(cases.length).toBeGreaterThanOrEqual(150));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const input = LookupInput.parse(c.value.input);
      const want = LookupWant.parse(c.value.want);
      const v = evaluateRequest({ expr: input.attr, my: input.ad, target: input.target }, ctx);
      expect(v.type, v.value).not.toBe("parse_error");
      const where = `${input.attr} → ${v.type} ${v.value}`;
      if ("printed" in want) {
        expect(v.value, where).toBe(want.printed);
        return;
      }
      if (input.lookup === "value") throw new Error("a `value` lookup expects `printed`");
      const got = lookup(input.lookup, v);
      if ("sign" in want) {
        expect(Math.sign(got as number), where).toBe(want.sign);
        return;
      }
      if ("found" in want) {
        expect(got !== undefined, where).toBe(want.found);
        return;
      }
      expect(got, where).toBeDefined();
      if (input.lookup === "string") expect(got, where).toBe(quoteString(String(want.value)));
      else if (want.within !== undefined)
        expect(Math.abs(Math.abs(got as number) - Math.abs(want.value as number)), where).toBeLessThanOrEqual(
          want.within,
        );
      else expect(got, where).toBe(want.value);
    });
  }
});
