import { describe, expect, it } from "vitest";
import { evaluateRequest, printValue } from "../../src/engines/classad/evaluate.js";
import { arith, type ArithOp } from "../../src/engines/classad/operators.js";
import { normInt } from "../../src/engines/classad/values.js";

const ctx = { now: 0, random: Math.random };

/** Integers around the places the exact fast path of `+` and `-` ends: 0, 2^53 and 2^63. */
const EDGES = [
  0n,
  1n,
  2n,
  3n,
  1n << 52n,
  (1n << 53n) - 2n,
  (1n << 53n) - 1n,
  1n << 53n,
  (1n << 53n) + 1n,
  1n << 62n,
  (1n << 63n) - 1n,
];

/** A deterministic stream of integers: the edges, their negations and neighbours, and pseudo-random ones. */
function integers(): bigint[] {
  const out = new Set<bigint>();
  for (const e of EDGES)
    for (const d of [-1n, 0n, 1n]) for (const s of [1n, -1n]) out.add(BigInt.asIntN(64, s * (e + d)));
  let x = 0x2545f4914f6cdd1dn;
  for (let i = 0; i < 12; i++) {
    x = BigInt.asUintN(64, x * 6364136223846793005n + 1442695040888963407n);
    // every width from a few bits to 64
    out.add(BigInt.asIntN(64, x >> BigInt((5 * i) % 60)));
  }
  return [...out];
}

/** How an integer is written in an expression (the most negative one has no literal of its own). */
function literal(v: bigint): string {
  return v === -(1n << 63n) ? "(-9223372036854775807 - 1)" : `${v}`;
}

// `+` and `-` of two JS-number integers take a fast path in their compiled closure (compile.ts
// arithOp); it must give what the general operator gives, including past 2^53 and on wrapping.
describe("+ and - of integers compiled with their exact fast path", () => {
  it(
    "give what the general arithmetic gives for integers around 0, 2^53 and 2^63",
    { timeout: 60_000 },
    () => {
      const ints = integers();
      for (const op of ["+", "-"] as ArithOp[])
        for (const a of ints)
          for (const b of ints) {
            const got = evaluateRequest({ expr: `${literal(a)} ${op} ${literal(b)}` }, ctx);
            const want = printValue(arith(op, normInt(a), normInt(b)));
            expect({ type: got.type, value: got.value }, `${a} ${op} ${b}`).toEqual(want);
          }
    },
  );

  it("give what the general arithmetic gives when the operands are attributes", () => {
    for (const op of ["+", "-"] as ArithOp[])
      for (const [a, b] of [
        [(1n << 53n) - 1n, 1n],
        [-(1n << 53n) + 1n, -1n],
        [1n << 62n, 1n << 62n],
        [5n, -7n],
      ]) {
        const got = evaluateRequest({ expr: `x ${op} y`, my: `x = ${a}\ny = ${b}` }, ctx);
        expect({ type: got.type, value: got.value }).toEqual(printValue(arith(op, normInt(a), normInt(b))));
      }
  });
});
