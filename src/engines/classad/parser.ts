/**
 * Recursive-descent ClassAd parser following the library's grammar and
 * precedence (ternary, ||, &&, |, ^, &, equality, relational, shift,
 * additive, multiplicative, unary, postfix with elvis, primary).
 */
import { borrowCodes, releaseCodes } from "./char-codes.js";
import { Lexer, T } from "./lexer.js";
import type { Node, Op } from "./node.js";
import { parseAbsTimeString, parseRelTimeString, relTimeText } from "./time.js";
import { Real, UNDEF, ERROR, type Value } from "./values.js";

const MAX_DEPTH = 400;

/** A parse failure with its offset in the source. */
export class ParseFailure {
  constructor(
    readonly message: string,
    readonly offset: number,
  ) {}
}

/** Converts a source offset to the `line:column` form used in errors. */
export function lineCol(src: string, offset: number): string {
  let line = 1;
  let col = 1;
  for (let i = 0; i < offset && i < src.length; i++) {
    if (src.charCodeAt(i) === 10) {
      line++;
      col = 1;
    } else col++;
  }
  return `${line}:${col}`;
}

/** Binary operator tokens: precedence level (low to high) and operator. */
const BIN: Partial<Record<T, readonly [number, Op]>> = {
  [T.Or]: [0, "||"],
  [T.And]: [1, "&&"],
  [T.BitOr]: [2, "|"],
  [T.BitXor]: [3, "^"],
  [T.BitAnd]: [4, "&"],
  [T.Eq]: [5, "=="],
  [T.Ne]: [5, "!="],
  [T.MetaEq]: [5, "=?="],
  [T.MetaNe]: [5, "=!="],
  [T.Lt]: [6, "<"],
  [T.Le]: [6, "<="],
  [T.Gt]: [6, ">"],
  [T.Ge]: [6, ">="],
  [T.Shl]: [7, "<<"],
  [T.Shr]: [7, ">>"],
  [T.Ushr]: [7, ">>>"],
  [T.Plus]: [8, "+"],
  [T.Minus]: [8, "-"],
  [T.Mul]: [9, "*"],
  [T.Div]: [9, "/"],
  [T.Mod]: [9, "%"],
};

/** A parser over one source; `parseExpression` may be called repeatedly. */
export class Parser {
  readonly lx: Lexer;
  /** How deeply nested the parse is now (bounded by MAX_DEPTH). */
  depth = 0;

  /** `codes` are the text's bytes (char-codes.ts), when the caller has them. */
  constructor(src: string, oldStrings = false, charged = false, codes?: Uint8Array) {
    this.lx = new Lexer(src, codes);
    this.lx.oldStrings = oldStrings;
    this.lx.charged = charged;
    if (charged) this.lx.parsing();
    this.lx.next();
  }

  /** The kind of the current (unconsumed) token. */
  t(): T {
    return this.lx.kind;
  }

  /** Consumes the current token. */
  advance(): void {
    this.lx.next();
  }

  fail(msg: string): never {
    throw new ParseFailure(msg, this.lx.start);
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) this.fail("expression nested too deeply");
  }

  /** Expression ::= LogicalOr [ '?' Expression ':' Expression ]. */
  parseExpression(): Node {
    this.enter();
    const c = this.binary(0);
    let out = c;
    if (this.t() === T.QMark) {
      this.advance();
      const a = this.parseExpression();
      if (this.t() !== T.Colon) this.fail("expected `:`");
      this.advance();
      const b = this.parseExpression();
      out = { k: "cond", c, a, b };
    }
    this.depth--;
    return out;
  }

  // Precedence climbing over the binary levels (0 = `||` ... 9 = `*`). Each operator of a
  // chain (`1 + 1 + …`) makes the tree one level deeper, so it counts as a nesting level.
  private binary(minLevel: number): Node {
    let left = this.unary();
    let links = 0;
    for (;;) {
      const info = BIN[this.t()];
      if (info === undefined || info[0] < minLevel) break;
      this.advance();
      this.enter();
      links++;
      const right = this.binary(info[0] + 1);
      left = { k: "op", op: info[1], a: left, b: right };
    }
    this.depth -= links;
    return left;
  }

  private unary(): Node {
    const t = this.t();
    if (t === T.Minus || t === T.Plus || t === T.BitNot || t === T.Not) {
      this.enter();
      this.advance();
      const a = this.unary();
      this.depth--;
      const op: Op = t === T.Minus ? "u-" : t === T.Plus ? "u+" : t === T.BitNot ? "~" : "!";
      return { k: "op", op, a, b: null };
    }
    return this.postfix();
  }

  private postfix(): Node {
    this.enter();
    let e = this.primary();
    let links = 0;
    for (;;) {
      const t = this.t();
      // each suffix (`x[0][0]…`, `a.b.c…`) makes the tree one level deeper
      if (t === T.LBox || t === T.Elvis || t === T.Dot) {
        this.enter();
        links++;
      }
      if (t === T.LBox) {
        this.advance();
        const i = this.parseExpression();
        if (this.t() !== T.RBox) this.fail("expected `]`");
        this.advance();
        e = { k: "op", op: "[]", a: e, b: i };
      } else if (t === T.Elvis) {
        this.advance();
        const d = this.postfix();
        e = { k: "op", op: "?:", a: e, b: d };
      } else if (t === T.Dot) {
        this.advance();
        if (this.t() !== T.Ident) this.fail("expected an attribute name after `.`");
        const name = this.lx.sval;
        this.advance();
        e = { k: "attr", name, lc: name.toLowerCase(), scope: e, abs: false };
      } else break;
    }
    this.depth -= links + 1;
    return e;
  }

  private lit(v: Value): Node {
    this.advance();
    return { k: "lit", v };
  }

  private primary(): Node {
    const lx = this.lx;
    switch (this.t()) {
      case T.Ident: {
        const name = lx.sval;
        this.advance();
        if (this.t() === T.LParen) return this.call(name);
        return { k: "attr", name, lc: name.toLowerCase(), scope: null, abs: false };
      }
      case T.Dot: {
        this.advance();
        if (this.t() !== T.Ident) this.fail("expected an attribute name after `.`");
        const name = lx.sval;
        this.advance();
        return { k: "attr", name, lc: name.toLowerCase(), scope: null, abs: true };
      }
      case T.LParen: {
        this.advance();
        const a = this.parseExpression();
        if (this.t() !== T.RParen) this.fail("expected `)`");
        this.advance();
        return { k: "paren", a };
      }
      case T.LBox:
        return this.adLiteral();
      case T.LBrace:
        return this.listLiteral();
      case T.Undef:
        return this.lit(UNDEF);
      case T.Err:
        return this.lit(ERROR);
      case T.True:
        return this.lit(true);
      case T.False:
        return this.lit(false);
      case T.Int:
        return this.lit(lx.ival);
      case T.Real:
        return this.lit(new Real(lx.rval));
      case T.Str:
        return this.lit(lx.sval);
      case T.Error:
        return this.fail("invalid token");
      case T.End:
        return this.fail("unexpected end of input");
      default:
        return this.fail("unexpected token");
    }
  }

  private call(name: string): Node {
    this.advance(); // (
    const args: Node[] = [];
    if (this.t() !== T.RParen) {
      for (;;) {
        args.push(this.parseExpression());
        // in this (old-semantics) mode a `;` also separates arguments
        if (this.t() === T.Comma || this.t() === T.Semi) {
          this.advance();
          continue;
        }
        if (this.t() !== T.RParen) this.fail("expected `,` or `)`");
        break;
      }
    }
    this.advance(); // )
    const lc = name.toLowerCase();
    if ((lc === "abstime" || lc === "reltime") && args.length === 1) {
      const a = args[0];
      if (a.k === "lit" && typeof a.v === "string") {
        if (lc === "abstime") {
          const t = parseAbsTimeString(a.v);
          if (t === null) this.fail("invalid absTime literal");
          return { k: "lit", v: t };
        }
        const r = parseRelTimeString(a.v);
        if (r === null) this.fail("invalid relTime literal");
        return { k: "lit", v: new Real(r), text: relTimeText(r) };
      }
    }
    return { k: "call", name, lc, args };
  }

  /** `[ name = expr; ... ]`; extra semicolons are tolerated where the library tolerates them. */
  adLiteral(): Node {
    this.enter();
    this.advance(); // [
    const attrs: [string, Node][] = [];
    while (this.t() !== T.RBox) {
      if (this.t() === T.Semi) {
        // leading empty statements are skipped, but one may not be the last thing before `]` (`[;]` is an error)
        this.advance();
        if (this.t() === T.RBox) this.fail("expected an attribute name");
        continue;
      }
      if (this.t() !== T.Ident) this.fail("expected an attribute name");
      const name = this.lx.sval;
      this.advance();
      if (this.t() !== T.Bound) this.fail("expected `=`");
      this.advance();
      attrs.push([name, this.parseExpression()]);
      if (this.t() !== T.Semi && this.t() !== T.RBox) this.fail("expected `;` or `]`");
      while (this.t() === T.Semi) this.advance();
    }
    this.advance();
    this.depth--;
    return { k: "ad", attrs };
  }

  private listLiteral(): Node {
    this.enter();
    this.advance(); // {
    const items: Node[] = [];
    if (this.t() !== T.RBrace) {
      for (;;) {
        items.push(this.parseExpression());
        if (this.t() === T.Comma) {
          this.advance();
          continue;
        }
        if (this.t() !== T.RBrace) this.fail("expected `,` or `}`");
        break;
      }
    }
    this.advance();
    this.depth--;
    return { k: "list", items };
  }
}

/** The outcome of parsing a complete text. */
export type ParseResult = { ok: true; node: Node } | { ok: false; message: string; offset: number };

/** Runs a parse of `src` over its bytes `given`, or over ones lent for it (given back however it ends). */
function guard(src: string, fn: (codes: Uint8Array) => Node, given?: Uint8Array): ParseResult {
  const codes = given ?? borrowCodes(src);
  try {
    return { ok: true, node: fn(codes) };
  } catch (e) {
    if (e instanceof ParseFailure) return { ok: false, message: e.message, offset: e.offset };
    if (e instanceof RangeError) return { ok: false, message: "expression nested too deeply", offset: 0 };
    throw e;
  } finally {
    if (given === undefined) releaseCodes(codes);
  }
}

/**
 * Parses a whole text as one expression (nothing may follow it); `charged` texts (from requests)
 * pay for reading and parsing their tokens as they go (lexer.ts, PARSE_UNITS_PER_TOKEN), so a
 * spent budget ends the parse with `BudgetExceeded`.
 * `depth` is the nesting the text sits in (1 for an attribute's value inside an ad literal), which
 * counts against the nesting bound as it would if the enclosing text were parsed whole. `codes` may
 * hold the text's bytes (char-codes.ts; a view of a larger text's), else they are copied.
 */
export function parseExpr(
  src: string,
  oldStrings = false,
  charged = false,
  depth = 0,
  codes?: Uint8Array,
): ParseResult {
  return guard(
    src,
    (units) => {
      const p = new Parser(src, oldStrings, charged, units);
      p.depth = depth;
      const n = p.parseExpression();
      if (p.t() !== T.End) p.fail("unexpected text after the expression");
      return n;
    },
    codes,
  );
}

/** Parses a whole text as a new-syntax ad literal `[ ... ]` (`charged` as for {@link parseExpr}). */
export function parseAdLiteral(src: string, charged = false): ParseResult {
  return guard(src, (codes) => {
    const p = new Parser(src, false, charged, codes);
    if (p.t() !== T.LBox) p.fail("expected `[`");
    const n = p.adLiteral();
    if (p.t() !== T.End) p.fail("unexpected text after the ad");
    return n;
  });
}
