import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json } from "../../src/engines/common/json.js";
import { BUDGET_MESSAGE, compileJq } from "../../src/jq/index.js";

const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -5, max: 5 }),
    fc.double({ noNaN: false }),
    fc.string({ maxLength: 6 }),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("a", "b", "c", "0"), tie("v"), { maxKeys: 3 }),
  ),
})).v;

const atoms = [
  ".",
  "..",
  ".a",
  ".[0]",
  ".[]",
  ".[1:]",
  "null",
  "1",
  "-2.5",
  '"s"',
  "[]",
  "{}",
  "$x",
  "length",
  "keys",
  "tostring",
  "tojson",
  "type",
  "not",
  "empty",
  "error",
  "add",
  "sort",
  "unique",
  "reverse",
  "floor",
  "tonumber",
  "to_entries",
  "paths",
  "recurse",
  "input",
  "ascii_downcase",
  "explode",
  "implode",
  'splits("a")',
  'test("a")',
  "@base64",
  "@csv",
  "first(.[])",
  "limit(2; .[])",
  "range(3)",
  "repeat(.)",
  "$__loc__",
  "env",
  "now",
  "infinite",
  "nan",
  "halt",
];
const binops = ["|", ",", "+", "-", "*", "/", "%", "==", "<", "and", "or", "//", "|=", "=", "+="];

const program: fc.Arbitrary<string> = fc.letrec<{ p: string }>((tie) => ({
  p: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(...atoms),
    fc.tuple(tie("p"), fc.constantFrom(...binops), tie("p")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie("p").map((a) => `[${a}]`),
    tie("p").map((a) => `{a: (${a})}`),
    tie("p").map((a) => `(${a})?`),
    fc.tuple(tie("p"), tie("p")).map(([a, b]) => `try ${a} catch ${b}`),
    fc.tuple(tie("p"), tie("p"), tie("p")).map(([a, b, c]) => `if ${a} then ${b} else ${c} end`),
    fc.tuple(tie("p"), tie("p")).map(([a, b]) => `reduce ${a} as $y (0; ${b})`),
    fc.tuple(tie("p"), tie("p")).map(([a, b]) => `(${a}) as $x | ${b}`),
    tie("p").map((a) => `def f: ${a}; f`),
    tie("p").map((a) => `label $out | ${a} | ., break $out`),
    tie("p").map((a) => `path(${a})`),
  ),
})).p;

describe("jq engine properties", () => {
  it("random programs on random inputs give outputs or an error string, never a crash", () => {
    let compiled = 0;
    fc.assert(
      fc.property(program, json, (src, input) => {
        const c = compileJq(`1 as $x | ${src}`);
        if (!c.ok) {
          expect(c.error[0].code).toMatch(/^jq_/);
          return;
        }
        compiled++;
        const r = c.value.run(input, { maxSteps: 20_000 });
        expect(Array.isArray(r.outputs)).toBe(true);
        if (r.error !== undefined) expect(typeof r.error).toBe("string");
      }),
      { numRuns: 400 },
    );
    expect(compiled).toBeGreaterThan(300);
  });

  it("a budget only cuts a run short: finishing under a small budget means the same result under a large one", () => {
    fc.assert(
      fc.property(program, json, fc.integer({ min: 1, max: 2000 }), (src, input, small) => {
        const c = compileJq(`1 as $x | ${src}`);
        if (!c.ok) return;
        const a = c.value.run(input, { maxSteps: small, now: 0 });
        const b = c.value.run(input, { maxSteps: 1_000_000, now: 0 });
        if (a.error === BUDGET_MESSAGE) {
          expect(b.outputs.slice(0, a.outputs.length)).toEqual(a.outputs);
          return;
        }
        expect(a).toEqual(b);
      }),
      { numRuns: 300 },
    );
  });

  it("native until and while give what their jq definitions give, single-valued arguments or not", () => {
    const defs =
      "def until2(c; u): def _until: if c then . else (u | _until) end; _until; " +
      "def while2(c; u): def _while: if c then ., (u | _while) else empty end; _while; ";
    const conds = [
      ". > 20",
      ". >= 7",
      "(. % 3) == 0",
      "empty",
      "(. > 9, . > 4)",
      'if . > 12 then error("c") else false end',
    ];
    const updates = [
      ". + 1",
      ". * 2 + 1",
      "(. + 1, . + 3)",
      'if . == 5 then error("u") else . + 2 end',
      "empty",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...conds),
        fc.constantFrom(...updates),
        fc.integer({ min: 0, max: 25 }),
        fc.constantFrom("until", "while"),
        (c, u, input, f) => {
          const native = compileJq(`[limit(40; ${f}(${c}; ${u}))]`);
          const defined = compileJq(`${defs}[limit(40; ${f}2(${c}; ${u}))]`);
          expect(native.ok && defined.ok).toBe(true);
          if (!native.ok || !defined.ok) return;
          const a = native.value.run(input, { maxSteps: 100_000 });
          const b = defined.value.run(input, { maxSteps: 100_000 });
          expect(a.error === BUDGET_MESSAGE || b.error === BUDGET_MESSAGE ? "budget" : a).toEqual(
            a.error === BUDGET_MESSAGE || b.error === BUDGET_MESSAGE ? "budget" : b,
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it("runaway programs end with the budget error, even under a tiny budget", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "def f: f; f",
          "repeat(.)",
          "range(1e12)",
          "def f: 1 + f; f",
          "[recurse(. + 1)]",
          "until(false; .)",
          "last(range(1e9))",
        ),
        fc.integer({ min: 1, max: 50_000 }),
        (src, budget) => {
          const c = compileJq(src);
          expect(c.ok).toBe(true);
          if (!c.ok) return;
          const r = c.value.run(0, { maxSteps: budget });
          expect(r.error).toBe(BUDGET_MESSAGE);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("any text as a program compiles or gives a positioned jq_ error", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (src) => {
        const c = compileJq(src);
        if (!c.ok) for (const e of c.error) expect(e.at).toMatch(/^\d+:\d+$/);
      }),
      { numRuns: 500 },
    );
  });
});
