/**
 * Property tests: no input crashes or hangs the lexer, parser, ad readers or
 * evaluator; every value prints; printed expressions parse back to the same
 * printed form.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readAd } from "../../src/engines/classad/ad-input.js";
import { emptyAd } from "../../src/engines/classad/classad.js";
import { compile } from "../../src/engines/classad/compile.js";
import { evalCompiled } from "../../src/engines/classad/evaluate.js";
import { parseExpr } from "../../src/engines/classad/parser.js";
import { EvalState } from "../../src/engines/classad/state.js";
import { unparseNode, unparseValue } from "../../src/engines/classad/unparse.js";
import { typeName } from "../../src/engines/classad/values.js";
import { readConfig } from "../../src/engines/classad/pool-config.js";
import { matchEngine } from "../../src/engines/classad/policy.js";

const TYPES = new Set([
  "integer",
  "real",
  "string",
  "boolean",
  "undefined",
  "error",
  "list",
  "classad",
  "abstime",
  "reltime",
]);
const CTX = { now: 1_700_000_000_000, random: () => 0.3 };

const atom = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.constantFrom("9223372036854775807", "-9223372036854775808", "0.5", "1e308", "-0.0", "1.5E-3"),
  fc.constantFrom("true", "false", "undefined", "error", '"abc"', '"A\\tb"', '""', "{}", "[]"),
  fc.constantFrom("a", "b", "MY.a", "TARGET.b", ".a", "PARENT", "ROOT", "x.y", "CurrentTime"),
  fc.constantFrom(
    'relTime("1:30")',
    'absTime("2009-02-13T23:31:30Z")',
    '{1, 2.5, "s"}',
    "[a = 1; b = a + 1]",
  ),
  fc.constantFrom(
    "relTime(0) / 0",
    "relTime(90061.5)",
    "absTime(9223372036854775807)",
    'real("NaN")',
    "-1.0 / 0",
    "1e300",
  ),
);
const BINOPS = [
  "+",
  "-",
  "*",
  "/",
  "%",
  "&&",
  "||",
  "==",
  "!=",
  "=?=",
  "=!=",
  "<",
  "<=",
  ">",
  ">=",
  "&",
  "|",
  "^",
  "<<",
  ">>",
  ">>>",
];
const FUNCS = [
  "size",
  "strcat",
  "int",
  "real",
  "string",
  "bool",
  "floor",
  "round",
  "isUndefined",
  "isError",
  "member",
  "sum",
  "min",
  "toUpper",
  "substr",
  "join",
  "regexp",
  "versioncmp",
  "splitTime",
  "formatTime",
  "interval",
  "eval",
  "quantize",
  "pow",
  "stringListMember",
  "anyCompare",
  "ifThenElse",
  "unparse",
  "unresolved",
  "time",
  "random",
  "noSuchFn",
  "absTime",
  "relTime",
  "getDays",
  "getYear",
  "getSeconds",
  "ceiling",
  "avg",
  "max",
  "replaceAll",
  "regexps",
];

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    atom,
    fc.tuple(tie("e"), fc.constantFrom(...BINOPS), tie("e")).map(([a, op, b]) => `(${a} ${op} ${b})`),
    fc.tuple(fc.constantFrom("-", "!", "~", "+"), tie("e")).map(([op, a]) => `${op}(${a})`),
    fc.tuple(tie("e"), tie("e"), tie("e")).map(([c, a, b]) => `(${c} ? ${a} : ${b})`),
    fc
      .tuple(fc.constantFrom(...FUNCS), fc.array(tie("e"), { maxLength: 3 }))
      .map(([f, args]) => `${f}(${args.join(", ")})`),
    fc.tuple(tie("e"), tie("e")).map(([a, i]) => `${a}[${i}]`),
    // elvis takes a postfix expression on its right, so the right side is parenthesized
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => `(${a} ?: (${b}))`),
    fc.array(tie("e"), { maxLength: 3 }).map((xs) => `{${xs.join(", ")}}`),
    fc.tuple(tie("e"), tie("e")).map(([a, b]) => `[a = ${a}; b = ${b}].b`),
  ),
})).e;

const MY = readAd('[ a = 3; b = "B"; x = [ y = 1 ]; l = { 1, 2 }; c = c + 1 ]');
const TARGET = readAd("[ b = 2.5; a = TARGET.a ]");

describe("classad properties", () => {
  it("parsing arbitrary text never throws", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        const r = parseExpr(s);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("parsing arbitrary text made of ClassAd tokens never throws", () => {
    const tok = fc.constantFrom(
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      ",",
      ";",
      "=",
      "==",
      "=?=",
      "?",
      ":",
      "?:",
      ".",
      "a",
      "1",
      "-",
      '"s"',
      "'q'",
      "/*",
      "*/",
      "//",
      "\\",
      "\n",
      " ",
      "1.5e",
      "0x",
      "007",
      "is",
      "isnt",
    );
    fc.assert(
      fc.property(fc.array(tok, { maxLength: 60 }), (ts) => {
        const r = parseExpr(ts.join(""));
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 2000 },
    );
  });

  it("deep nesting gives a parse error, not a stack overflow", () => {
    const r = parseExpr("(".repeat(50_000) + "1" + ")".repeat(50_000));
    expect(r.ok).toBe(false);
    const u = parseExpr("!".repeat(50_000) + "true");
    expect(u.ok).toBe(false);
  });

  it("random expressions evaluate to a typed value and print, alone and in a match", () => {
    if (!MY.ok || !TARGET.ok) throw new Error("fixture ads");
    fc.assert(
      fc.property(expr, (src) => {
        const p = parseExpr(src);
        // absTime("...")/relTime("...") literals are checked while parsing, so those may be rejected
        if (!p.ok && /[aA]bs[tT]ime\("|[rR]el[tT]ime\("/.test(src)) return;
        expect(p.ok).toBe(true);
        if (!p.ok) return;
        const c = compile(p.node);
        for (const target of [null, TARGET.ok ? TARGET.ad : null]) {
          const v = evalCompiled(c, MY.ok ? MY.ad : emptyAd(), target, new EvalState(CTX));
          expect(TYPES.has(typeName(v))).toBe(true);
          // Integers are safe JS integers or int64 bigints, never NaN or fractions
          if (typeof v === "number") expect(Number.isSafeInteger(v)).toBe(true);
          if (typeof v === "bigint") expect(BigInt.asIntN(64, v)).toBe(v);
          expect(typeof unparseValue(v)).toBe("string");
        }
      }),
      { numRuns: 1500 },
    );
  }, 60_000);

  it("printed expressions parse back to the same printed form", () => {
    fc.assert(
      fc.property(expr, (src) => {
        const p = parseExpr(src);
        if (!p.ok) return;
        const printed = unparseNode(p.node);
        const again = parseExpr(printed);
        expect(again.ok).toBe(true);
        if (again.ok) expect(unparseNode(again.node)).toBe(printed);
      }),
      { numRuns: 1000 },
    );
  });

  it("ad readers never throw on arbitrary text or JSON", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 200 }),
          fc.json().map((j) => j),
          fc.object(),
        ),
        (input) => {
          const r = readAd(input);
          expect(typeof r.ok).toBe("boolean");
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("the pool.conf reader and compiler never throw", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        readConfig(s);
        const r = matchEngine.compile(s);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 1500 },
    );
  });
});
