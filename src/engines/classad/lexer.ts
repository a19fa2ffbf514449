/**
 * ClassAd lexer (default, non-strict mode): tokens are produced on demand by
 * scanning the text's bytes in a typed array (char-codes.ts), so parsing
 * a 55-attribute ad allocates only the strings it must keep.
 */
import { spend } from "../common/budget.js";
import { borrowCodes } from "./char-codes.js";
import { keepShape } from "../common/shapes.js";

export const enum T {
  End,
  Error,
  Int,
  Real,
  Str,
  Ident,
  True,
  False,
  Undef,
  Err,
  LParen,
  RParen,
  LBox,
  RBox,
  LBrace,
  RBrace,
  Comma,
  Semi,
  Bound, // =
  Eq,
  Ne,
  MetaEq,
  MetaNe,
  Lt,
  Le,
  Gt,
  Ge,
  Shl,
  Shr,
  Ushr,
  Plus,
  Minus,
  Mul,
  Div,
  Mod,
  Not,
  BitNot,
  BitAnd,
  BitOr,
  BitXor,
  And,
  Or,
  QMark,
  Colon,
  Elvis,
  Dot,
}

const utf8 = new TextEncoder();
const utf8d = new TextDecoder();

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Token kinds after which a `-` is the binary operator, not a sign. */
function valueLike(k: T): boolean {
  return (
    k === T.Int ||
    k === T.Real ||
    k === T.True ||
    k === T.False ||
    k === T.Str ||
    k === T.Undef ||
    k === T.Err ||
    k === T.Ident ||
    k === T.Dot ||
    k === T.RBox ||
    k === T.RParen ||
    k === T.RBrace
  );
}

/**
 * Decodes the body of a quoted string: new-syntax escapes (`\n`, octal, any
 * other escaped character stands for itself). Returns null when an escape
 * produces NUL, which the library rejects.
 */
export function unescapeNew(body: string): string | null {
  if (body.indexOf("\\") < 0) return body;
  const bytes: number[] = [];
  const n = body.length;
  for (let i = 0; i < n; i++) {
    let c = body.charCodeAt(i);
    if (c === 92 && i < n - 1) {
      i++;
      c = body.charCodeAt(i);
      switch (c) {
        case 97:
          c = 7;
          break; // a
        case 98:
          c = 8;
          break; // b
        case 102:
          c = 12;
          break; // f
        case 110:
          c = 10;
          break; // n
        case 114:
          c = 13;
          break; // r
        case 116:
          c = 9;
          break; // t
        case 118:
          c = 11;
          break; // v
        default:
          if (c >= 48 && c <= 55) {
            let v = c - 48;
            if (i + 1 < n && body.charCodeAt(i + 1) >= 48 && body.charCodeAt(i + 1) <= 55) {
              i++;
              v = v * 8 + body.charCodeAt(i) - 48;
              if (v < 0x20 && i + 1 < n && body.charCodeAt(i + 1) >= 48 && body.charCodeAt(i + 1) <= 55) {
                i++;
                v = v * 8 + body.charCodeAt(i) - 48;
              }
            }
            if (v === 0) return null;
            bytes.push(v & 0xff);
            continue;
          }
      }
    }
    if (c < 0x80) bytes.push(c);
    else {
      // re-encode non-ASCII source text (handles surrogate pairs as one char)
      const cp = body.codePointAt(i) ?? c;
      if (cp > 0xffff) i++;
      for (const b of utf8.encode(String.fromCodePoint(cp))) bytes.push(b);
    }
  }
  return utf8d.decode(new Uint8Array(bytes));
}

/** Whether `src` at `p` holds `word` (lower case) ignoring ASCII case. */
function wordAt(src: Uint8Array, p: number, word: string): boolean {
  for (let i = 0; i < word.length; i++) if ((src[p + i] | 32) !== word.charCodeAt(i)) return false;
  return true;
}

/** The keyword token written at `src[p, p + len)` (any case), or `T.Ident`. */
export function keyword(src: Uint8Array, p: number, len: number): T {
  // the first character picks the one keyword the word may be (most names are none)
  const c0 = src[p] | 32;
  switch (len) {
    case 2:
      return c0 === 105 && wordAt(src, p, "is") ? T.MetaEq : T.Ident;
    case 4:
      if (c0 === 116) return wordAt(src, p, "true") ? T.True : T.Ident;
      return c0 === 105 && wordAt(src, p, "isnt") ? T.MetaNe : T.Ident;
    case 5:
      if (c0 === 102) return wordAt(src, p, "false") ? T.False : T.Ident;
      return c0 === 101 && wordAt(src, p, "error") ? T.Err : T.Ident;
    case 9:
      return c0 === 117 && wordAt(src, p, "undefined") ? T.Undef : T.Ident;
  }
  return T.Ident;
}

/**
 * Tokens a charged lexer counts before it charges them, and what they cost: half a unit a
 * token (a decision's ads are read before they are evaluated, and reading is work too).
 */
export const TOKEN_BATCH = 64;
const TOKEN_BATCH_UNITS = 32;

/**
 * Units parsing a token of request text costs beyond reading it: the parse lexes it again with its
 * value and builds a tree node for most tokens, and compiling gives each node a closure (charged
 * per node, compile.ts). Parsing and compiling took 120–350 ns a token in node (a 131 KB balanced
 * sum, a 50,000-element list), several times a unit's worth, when only the compile was charged.
 * A charged parse pays them with its tokens; a new-syntax value, whose tokens the ad's reader
 * counted, pays them before it is parsed (expr-cache.ts).
 */
export const PARSE_UNITS_PER_TOKEN = 6;

/** What a batch of tokens costs a charged parse (reading and parsing them). */
const PARSED_BATCH_UNITS = TOKEN_BATCH_UNITS + PARSE_UNITS_PER_TOKEN * TOKEN_BATCH;

export class Lexer {
  pos = 0;
  kind: T = T.End;
  start = 0;
  sval = "";
  ival: number | bigint = 0;
  rval = 0;
  private prev: T = T.End;
  /** Old long-form ads: backslash is literal except before a quote. */
  oldStrings = false;
  /** Whether tokens are charged to the decision's work budget (texts from requests). */
  charged = false;
  /** What a charged lexer pays per batch of tokens: their reading, or with {@link parsing} their parse too. */
  private batchUnits = TOKEN_BATCH_UNITS;
  /**
   * Kinds only: the token kinds are the same, but no value is made (`sval`, `ival`, `rval` are left
   * as they were) and a string's escapes are not decoded, so an escape giving NUL is no error here.
   */
  kindsOnly = false;
  private uncharged = 0;

  /** The text's bytes (char-codes.ts: a non-ASCII unit is one byte, 0xff), then a 0 (the caller's from {@link borrowCodes}, or the lexer's own). */
  readonly codes: Uint8Array;
  /** Where the text lexed ends: `src.length`, or the end of the stretch given (see {@link Lexer.over}). */
  end: number;

  constructor(
    readonly src: string,
    codes?: Uint8Array,
  ) {
    this.codes = codes ?? borrowCodes(src);
    this.end = src.length;
  }

  /** A lexer over `src[start, end)` alone, `codes` holding the bytes of all of `src` (no copy, no cut). */
  static over(src: string, codes: Uint8Array, start: number, end: number): Lexer {
    const lx = new Lexer(src, codes);
    lx.pos = start;
    lx.end = end;
    return lx;
  }

  /**
   * A lexer over a copy of what is left of this one's stretch (`codes[pos, end)`, its text cut to match)
   * followed by a 0, with this one's settings: for a scanner whose loops stop at the unit after the text
   * (syntax-check.ts), when this one's is none or one that a name or number goes on through.
   */
  stopped(): Lexer {
    const len = this.end - this.pos;
    const own = new Uint8Array(len + 1);
    own.set(this.codes.subarray(this.pos, this.end));
    const lx = Lexer.over(this.src.slice(this.pos, this.end), own, 0, len);
    lx.kind = this.kind;
    lx.prev = this.prev;
    lx.oldStrings = this.oldStrings;
    lx.charged = this.charged;
    lx.batchUnits = this.batchUnits;
    lx.kindsOnly = this.kindsOnly;
    lx.uncharged = this.uncharged;
    return lx;
  }

  /** Advances to the next token and returns its kind; a charged lexer pays for every 64 tokens as it goes. */
  next(): T {
    this.prev = this.kind;
    this.kind = this.scan();
    if (this.charged && ++this.uncharged === TOKEN_BATCH) {
      this.uncharged = 0;
      spend(this.batchUnits);
    }
    return this.kind;
  }

  /**
   * The kind of the token at or after `pos` (blanks and comments skipped) when the token before it was of
   * kind `prev`, as {@link next} would answer it, but not counted or charged: for a scanner of its own
   * (syntax-check.ts) that hands the lexer the tokens it does not read itself, and pays with {@link payBatch}.
   */
  kindAt(pos: number, prev: T): T {
    this.pos = pos;
    this.prev = prev;
    this.kind = this.scan();
    return this.kind;
  }

  /** Pays for a batch of {@link TOKEN_BATCH} tokens counted by such a scanner, as {@link next} does (when {@link charged}). */
  payBatch(): void {
    if (this.charged) spend(this.batchUnits);
  }

  /** Charges the tokens (when {@link charged}) as a parse's: reading and parsing them, PARSE_UNITS_PER_TOKEN more each. */
  parsing(): void {
    this.batchUnits = PARSED_BATCH_UNITS;
  }

  private scan(): T {
    const s = this.codes;
    const n = this.end;
    let p = this.pos;
    while (p < n && isSpace(s[p])) p++;
    if (p + 1 < n && s[p] === 47 && (s[p + 1] === 47 || s[p + 1] === 42)) {
      p = this.afterComments(p);
      if (p < 0) {
        this.pos = n;
        return T.Error;
      }
    }
    this.start = p;
    if (p >= n) {
      this.pos = p;
      return T.End;
    }
    const c = s[p];
    if (c === 45 && !valueLike(this.prev)) {
      const c1 = p + 1 < n ? s[p + 1] : -1;
      if (isDigit(c1) || (c1 === 46 && p + 2 < n && isDigit(s[p + 2]))) return this.number(p);
    }
    if (isDigit(c)) return this.number(p);
    if (c === 46) {
      if (p + 1 < n && isDigit(s[p + 1])) return this.number(p);
      this.pos = p + 1;
      return T.Dot;
    }
    if (isAlpha(c) || c === 95) return this.word(p);
    if (c === 34) return this.string(p, 34);
    if (c === 39) return this.string(p, 39);
    return this.punct(p, c);
  }

  /**
   * Where the next token starts after the comment at `p` and any blanks and comments after it, or -1
   * when a `/*` comment is not closed (apart from {@link scan}, which is then small enough to inline).
   */
  private afterComments(from: number): number {
    const s = this.codes;
    const n = this.end;
    let p = from;
    for (;;) {
      while (p < n && isSpace(s[p])) p++;
      if (p + 1 < n && s[p] === 47) {
        const c2 = s[p + 1];
        if (c2 === 47) {
          p += 2;
          while (p < n && s[p] !== 10) p++;
          continue;
        }
        if (c2 === 42) {
          // the comment's end, looked for in the bytes (the text lexed may be a stretch of `src`)
          let e = p + 2;
          while (e + 1 < n && !(s[e] === 42 && s[e + 1] === 47)) e++;
          if (e + 1 >= n) return -1;
          p = e + 2;
          continue;
        }
      }
      return p;
    }
  }

  private number(p0: number): T {
    const s = this.codes;
    const n = this.end;
    let p = p0;
    if (s[p] === 45) p++;
    const digitsStart = p;
    while (p < n && isDigit(s[p])) p++;
    const intDigits = p - digitsStart;
    let real = false;
    if (p < n && s[p] === 46) {
      p++;
      if (p < n && isDigit(s[p])) {
        while (p < n && isDigit(s[p])) p++;
        real = true;
      } else {
        this.pos = p;
        return T.Error; // `1.`
      }
    }
    if (p < n && (s[p] | 32) === 101) {
      if (intDigits > 0 || real) {
        p++;
        if (p < n && (s[p] === 43 || s[p] === 45)) p++;
        if (!(p < n && isDigit(s[p]))) {
          this.pos = p;
          return T.Error;
        }
        while (p < n && isDigit(s[p])) p++;
        real = true;
      }
    }
    this.pos = p;
    if (real) {
      if (!this.kindsOnly) this.rval = Number(this.src.slice(p0, p));
      return T.Real;
    }
    // hex: 0x.. is an error in this mode (as is any other leading zero)
    if (p < n && s[digitsStart] === 48 && (s[p] | 32) === 120) {
      this.pos = p + 1;
      return T.Error;
    }
    if (s[p0] === 48 && p - p0 > 1) return T.Error;
    if (this.kindsOnly) return T.Int;
    const text = this.src.slice(p0, p);
    if (intDigits < 16) {
      this.ival = Number(text) + 0;
    } else {
      const b = BigInt(text);
      if (b > 9223372036854775807n || b < -9223372036854775808n) this.ival = 0;
      else this.ival = b >= -9007199254740991n && b <= 9007199254740991n ? Number(b) : b;
    }
    return T.Int;
  }

  private word(p0: number): T {
    const s = this.codes;
    const n = this.end;
    let p = p0 + 1;
    while (p < n) {
      const c = s[p];
      if (isAlpha(c) || isDigit(c) || c === 95) p++;
      else break;
    }
    this.pos = p;
    // keywords are recognised on the char codes, ignoring case, before any string is cut
    const k = keyword(s, p0, p - p0);
    if (k !== T.Ident || this.kindsOnly) return k;
    this.sval = this.src.slice(p0, p);
    return T.Ident;
  }

  private string(p0: number, delim: number): T {
    if (this.oldStrings) return this.oldString(p0, delim);
    const s = this.codes;
    const n = this.end;
    let out = "";
    let p = p0;
    for (;;) {
      p++;
      const bodyStart = p;
      let odd = false;
      while (p < n) {
        const c = s[p];
        if (c === delim && !odd) break;
        odd = c === 92 ? !odd : false;
        p++;
      }
      if (p >= n) {
        this.pos = n;
        return T.Error;
      }
      if (!this.kindsOnly) out += this.src.slice(bodyStart, p);
      // adjacent literals separated only by whitespace are concatenated
      let q = p + 1;
      while (q < n && isSpace(s[q])) q++;
      if (q < n && s[q] === delim) {
        p = q;
        continue;
      }
      this.pos = p + 1;
      break;
    }
    if (this.kindsOnly) return delim === 34 ? T.Str : T.Ident;
    const dec = unescapeNew(out);
    if (dec === null) return T.Error;
    this.sval = dec;
    return delim === 34 ? T.Str : T.Ident;
  }

  /** Old long-form strings: backslash is literal except `\"` inside the string. */
  private oldString(p0: number, delim: number): T {
    const s = this.codes;
    const n = this.end;
    let out = "";
    // the text from `from` to `p` is copied as written when the string ends or an escaped quote is met
    let from = p0 + 1;
    let p = from;
    for (;;) {
      if (p >= n) {
        this.pos = n;
        return T.Error;
      }
      const c = s[p];
      if (c === 92 && p + 1 < n && s[p + 1] === delim && p + 2 < n && s[p + 2] !== 10) {
        if (!this.kindsOnly) out += this.src.slice(from, p);
        from = p + 1; // the quote after the backslash stands for itself
        p += 2;
        continue;
      }
      if (c === delim) break;
      p++;
    }
    this.pos = p + 1;
    if (!this.kindsOnly) this.sval = out + this.src.slice(from, p);
    return delim === 34 ? T.Str : T.Ident;
  }

  private punct(p: number, c: number): T {
    const s = this.codes;
    const n = this.end;
    const c1 = p + 1 < n ? s[p + 1] : -1;
    const c2 = p + 2 < n ? s[p + 2] : -1;
    let len = 1;
    let k: T;
    switch (c) {
      case 40:
        k = T.LParen;
        break;
      case 41:
        k = T.RParen;
        break;
      case 91:
        k = T.LBox;
        break;
      case 93:
        k = T.RBox;
        break;
      case 123:
        k = T.LBrace;
        break;
      case 125:
        k = T.RBrace;
        break;
      case 44:
        k = T.Comma;
        break;
      case 59:
        k = T.Semi;
        break;
      case 43:
        k = T.Plus;
        break;
      case 45:
        k = T.Minus;
        break;
      case 42:
        k = T.Mul;
        break;
      case 47:
        k = T.Div;
        break;
      case 37:
        k = T.Mod;
        break;
      case 126:
        k = T.BitNot;
        break;
      case 94:
        k = T.BitXor;
        break;
      case 58:
        k = T.Colon;
        break;
      case 63:
        if (c1 === 58) {
          k = T.Elvis;
          len = 2;
        } else k = T.QMark;
        break;
      case 38:
        if (c1 === 38) {
          k = T.And;
          len = 2;
        } else k = T.BitAnd;
        break;
      case 124:
        if (c1 === 124) {
          k = T.Or;
          len = 2;
        } else k = T.BitOr;
        break;
      case 60:
        if (c1 === 61) {
          k = T.Le;
          len = 2;
        } else if (c1 === 60) {
          k = T.Shl;
          len = 2;
        } else k = T.Lt;
        break;
      case 62:
        if (c1 === 61) {
          k = T.Ge;
          len = 2;
        } else if (c1 === 62) {
          if (c2 === 62) {
            k = T.Ushr;
            len = 3;
          } else {
            k = T.Shr;
            len = 2;
          }
        } else k = T.Gt;
        break;
      case 61:
        if (c1 === 61) {
          k = T.Eq;
          len = 2;
        } else if (c1 === 63) {
          if (c2 === 61) {
            k = T.MetaEq;
            len = 3;
          } else {
            this.pos = p + 2;
            return T.Error;
          }
        } else if (c1 === 33 && c2 === 61) {
          k = T.MetaNe;
          len = 3;
        } else k = T.Bound; // `=!` not followed by `=` is `=` then `!` (lexer.cpp looks one character further)
        break;
      case 33:
        if (c1 === 61) {
          k = T.Ne;
          len = 2;
        } else k = T.Not;
        break;
      default:
        this.pos = p + 1;
        return T.Error;
    }
    this.pos = p + len;
    return k;
  }
}

/** A lexer kept alive so that its map, and the optimized code that checks it, outlive each decision (common/shapes.ts). */
keepShape(new Lexer("", new Uint8Array(1)));
