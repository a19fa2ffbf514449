import { beforeEach, describe, expect, it } from "vitest";
import {
  clearExprCache,
  clearSeenTexts,
  parseNewAd,
  parseOldAd,
} from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { compile } from "../../src/engines/classad/compile.js";
import { evalAttr } from "../../src/engines/classad/evaluate.js";
import { borrowCodes, releaseCodes } from "../../src/engines/classad/char-codes.js";
import { Lexer } from "../../src/engines/classad/lexer.js";
import { Compiled } from "../../src/engines/classad/node.js";
import { parseExpr } from "../../src/engines/classad/parser.js";
import { EvalState } from "../../src/engines/classad/state.js";
import { Checked, checkExpression, MAX_CHECKED_TOKENS } from "../../src/engines/classad/syntax-check.js";
import { unparseNode as unparse } from "../../src/engines/classad/unparse.js";
import { Budget } from "../../src/engines/common/budget.js";
import { JOB_AD, slotAd } from "../../bench/fixtures.js";

/** The bytes of `text` as the readers see them (char-codes.ts), with the 0 after them. */
function bytesOf(text: string): Uint8Array {
  const pooled = borrowCodes(text);
  const own = pooled.slice(0, text.length + 1);
  releaseCodes(pooled);
  return own;
}

/** What the syntax check says of `text` lexed alone (old long-form strings, or new-syntax ones). */
function check(text: string, oldStrings: boolean): Checked {
  const lx = Lexer.over(text, bytesOf(text), 0, text.length);
  lx.kindsOnly = true;
  lx.oldStrings = oldStrings;
  return checkExpression(lx);
}

/**
 * The check is sound: whatever it accepts, the parser accepts (a lone literal as a literal,
 * anything else as more), in both string forms and at the depth each sits at.
 */
function expectSound(text: string): void {
  for (const oldStrings of [true, false]) {
    const got = check(text, oldStrings);
    if (got === Checked.Unsure) continue;
    const p = parseExpr(text, oldStrings, false, oldStrings ? 0 : 1);
    expect(p.ok, `${JSON.stringify(text)} passed the check but does not parse`).toBe(true);
    if (!p.ok) continue;
    expect(p.node.k === "lit", `${JSON.stringify(text)}: check ${got}, parsed to ${p.node.k}`).toBe(
      got === Checked.Literal,
    );
  }
}

const ACCEPTED = [
  'TARGET.Arch == "X86_64" && (TARGET.Memory >= RequestMemory)',
  "START && (TARGET.RequestMemory <= MY.Memory) && (TARGET.RequestCpus <= MY.Cpus)",
  "TARGET.Memory + TARGET.Mips",
  "Cpus",
  "a ? b : c",
  "a ? b ? c : d : e ? f : g",
  "(a ? b : c) + d",
  "f(a ? b : c, d; e)",
  "f()",
  "{}",
  "{1, 2, {3}}[1]",
  "x[a ? 1 : 2].y",
  "a ?: b ?: c",
  "a ?: f(x)",
  "-a ?: b",
  ".foo + - - ~ ! 1",
  "a =?= undefined && b =!= error",
  "a is b isnt c",
  "1 - -1",
  "x.y.z[0]",
  'strcat("a" , "b") /* c */ // d',
  "1 + 2 * 3 >>> 4 << 5 | 6 ^ 7 & 8 % 9 / 10",
  "a-1 - -.5 - 1.5e3 + 2E-2 * 0 - 10",
  "x<=1&&y>=2||z!=3&&!w&&v<u&&t>s",
  "a<<1>>2>>>3",
  "TRUE && Undefined isnt ERROR || FALSE",
  "_x9 . y_ [ 0 ]\t+\r\n.z",
  "a - .5",
];

const REFUSED = [
  "a b",
  "a +",
  "(a",
  "a)",
  "a ? b",
  "a ? b : c : d",
  "f(,)",
  "f(a,)",
  "{1,}",
  "{1 : 2}",
  "a.f(x)",
  ".f(x)",
  "a ?: -b",
  "a ?: [x = 1]",
  "[x = 1]",
  'absTime("2024-01-01")',
  'RelTime("1d")',
  "'quoted'",
  "x = 1",
  "is",
  "a[1",
  "(a ? b) : c",
  '"unterminated',
  "a /* unterminated",
  "01",
  "1.",
  "x @ y",
  "",
  "007 + a",
  "0x1F",
  "1e + a",
  "a =! b",
  "a \u00e9",
  "1..2",
];

describe("the syntax check of deferred ad expressions", () => {
  it("accepts the shapes ads are made of", () => {
    for (const t of ACCEPTED) expect(check(t, true), t).toBe(Checked.Expression);
    expect(check("42", true)).toBe(Checked.Literal);
    expect(check('"a\\"b"', true)).toBe(Checked.Literal);
  });

  it("refuses what the parser refuses, and what it is not sure of", () => {
    for (const t of REFUSED) expect(check(t, true), t).toBe(Checked.Unsure);
    // a new-syntax escape may decode to NUL, which the parser rejects: left to the parser
    expect(check('"a\\000b" + x', false)).toBe(Checked.Unsure);
  });

  it("leaves long texts to the parser, which alone bounds their nesting", () => {
    const long = Array.from({ length: MAX_CHECKED_TOKENS }, (_, i) => `a${i}`).join(" + ");
    expect(check(long, true)).toBe(Checked.Unsure);
    const deep = "(".repeat(300) + "1" + ")".repeat(300);
    expect(check(deep, true)).toBe(Checked.Unsure);
    const p = parseExpr(deep, true);
    expect(p.ok ? "ok" : p.message).toBe("expression nested too deeply");
  });

  it("checks a stretch as the text alone whatever follows it: a name's or a number's unit, or nothing", () => {
    // the check's name and integer loops stop at the unit after the stretch; where that unit would go
    // on with a name or a number (or there is none), they read a copy of the stretch ended by a 0
    const over = (text: string, after: string, oldStrings: boolean): Checked => {
      const all = text + after;
      const codes = bytesOf(all).subarray(0, all.length);
      const lx = Lexer.over(all, codes, 0, text.length);
      lx.kindsOnly = true;
      lx.oldStrings = oldStrings;
      return checkExpression(lx);
    };
    for (const t of [...ACCEPTED, ...REFUSED, "abc", "12", "a.b + 1", "f(x_1)"])
      for (const after of ["", "x", "Q", "7", "_", " ", "\n", ";"])
        for (const oldStrings of [true, false])
          expect([t, after, over(t, after, oldStrings)]).toEqual([t, after, check(t, oldStrings)]);
    expect(over("abc", "d", true)).toBe(Checked.Expression);
    expect(over("a + 12", "3", true)).toBe(Checked.Expression);
  });

  it("accepts nothing the parser rejects (hand-written texts and 20,000 random token strings)", () => {
    for (const t of [...ACCEPTED, ...REFUSED]) expectSound(t);
    const pieces = [
      "a",
      "B.c",
      "1",
      "-1",
      "2.5",
      '"s"',
      "'q'",
      "true",
      "undefined",
      "error",
      "f",
      "absTime",
      "(",
      ")",
      "[",
      "]",
      "{",
      "}",
      ",",
      ";",
      "?",
      ":",
      "?:",
      ".",
      "=",
      "+",
      "-",
      "*",
      "!",
      "~",
      "&&",
      "||",
      "==",
      "=?=",
      "is",
      "<",
      ">>>",
      " ",
      "/* c */",
      "// c\n",
      "0",
      "007",
      "0x1",
      "1e5",
      "1.5",
      ".5",
      "-.5",
      "<=",
      ">=",
      "<<",
      ">>",
      "!=",
      "=!=",
      "&",
      "|",
      "^",
      "%",
      "/",
      "isnt",
      "TRUE",
      "Undefined",
      "_x1",
      "\u00e9",
      "\t",
    ];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + rand(12);
      let t = "";
      for (let k = 0; k < n; k++) t += pieces[rand(pieces.length)] + (rand(3) === 0 ? " " : "");
      expectSound(t);
      if (check(t, true) !== Checked.Unsure) accepted++;
    }
    // the random strings reach the accepting paths, not only the refusals
    expect(accepted).toBeGreaterThan(500);
  });

  it("pays for the tokens it reads as the lexer's next() does: a batch at the 64th", () => {
    const paid = (text: string): number => {
      const b = new Budget(1_000);
      b.run(() => {
        const lx = Lexer.over(text, bytesOf(text).subarray(0, text.length), 0, text.length);
        lx.kindsOnly = true;
        lx.oldStrings = true;
        lx.charged = true;
        expect(checkExpression(lx)).toBe(Checked.Expression);
      });
      return b.used;
    };
    const sum = (k: number) => Array.from({ length: k }, (_, i) => `a${i}`).join(" + ");
    // k names and k - 1 operators, then the end: 62 tokens read, then 64
    expect(paid(sum(31))).toBe(0);
    expect(paid(sum(32))).toBe(32);
    expect(paid(sum(45))).toBe(32);
  });
});

describe("deferred ad expressions", () => {
  beforeEach(() => {
    clearExprCache();
    clearSeenTexts();
  });

  const ad = (r: ReturnType<typeof parseOldAd>): ClassAd => {
    if (!r.ok) throw new Error(r.error.message);
    return r.ad;
  };
  const requirementsSlot = (a: ClassAd) => a.slots[a.layout.slotOf("requirements")];

  it("reads an ad's expressions without parsing them, and parses each on first use", () => {
    const job = ad(parseOldAd(JOB_AD));
    const slot = ad(parseOldAd(slotAd(3)));
    const req = requirementsSlot(job);
    expect(req).toBeInstanceOf(Compiled);
    expect((req as Compiled).pending).toBe(true);
    const st = new EvalState({ now: 1_700_000_000_000, random: () => 0.5 });
    expect(evalAttr(job, "requirements", slot, st)).toBe(true);
    expect((req as Compiled).pending).toBe(false);
    expect(unparse((req as Compiled).node)).toContain("TARGET.Arch");
  });

  it("gives the same values, costs and trees as an expression parsed at once", () => {
    const text = '(TARGET.Memory >= 2048) && strcmp(Name, "x") != 0 ? Memory * 2 : -1';
    const deferred = requirementsSlot(
      ad(parseOldAd(`Requirements = ${text}\nMemory = 4096\nName = "y"`)),
    ) as Compiled;
    expect(deferred.pending).toBe(true);
    const p = parseExpr(text, true);
    if (!p.ok) throw new Error(p.message);
    const eager = compile(p.node);
    expect(unparse(deferred.node)).toBe(unparse(p.node));
    expect(deferred.cost).toBe(eager.cost);
    expect(deferred.height).toBe(eager.height);
  });

  it("charges the parse and compile to the budget of the evaluation that first uses it", () => {
    const job = ad(parseOldAd(JOB_AD));
    const slot = ad(parseOldAd(slotAd(3)));
    const st = new EvalState({ now: 1_700_000_000_000, random: () => 0.5 });
    const first = new Budget(1_000_000);
    first.run(() => evalAttr(job, "requirements", slot, st));
    const second = new Budget(1_000_000);
    second.run(() => evalAttr(job, "requirements", slot, st));
    // compiling costs 3 units a node: the first evaluation pays for the job's and the slot's trees
    expect(first.used - second.used).toBeGreaterThan(30);
  });

  it("reports a new-syntax ad's values as before and defers them too", () => {
    const r = parseNewAd("[ a = b + 1; b = 2; c = { a, b }[0] ]");
    if (!r.ok) throw new Error(r.error.message);
    const a = r.ad.slots[0] as Compiled;
    expect(a.pending).toBe(true);
    const st = new EvalState({ now: 1_700_000_000_000, random: () => 0.5 });
    expect(evalAttr(r.ad, "a", null, st)).toBe(3);
    expect(evalAttr(r.ad, "c", null, st)).toBe(3);
    expect(a.pending).toBe(false);
  });

  it("still refuses an ad with a bad expression when it is read, with the parser's message and place", () => {
    for (const [line, message] of [
      ["Requirements = (a &&", "unexpected end of input"],
      ["Requirements = a ? b", "expected `:`"],
      ['Requirements = absTime("never")', "invalid absTime literal"],
      ["Requirements = f(,)", "unexpected token"],
      [`Requirements = ${"(".repeat(300)}1${")".repeat(300)}`, "expression nested too deeply"],
    ]) {
      const r = parseOldAd(`MyType = "Job"\n${line}`);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.message).toBe(`attribute \`Requirements\`: ${message}`);
      expect(r.error.at).toBe("2:15");
    }
  });
});
