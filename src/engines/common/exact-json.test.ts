import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseExactJson, stringifyExactJson } from "./exact-json.js";

function outcome(f: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    if (e instanceof SyntaxError) return { ok: false };
    throw e;
  }
}

function asDoubles(v: unknown): unknown {
  if (typeof v === "bigint") return Number(v);
  if (Array.isArray(v)) return v.map(asDoubles);
  if (typeof v === "object" && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asDoubles(x)]));
  return v;
}

describe("exact JSON", () => {
  it("keeps integers beyond 2^53 exact and everything else as JSON.parse reads it", () => {
    expect(parseExactJson("1795482117065516288")).toBe(1795482117065516288n);
    expect(parseExactJson("[9007199254740992, 9007199254740991, -9007199254740993]")).toEqual([
      9007199254740992n,
      9007199254740991,
      -9007199254740993n,
    ]);
    expect(parseExactJson('{"t": 1.795482117065516288e18, "n": 100000000000000000000.0}')).toEqual({
      t: 1.795482117065516288e18,
      n: 1e20,
    });
    expect(Object.is(parseExactJson("-0"), -0)).toBe(true);
    const parsed = parseExactJson('{"__proto__": 1234567890123456789}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.hasOwn(parsed, "__proto__")).toBe(true);
  });

  it("reads every kind of literal the same way when a long integer sends the text to the reader", () => {
    const long = "12345678901234567890";
    expect(
      parseExactJson(
        `[${long}, "plain", "a\\"b", "\\u00e9", -0, 0, 10, -25, 1.5, 2e3, -1E-2, true, false, null]`,
      ),
    ).toEqual([
      12345678901234567890n,
      "plain",
      'a"b',
      "é",
      -0,
      0,
      10,
      -25,
      1.5,
      2000,
      -0.01,
      true,
      false,
      null,
    ]);
    for (const bad of [
      `[${long}, 01]`,
      `[${long}, -]`,
      `[${long}, "a\u0001"]`,
      `[${long}, "open]`,
      `[${long}, tru]`,
      `[${long}, 1.]`,
    ]) {
      expect(() => parseExactJson(bad), bad).toThrow(SyntaxError);
    }
  });

  it("writes bigints as their digits", () => {
    const text = '{"reason":[["gnt:user","r",1795482117065516288]],"x":[1,null,"s"]}';
    expect(stringifyExactJson(parseExactJson(text))).toBe(text);
    expect(stringifyExactJson({ a: 1, b: undefined, c: [undefined] })).toBe('{"a":1,"c":[null]}');
  });

  it("reports which numbers were written as floats", () => {
    const seen: [unknown, string | number][] = [];
    const v = parseExactJson('{"priority": 1.0, "action": ["RATE_LIMIT", 1e1], "n": 2}', (holder, key) =>
      seen.push([holder, key]),
    ) as {
      action: unknown[];
    };
    expect(seen.map(([, k]) => k)).toEqual(["priority", 1]);
    expect(seen[1][0]).toBe(v.action);
  });

  it("accepts and refuses exactly what JSON.parse does, and agrees on the values (property)", () => {
    const near = fc.oneof(
      fc.json(),
      fc.string(),
      fc.json().map((t) => t.replace(/\d+/, (d) => `${d}${"7".repeat(17)}`)),
      fc
        .tuple(
          fc.json(),
          fc.nat(40),
          fc.constantFrom("", " ", "]", "}", ",", "01", "-", "1.", '"', "\\", "\u0001", "tru"),
        )
        .map(([t, i, s]) => t.slice(0, i) + s + t.slice(i)),
    );
    fc.assert(
      fc.property(near, (text) => {
        const ours = outcome(() => parseExactJson(text));
        const theirs = outcome(() => JSON.parse(text) as unknown);
        expect(ours.ok).toBe(theirs.ok);
        if (ours.ok && theirs.ok) {
          // Equal once bigints are read as the doubles JSON.parse makes of them.
          expect(asDoubles(ours.value)).toEqual(theirs.value);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("round-trips any exact value through text (property)", () => {
    const big = fc
      .bigInt({ min: -(2n ** 70n), max: 2n ** 70n })
      .map((b) => (Number.isSafeInteger(Number(b)) && BigInt(Number(b)) === b ? Number(b) : b));
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        big,
        fc.string(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("v"), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie("v"), { maxKeys: 4 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (v) => {
        expect(parseExactJson(stringifyExactJson(v))).toEqual(v);
      }),
    );
  });
});
