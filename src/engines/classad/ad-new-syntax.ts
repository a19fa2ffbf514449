/**
 * The quick reading of a new-syntax ad `[ name = expr; … ]`: the ad is lexed
 * for token kinds only, each attribute's value is found as the text up to the
 * `;` or `]` that closes it, and that text is looked up in the shared
 * expression cache (parsed and compiled only on first sight), so 2,000 machine
 * ads of one kind cost one compile per distinct value. Anything unusual (a
 * quoted name, a bad token, text that does not parse) gives up with null, and
 * the caller parses the ad whole, which reports the error exactly as before.
 */
import { AdNamesReader, type ClassAd, type SlotValue } from "./classad.js";
import { isTextError, sharedNewSlot, simpleLiteral } from "./expr-cache.js";
import { aheadBytes, aheadSource, aheadTake, borrowCodes, releaseCodes } from "./char-codes.js";
import { Lexer, T } from "./lexer.js";

/**
 * Reads a new-syntax ad through the shared expression cache, or null when the
 * text needs the whole parse (an error to report, a quoted name). Tokens and
 * compiling are charged to the decision's budget as the whole parse charges them.
 */
export function readNewAdQuick(text: string): ClassAd | null {
  // read as a stretch of the request's texts encoded together (char-codes.ts aheadBegin), when it is one
  const at = aheadTake(text);
  if (at >= 0) return readQuick(aheadSource, Lexer.over(aheadSource, aheadBytes, at, at + text.length));
  const codes = borrowCodes(text);
  try {
    return readQuick(text, new Lexer(text, codes));
  } finally {
    releaseCodes(codes);
  }
}

/** Reads the ad written at `text[lx.pos, lx.end)` (the whole text, or its stretch of a batch). */
function readQuick(text: string, lx: Lexer): ClassAd | null {
  lx.charged = true;
  lx.kindsOnly = true;
  if (lx.next() !== T.LBox) return null;
  const names = new AdNamesReader();
  const slots: SlotValue[] = [];
  let t = lx.next();
  while (t !== T.RBox) {
    if (t === T.Semi) {
      // leading empty statements are skipped; `[;]` is an error the whole parse reports
      if ((t = lx.next()) === T.RBox) return null;
      continue;
    }
    // a quoted name ('…' is an identifier) is decoded by the whole parse
    if (t !== T.Ident || lx.codes[lx.start] === 39) return null;
    const nameStart = lx.start;
    const nameEnd = lx.pos;
    if (lx.next() !== T.Bound) return null;
    // the value: every token up to the `;` or `]` outside any bracket
    t = lx.next();
    const valueStart = lx.start;
    let valueEnd = valueStart;
    let depth = 0;
    let tokens = 0;
    for (;;) {
      if (t === T.End || t === T.Error) return null;
      if (depth === 0 && (t === T.Semi || t === T.RBox)) break;
      if (t === T.LParen || t === T.LBox || t === T.LBrace) depth++;
      else if (t === T.RParen || t === T.RBox || t === T.RBrace) {
        if (--depth < 0) return null;
      }
      valueEnd = lx.pos;
      tokens++;
      t = lx.next();
    }
    const slot =
      simpleLiteral(lx.codes, text, valueStart, valueEnd) ??
      sharedNewSlot(text, lx.codes, valueStart, valueEnd, tokens);
    if (isTextError(slot)) return null;
    names.add(text, nameStart, nameEnd, slots.length);
    slots.push(slot);
    while (t === T.Semi) t = lx.next();
  }
  if (lx.next() !== T.End) return null;
  return names.ad(slots);
}
