import { describe, expect, it } from "vitest";
import { arith, bitwise, cmpFold, compare, intArith, metaEqual } from "./operators.js";
import { ERROR, Real, UNDEF } from "./values.js";

describe("operators", () => {
  it("keeps integers exact and wraps at 64 bits, leaving JS numbers only on overflow", () => {
    expect(intArith("+", 9007199254740991, 1)).toBe(9007199254740992n);
    expect(intArith("*", 3037000499, 3037000499)).toBe(9223372030926249001n);
    expect(intArith("+", 9223372036854775807n, 1)).toBe(-9223372036854775808n);
    expect(intArith("-", 9007199254740992n, 1)).toBe(9007199254740991);
    expect(intArith("/", -7, 2)).toBe(-3);
    expect(Object.is(intArith("/", -1, 2), -0)).toBe(false);
    expect(intArith("%", 5, 0)).toBe(ERROR);
  });
  it("treats a +infinite real result as ERROR but keeps -INF and NaN", () => {
    expect(arith("/", new Real(1), 0)).toBe(ERROR);
    expect((arith("/", new Real(-1), 0) as Real).v).toBe(-Infinity);
    expect(Number.isNaN((arith("/", new Real(0), 0) as Real).v)).toBe(true);
  });
  it("checks ERROR before UNDEFINED in strict operators", () => {
    expect(compare("==", UNDEF, ERROR)).toBe(ERROR);
    expect(arith("*", UNDEF, 0)).toBe(UNDEF);
  });
  it("folds only ASCII case when comparing strings", () => {
    expect(cmpFold("ABC", "abc")).toBe(0);
    expect(cmpFold("\u00c9", "\u00e9")).not.toBe(0);
  });
  it("distinguishes types in =?= and errors on lists", () => {
    expect(metaEqual(1, new Real(1))).toBe(false);
    expect(metaEqual(UNDEF, UNDEF)).toBe(true);
  });
  it("shifts modulo 64", () => {
    expect(bitwise("<<", 1, 64)).toBe(1);
    expect(bitwise(">>>", -16, 2)).toBe(4611686018427387900n);
  });
});
