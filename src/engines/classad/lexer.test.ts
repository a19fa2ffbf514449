import { describe, expect, it } from "vitest";
import { Lexer, T, unescapeNew } from "./lexer.js";

function kinds(src: string): T[] {
  const lx = new Lexer(src);
  const out: T[] = [];
  for (let k = lx.next(); k !== T.End && k !== T.Error; k = lx.next()) out.push(k);
  if (lx.kind === T.Error) out.push(T.Error);
  return out;
}

describe("lexer", () => {
  it("glues a minus to a number only where a value cannot precede it", () => {
    expect(kinds("-1")).toEqual([T.Int]);
    expect(kinds("a -1")).toEqual([T.Ident, T.Minus, T.Int]);
    expect(kinds("(-1)")).toEqual([T.LParen, T.Int, T.RParen]);
    expect(kinds("- 1")).toEqual([T.Minus, T.Int]);
  });
  it("reads multi-character operators greedily", () => {
    expect(kinds("=?= =!= >>> >> >= ?: ? :")).toEqual([
      T.MetaEq,
      T.MetaNe,
      T.Ushr,
      T.Shr,
      T.Ge,
      T.Elvis,
      T.QMark,
      T.Colon,
    ]);
    expect(kinds("is isnt IS")).toEqual([T.MetaEq, T.MetaNe, T.MetaEq]);
  });
  it("rejects leading zeros, hex and incomplete reals", () => {
    for (const s of ["007", "0x1F", "1.", "5e", "1e+"]) expect(kinds(s)).toContain(T.Error);
    expect(kinds("0.5 00.5 .5 1e3")).toEqual([T.Real, T.Real, T.Real, T.Real]);
  });
  it("keeps int64 exact and turns out-of-range literals into 0", () => {
    const lx = new Lexer("-9223372036854775808");
    lx.next();
    expect(lx.ival).toBe(-9223372036854775808n);
    const big = new Lexer("99999999999999999999");
    big.next();
    expect(big.ival).toBe(0);
  });
  it("decodes escapes: octal with the 0-3 rule, unknown escapes stand for themselves, NUL is rejected", () => {
    expect(unescapeNew("\\101\\x41\\n")).toBe("Ax41\n");
    expect(unescapeNew("\\477")).toBe("'7");
    expect(unescapeNew("a\\0")).toBeNull();
  });
  it("concatenates adjacent string literals and skips comments", () => {
    const lx = new Lexer('"ab" /* c */ "cd"');
    expect(lx.next()).toBe(T.Str);
    expect(lx.sval).toBe("ab");
    const lx2 = new Lexer('"ab"  \n "cd" // x');
    lx2.next();
    expect(lx2.sval).toBe("abcd");
    expect(lx2.next()).toBe(T.End);
  });
  it("reads old-syntax strings with a literal backslash", () => {
    const lx = new Lexer('"C:\\tmp\\"x"');
    lx.oldStrings = true;
    lx.next();
    expect(lx.sval).toBe('C:\\tmp"x');
  });
});
