/**
 * The single-valued specialisations of issue 31 goal 1 (`path(.k…)`, `[x]`, `.[] |= f`,
 * `del(.k)`, `capture` of a literal pattern) against the same expressions written so that
 * the compiler takes its general path: the same outputs (key order included, through
 * `tojson`) and the same errors on random inputs, and the budget still charged.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json } from "../../src/engines/common/json.js";
import { BUDGET_MESSAGE, compileJq } from "../../src/jq/index.js";

const KEYS: Json[] = ["a", "b", "0", "1", "__proto__", 0, 1, -1, 1.5, null];
const keyText = (k: Json): string => JSON.stringify(k);

const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -3, max: 3 }),
    fc.constantFrom("2", "x", "PT5S", "p1w2dt3h4m5.5s", "P1D\n", ""),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("a", "b", "1", "0", "z"), tie("v"), { maxKeys: 4 }),
  ),
})).v;

/** Applied to the input first: `.` or a copy whose keys were set by the engine (index-like keys get a key-order record). */
const PREFIXES = [".", 'if type == "object" then {"z": 1} + . + {"7": true} else . end'];

/** Result of `(prefix) | (expr) | tojson` as a comparable value. */
function run(expr: string, input: Json, prefix: string): { outputs: Json[]; error?: string } {
  const c = compileJq(`(${prefix}) | (${expr}) | tojson`);
  if (!c.ok) throw new Error(`${expr}: ${c.error[0].message}`);
  const r = c.value.run(input, { maxSteps: 1_000_000 });
  return r.error === undefined ? { outputs: r.outputs } : { outputs: r.outputs, error: r.error };
}

function same(special: string, general: string): void {
  fc.assert(
    fc.property(json, fc.constantFrom(...PREFIXES), (input, prefix) => {
      expect(run(special, input, prefix)).toEqual(run(general, input, prefix));
    }),
    { numRuns: 150 },
  );
}

const SINGLE = [
  ".",
  ".a",
  "length",
  "tostring",
  "type",
  ". == null",
  "if . == null then 0 else tonumber end",
  ". + 1",
  "[.]",
];

describe("single-valued forms agree with the general path", () => {
  for (const k1 of KEYS)
    for (const k2 of [undefined, "b", 0] as Array<Json | undefined>) {
      const lit = k2 === undefined ? `.[${keyText(k1)}]` : `.[${keyText(k1)}][${keyText(k2)}]`;
      const vars = k2 === undefined ? `.[$k1]` : `.[$k1][$k2]`;
      const bind = `(${keyText(k1)}) as $k1 | (${keyText(k2 ?? null)}) as $k2 | `;
      it(`path(${lit}) and del(${lit}), also through an inlined parameter`, () => {
        same(`path(${lit})`, `${bind}path(${vars})`);
        same(`def p(f): path(f); p(${lit})`, `${bind}path(${vars})`);
        same(`del(${lit})`, `${bind}delpaths([path(${vars}), empty])`);
      });
    }

  for (const f of SINGLE)
    it(`[${f}], .[] |= ${f} and map_values(${f})`, () => {
      same(`[${f}]`, `[${f}, empty]`);
      same(`.[] |= (${f})`, `(.[] | .) |= (${f})`);
      same(`map_values(${f})`, `(.[] | .) |= (${f})`);
    });

  it("+, - and * with their number case inline, and a `.k` operand read in place", () => {
    // `(x, empty)` is not single-valued: the general path's operators
    for (const op of ["+", "-", "*"]) {
      same(`.a ${op} 3`, `(.a, empty) ${op} 3`);
      same(`. ${op} 2`, `(., empty) ${op} 2`);
      same(`(.a | length) ${op} 1.5`, `(.a | length, empty) ${op} 1.5`);
      same(`.a ${op} .b`, `(.a, empty) ${op} (.b, empty)`);
      same(`.a ${op} .`, `(.a, empty) ${op} (., empty)`);
      same(`(.a * 60) ${op} (.b * 3600)`, `((.a, empty) * 60) ${op} ((.b, empty) * 3600)`);
    }
  });

  it("capture of a literal pattern", () => {
    const re = '"^(?:P(?:(?<weeks>[0-9]+)W)?(?:(?<days>[0-9]+)D)?(?:T(?<s>[0-9.]+)S)?|(?<invalid>.*))$"';
    same(`capture(${re})`, `${re} as $re | capture($re)`);
    same(`ascii_upcase? | capture(${re})`, `ascii_upcase? | ${re} as $re | capture($re)`);
    same(`capture("(?<a>x)|(?<a>2)")`, `"(?<a>x)|(?<a>2)" as $re | capture($re)`);
  });
});

describe("the specialised forms stay charged to the budget", () => {
  const big = Array.from({ length: 200_000 }, (_, j) => j);
  const bigObject: Record<string, Json> = Object.fromEntries(big.slice(0, 50_000).map((j) => [`k${j}`, j]));
  for (const [name, src, input] of [
    ["[x] over a long array", "[length]", big],
    [".[] |= f over a long array", ".[] |= (. + 1)", big],
    ["map_values over a large object", "map_values(. + 1)", bigObject],
    ["del(.k) of a large object", "del(.k1)", bigObject],
  ] as Array<[string, string, Json]>)
    it(`${name} runs out of a small budget`, () => {
      const c = compileJq(src);
      if (!c.ok) throw new Error(c.error[0].message);
      if (name.startsWith("[x]")) {
        // `length` is one step: the array of one is cheap, so the budget ends only when it is tiny
        expect(c.value.run(input, { maxSteps: 1 }).error).toBe(BUDGET_MESSAGE);
        return;
      }
      expect(c.value.run(input, { maxSteps: 10_000 }).error).toBe(BUDGET_MESSAGE);
      expect(c.value.run(input, { maxSteps: 100_000_000 }).error).toBeUndefined();
    });
});
