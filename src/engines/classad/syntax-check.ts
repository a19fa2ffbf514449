/**
 * A syntax check of one attribute expression that builds nothing: the token
 * kinds are followed through a small automaton (operand, operator, the
 * brackets, calls, lists and the `?` `:` of conditionals open around them).
 * It answers true only for a text the parser accepts (parser.ts), so an ad
 * reader may keep such a text and parse and compile it on first use; any text
 * it is not sure of (an ad literal, a time literal, more than
 * {@link MAX_CHECKED_TOKENS} tokens, anything wrong) answers false, and the
 * caller parses it at once, which reports errors exactly as before.
 */
import { Lexer, T, TOKEN_BATCH, keyword } from "./lexer.js";

/**
 * Tokens a checked text may have at most. Every nesting level the parser counts
 * against its bound (400) is entered for a token of the text or for an
 * expression that begins at one, so at most 2 per token: a text of 100 tokens
 * can never nest too deeply, nor recurse far enough to exhaust the stack.
 */
export const MAX_CHECKED_TOKENS = 100;

/** What the check expects next. */
const enum S {
  /** An operand, perhaps after unary operators. */
  Operand,
  /** An operand without unary operators (after `?:`, whose right side is a postfix expression). */
  Primary,
  /** An attribute name (after `.`). */
  Name,
  /** An operator or a closer, after an operand. */
  After,
  /** As After, and a `(` makes the operand before it (a plain name) a call. */
  AfterName,
  /** The first argument of a call, or its `)`. */
  FirstArg,
  /** The first item of a list, or its `}`. */
  FirstItem,
}

/** What an open bracket or conditional on the check's stack waits for. */
const enum Open {
  Paren = 1,
  Call,
  List,
  Index,
  /** A conditional whose `:` is still to come. */
  Cond,
  /** The `else` branch of a conditional, ended by whatever ends the expression around it. */
  Else,
}

/** Kinds of binary operator tokens (the parser's table, parser.ts). */
const BINARY = new Uint8Array(T.Dot + 1);
for (const t of [
  T.Or,
  T.And,
  T.BitOr,
  T.BitXor,
  T.BitAnd,
  T.Eq,
  T.Ne,
  T.MetaEq,
  T.MetaNe,
  T.Lt,
  T.Le,
  T.Gt,
  T.Ge,
  T.Shl,
  T.Shr,
  T.Ushr,
  T.Plus,
  T.Minus,
  T.Mul,
  T.Div,
  T.Mod,
])
  BINARY[t] = 1;

/** Kinds of literal tokens. */
const LITERAL = new Uint8Array(T.Dot + 1);
for (const t of [T.Int, T.Real, T.Str, T.True, T.False, T.Undef, T.Err]) LITERAL[t] = 1;

/** Kinds after which a `-` is the binary operator, not a number's sign (lexer.ts `valueLike`). */
const VALUE_LIKE = new Uint8Array(T.Dot + 1);
for (const t of [
  T.Int,
  T.Real,
  T.True,
  T.False,
  T.Str,
  T.Undef,
  T.Err,
  T.Ident,
  T.Dot,
  T.RBox,
  T.RParen,
  T.RBrace,
])
  VALUE_LIKE[t] = 1;

/**
 * The operators the check's scanner reads itself (the lexer's `punct`), by their first (ASCII) code unit:
 * the two-unit token a second unit makes ({@link PAIR_NEXT}, {@link PAIR}), a second unit that makes a
 * token the lexer is left to read ({@link LEFT_NEXT}: `<<`, `>>`), else the token the unit is alone
 * ({@link ALONE}; 0: left to the lexer, as `/`, `=`, quotes and anything unknown are).
 */
const PAIR_NEXT = new Int16Array(128).fill(-2);
const PAIR = new Uint8Array(128);
const LEFT_NEXT = new Int16Array(128).fill(-2);
const ALONE = new Uint8Array(128);
for (const [c, k] of [
  ["(", T.LParen],
  [")", T.RParen],
  ["[", T.LBox],
  ["]", T.RBox],
  ["{", T.LBrace],
  ["}", T.RBrace],
  [",", T.Comma],
  [";", T.Semi],
  ["+", T.Plus],
  ["-", T.Minus],
  ["*", T.Mul],
  ["%", T.Mod],
  ["~", T.BitNot],
  ["^", T.BitXor],
  [":", T.Colon],
  [".", T.Dot],
  ["?", T.QMark],
  ["&", T.BitAnd],
  ["|", T.BitOr],
  ["!", T.Not],
  ["<", T.Lt],
  [">", T.Gt],
] as const)
  ALONE[c.charCodeAt(0)] = k;
for (const [c, c1, k] of [
  ["?", ":", T.Elvis],
  ["&", "&", T.And],
  ["|", "|", T.Or],
  ["!", "=", T.Ne],
  ["<", "=", T.Le],
  [">", "=", T.Ge],
  ["=", "=", T.Eq],
] as const) {
  PAIR_NEXT[c.charCodeAt(0)] = c1.charCodeAt(0);
  PAIR[c.charCodeAt(0)] = k;
}
LEFT_NEXT[60] = 60;
LEFT_NEXT[62] = 62;

/** The check's stack of open brackets and conditionals (reused: checks do not nest). */
const stack = new Uint8Array(MAX_CHECKED_TOKENS + 2);

/** Whether `codes[p, p + 7)` spells `abstime` or `reltime` in any case (calls the parser turns into literals, which may fail). */
function timeLiteralCall(codes: Uint8Array, p: number, end: number): boolean {
  if (end - p !== 7) return false;
  const c0 = codes[p] | 32;
  if (c0 !== 97 && c0 !== 114) return false;
  const word = c0 === 97 ? "abstime" : "reltime";
  for (let i = 1; i < 7; i++) if ((codes[p + i] | 32) !== word.charCodeAt(i)) return false;
  return true;
}

/** Whether `codes[p, end)` holds a backslash (a new-syntax escape, which the parser decodes and may reject). */
function hasBackslash(codes: Uint8Array, p: number, end: number): boolean {
  for (; p < end; p++) if (codes[p] === 92) return true;
  return false;
}

/** Whether `codes[n]` is a unit that ends a name or a number (not a letter, digit or `_`, and there). */
function endsWord(codes: Uint8Array, n: number): boolean {
  if (n >= codes.length) return false;
  const c = codes[n];
  return !(((c | 32) - 97) >>> 0 < 26 || (c - 48) >>> 0 < 10 || c === 95);
}

/** What {@link checkExpression} found. */
export const enum Checked {
  /** Not surely an expression the parser accepts: parse it now. */
  Unsure,
  /** An expression the parser accepts, of more than a lone literal. */
  Expression,
  /** A lone literal token (the reader keeps its bare value: parse it now). */
  Literal,
}

/**
 * Whether the text the lexer `lx` is set over (kinds only, positioned at the
 * start, no token read yet) is surely one whole expression the parser accepts.
 * The check reads the tokens itself where it can and hands the lexer the rest;
 * a charged lexer is paid for every token as its next() would be.
 */
export function checkExpression(lx: Lexer): Checked {
  const codes = lx.codes;
  const n = lx.end;
  // the check's loops over a name's or a number's units stop at the unit after the text without a look
  // at `n`: one that ends them (the 0 after a whole text from char-codes.ts `borrowCodes`; after an
  // attribute's value a blank, a line feed, `;` or `]`), else they read a copy that has one (a 0)
  if (!endsWord(codes, n)) return checkExpression(lx.stopped());
  const newStrings = !lx.oldStrings;
  // the token read last: its kind, where it starts, where it ends
  let prev = T.End;
  let start = 0;
  let pos = lx.pos;
  let sp = 0;
  let s = S.Operand;
  // where the plain name before a `(` was written (a call's name)
  let nameStart = 0;
  let nameEnd = 0;
  let first = T.End;
  for (let tokens = 0; tokens <= MAX_CHECKED_TOKENS; tokens++) {
    // The next token's kind, as the lexer's next() would answer it: names and keywords, plain integers and
    // most operators read here (a call each cost V8 more than reading them), the rest by the lexer itself.
    let p = pos;
    let c = p < n ? codes[p] : -1;
    while (c === 32 || (c >= 9 && c <= 13)) c = ++p < n ? codes[p] : -1;
    let t: T = T.End;
    let left = false;
    if (((c | 32) - 97) >>> 0 < 26 || c === 95) {
      // a letter is `(c | 32) - 97` from 0 to 25 (`| 32` lowers A–Z and moves no other unit there), a
      // digit `c - 48` from 0 to 9; `codes[n]` ends a name (see checkExpression), so no look needs `p < n`
      const from = p;
      c = codes[++p];
      while (((c | 32) - 97) >>> 0 < 26 || (c - 48) >>> 0 < 10 || c === 95) c = codes[++p];
      const len = p - from;
      t = len === 2 || len === 4 || len === 5 || len === 9 ? keyword(codes, from, len) : T.Ident;
      start = from;
    } else if ((c - 48) >>> 0 < 10) {
      // an integer; a real, an exponent, `0x` and a leading zero are left to the lexer
      const from = p;
      c = codes[++p];
      while ((c - 48) >>> 0 < 10) c = codes[++p];
      const lower = c | 32;
      if (c === 46 || lower === 101 || lower === 120 || (codes[from] === 48 && p - from > 1)) left = true;
      else t = T.Int;
      start = from;
      if (left) p = from;
    } else if (c < 0) start = p;
    else if (c < 128) {
      const c1 = p + 1 < n ? codes[p + 1] : -1;
      if (c1 === PAIR_NEXT[c]) {
        t = PAIR[c];
        start = p;
        p += 2;
      } else {
        t = ALONE[c];
        // a `-` may be a number's sign, a `.` a number's start
        if (
          t === 0 ||
          c1 === LEFT_NEXT[c] ||
          (t === T.Minus && VALUE_LIKE[prev] === 0) ||
          (t === T.Dot && c1 >= 48 && c1 <= 57)
        )
          left = true;
        else {
          start = p;
          p++;
        }
      }
    } else left = true;
    if (left) {
      t = lx.kindAt(p, prev);
      start = lx.start;
      p = lx.pos;
    }
    pos = p;
    prev = t;
    // a batch of tokens is paid for as the lexer's next() pays for it
    if (tokens === TOKEN_BATCH - 1) lx.payBatch();
    if (tokens === 0) first = t;
    if (s === S.FirstArg || s === S.FirstItem) {
      if (t === (s === S.FirstArg ? T.RParen : T.RBrace)) {
        sp--;
        s = S.After;
        continue;
      }
      s = S.Operand;
    }
    if (s === S.Operand || s === S.Primary) {
      if (t === T.Minus || t === T.Plus || t === T.BitNot || t === T.Not) {
        if (s === S.Primary) return Checked.Unsure;
        continue;
      }
      if (LITERAL[t] === 1) {
        if (t === T.Str && newStrings && hasBackslash(codes, start, pos)) return Checked.Unsure;
        s = S.After;
      } else if (t === T.Ident) {
        // a quoted name ('…') is decoded by the parser
        if (codes[start] === 39) return Checked.Unsure;
        nameStart = start;
        nameEnd = pos;
        s = S.AfterName;
      } else if (t === T.Dot) s = S.Name;
      else if (t === T.LParen) {
        stack[sp++] = Open.Paren;
        s = S.Operand;
      } else if (t === T.LBrace) {
        stack[sp++] = Open.List;
        s = S.FirstItem;
      } else return Checked.Unsure;
      continue;
    }
    if (s === S.Name) {
      if (t !== T.Ident || codes[start] === 39) return Checked.Unsure;
      s = S.After;
      continue;
    }
    // after an operand
    if (t === T.LParen) {
      if (s !== S.AfterName || timeLiteralCall(codes, nameStart, nameEnd)) return Checked.Unsure;
      stack[sp++] = Open.Call;
      s = S.FirstArg;
      continue;
    }
    if (BINARY[t] === 1) {
      s = S.Operand;
      continue;
    }
    switch (t) {
      case T.QMark:
        stack[sp++] = Open.Cond;
        s = S.Operand;
        continue;
      case T.Elvis:
        s = S.Primary;
        continue;
      case T.Dot:
        s = S.Name;
        continue;
      case T.LBox:
        stack[sp++] = Open.Index;
        s = S.Operand;
        continue;
    }
    // the rest end an expression: first the else branches that end with it
    while (sp > 0 && stack[sp - 1] === Open.Else) sp--;
    const top = sp > 0 ? stack[sp - 1] : 0;
    switch (t) {
      case T.End:
        if (sp !== 0) return Checked.Unsure;
        return tokens === 1 && LITERAL[first] === 1 ? Checked.Literal : Checked.Expression;
      case T.Colon:
        if (top !== Open.Cond) return Checked.Unsure;
        stack[sp - 1] = Open.Else;
        s = S.Operand;
        continue;
      case T.RParen:
        if (top !== Open.Paren && top !== Open.Call) return Checked.Unsure;
        sp--;
        s = S.After;
        continue;
      case T.RBox:
        if (top !== Open.Index) return Checked.Unsure;
        sp--;
        s = S.After;
        continue;
      case T.RBrace:
        if (top !== Open.List) return Checked.Unsure;
        sp--;
        s = S.After;
        continue;
      case T.Comma:
        if (top !== Open.Call && top !== Open.List) return Checked.Unsure;
        s = S.Operand;
        continue;
      case T.Semi:
        // in this (old-semantics) mode a `;` also separates a call's arguments
        if (top !== Open.Call) return Checked.Unsure;
        s = S.Operand;
        continue;
    }
    return Checked.Unsure;
  }
  return Checked.Unsure;
}
