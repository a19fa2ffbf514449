/**
 * Reads ads in their three accepted forms: new syntax `[ a = 1; ... ]`, old
 * long form (one `Name = Expr` a line) and JSON (text or an already-parsed
 * object). Attribute expressions are compiled once per distinct text and
 * shared between ads, since 2,000 slot ads mostly repeat the same texts.
 * Reading is charged to the decision's work budget (tokens, compiled nodes,
 * attributes of large ads), and a spent budget ends it with `BudgetExceeded`
 * (the route's 422 `budget_exceeded`); outside a decision nothing is limited.
 */
import { spend } from "../common/budget.js";
import { AdNamesReader, ClassAd, adOf, type SlotValue } from "./classad.js";
import { compile } from "./compile.js";
import { readNewAdQuick } from "./ad-new-syntax.js";
import { borrowCodes, lastAscii, releaseCodes, unitAt, viewOf } from "./char-codes.js";
import { isTextError, realOf, sharedOldSlot, simpleLiteral } from "./expr-cache.js";
import { type Node } from "./node.js";
import { lineCol, parseAdLiteral, parseExpr } from "./parser.js";
import { INT64_MAX, INT64_MIN, Real, UNDEF, normInt } from "./values.js";

/** Why an ad could not be read: a message and the `line:column` where. */
export interface AdError {
  readonly message: string;
  readonly at: string;
}

export type AdResult = { ok: true; ad: ClassAd } | { ok: false; error: AdError };

export {
  clearExprCache,
  clearSeenTexts,
  exprCacheHeld,
  MAX_CACHE_CHARS,
  MAX_CACHED_TEXT,
} from "./expr-cache.js";

/** Whether a character may start an attribute name (`[A-Za-z_]`). */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** Whether a character may continue an attribute name (`[A-Za-z0-9_]`). */
function isNameChar(c: number): boolean {
  return isNameStart(c) || (c >= 48 && c <= 57);
}

/** Whether `String.prototype.trim` removes this code unit (ECMAScript white space and line terminators). */
export function isTrimmed(c: number): boolean {
  if (c < 128) return c === 32 || (c >= 9 && c <= 13);
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The failure of a line that is no `Name = Expr`. */
function notAnAttribute(line: number): AdResult {
  return { ok: false, error: { message: "expected `Name = Expr`", at: `${line}:1` } };
}

/**
 * Old long form: `Name = Expr` lines; blank and `#` lines ignored; old string escaping.
 * Read in place over the text's bytes (char-codes.ts): a line's name is matched
 * against the layout the ads of its kind share (no string cut), a plain number costs
 * no string at all.
 */
export function parseOldAd(text: string): AdResult {
  const codes = borrowCodes(text);
  try {
    return readOldAd(text, codes, lastAscii);
  } finally {
    releaseCodes(codes);
  }
}

/** Whether a code unit trim() removes, other than the line feed that ends a line. */
function isBlankInLine(c: number): boolean {
  return c !== 10 && isTrimmed(c);
}

/** Where the line of the literal {@link lineLiteral} last read ends (its line feed, or the text's end). */
let literalLineEnd = 0;

/**
 * Where the line holding `codes[from, n)` ends when the rest of it is blank (trim() would remove it):
 * the index of its line feed, or `n`; else -1.
 */
function blankToEnd(codes: Uint8Array, text: string, from: number, n: number): number {
  let r = from;
  while (r < n) {
    const c = unitAt(codes, text, r);
    if (c === 10) return r;
    if (!isTrimmed(c)) return -1;
    r++;
  }
  return n;
}

/**
 * The value of the old-form line whose (trimmed) value starts at `s` when it is a plain literal alone on
 * its line, read in one pass from its start, its line's end then in {@link literalLineEnd}; undefined for
 * any other line (which is read as before: the same texts make the same values, simpleLiteral's and the
 * quoted string's). A string is its text as written when no quote is inside (a backslash escapes nothing
 * but a quote in the old form, lexer.ts `oldString`).
 */
function lineLiteral(codes: Uint8Array, text: string, s: number, n: number): SlotValue | undefined {
  const c0 = s < n ? codes[s] : -1;
  if (c0 === 34) {
    const q = quoteInLine(codes, s + 1, n);
    if (q < 0) return undefined;
    const end = blankToEnd(codes, text, q + 1, n);
    if (end < 0) return undefined;
    literalLineEnd = end;
    return text.slice(s + 1, q);
  }
  const lower = c0 | 32;
  if (lower === 116 || lower === 102) {
    const len = lower === 116 ? 4 : 5;
    if (s + len > n || booleanWordAt(codes, s, len) === undefined) return undefined;
    const end = blankToEnd(codes, text, s + len, n);
    if (end < 0) return undefined;
    literalLineEnd = end;
    return lower === 116;
  }
  // -?(0|[1-9][0-9]{0,14}) or -?[0-9]+.[0-9]+, as simpleLiteral reads them
  let q = s;
  const neg = c0 === 45;
  if (neg) q++;
  const first = q;
  let v = 0;
  let c = q < n ? codes[q] : -1;
  while (c >= 48 && c <= 57) {
    v = v * 10 + c - 48;
    c = ++q < n ? codes[q] : -1;
  }
  const digits = q - first;
  if (digits < 1) return undefined;
  let value: SlotValue;
  if (c === 46) {
    const dot = q;
    c = ++q < n ? codes[q] : -1;
    while (c >= 48 && c <= 57) {
      v = v * 10 + c - 48;
      c = ++q < n ? codes[q] : -1;
    }
    const frac = q - dot - 1;
    if (frac < 1) return undefined;
    value = new Real(realOf(neg, v, digits + frac, frac, text, s, q));
  } else {
    if (digits > 15 || (digits > 1 && codes[first] === 48)) return undefined;
    value = neg ? 0 - v : v;
  }
  const end = blankToEnd(codes, text, q, n);
  if (end < 0) return undefined;
  literalLineEnd = end;
  return value;
}

/** The index of the first quote in `codes[from, n)` before a line feed, or -1. */
function quoteInLine(codes: Uint8Array, from: number, n: number): number {
  for (let q = from; q < n; q++) {
    const c = codes[q];
    if (c === 34) return q;
    if (c === 10) return -1;
  }
  return -1;
}

/** `true` (length 4) or `false` (length 5) in any case at `codes[s, s + len)`, or undefined. */
function booleanWordAt(codes: Uint8Array, s: number, len: number): boolean | undefined {
  const word = len === 4 ? "true" : "false";
  for (let i = 0; i < len; i++) if ((codes[s + i] | 32) !== word.charCodeAt(i)) return undefined;
  return len === 4;
}

/**
 * Reads the old-form ad `text`, whose bytes (char-codes.ts) are `codes`; `ascii`: whether it is all
 * ASCII (a text with other characters keeps no line: its bytes do not tell them apart).
 */
function readOldAd(text: string, codes: Uint8Array, ascii: boolean): AdResult {
  const n = text.length;
  const names = new AdNamesReader();
  const slots: SlotValue[] = [];
  const view = viewOf(codes);
  let lineNo = 0;
  // a line costs a unit, charged 32 lines at a time (and what is left when reading ends)
  let unpaid = 0;
  for (let next = 0; next <= n;) {
    const lineStart = next;
    lineNo++;
    let p = lineStart;
    let c = p < n ? codes[p] : -1;
    while (c === 32 || c === 9) c = ++p < n ? codes[p] : -1;
    // a name starts `[A-Za-z_]` (isNameStart, written out: the reader is too large for V8 to inline it)
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) {
      // not a name: a blank or `#` line is skipped (blank as trim() sees it), anything else is an error
      while (p < n && isBlankInLine(unitAt(codes, text, p))) p++;
      if (p < n && codes[p] === 35) while (p < n && codes[p] !== 10) p++;
      if (p >= n || codes[p] === 10) {
        next = p + 1;
        continue;
      }
      spend(unpaid + 1);
      return notAnAttribute(lineNo);
    }
    if (++unpaid === 32) {
      spend(32);
      unpaid = 0;
    }
    const nameStart = p;
    const at = names.expectedNext(slots.length);
    if (at !== null) {
      // the line the last ad of this kind had here, when it was a plain literal and this one is written the
      // same: its value at once (equal values one in memory)
      const lineEnd = at.keptLineEnd(codes, view, p, n);
      if (lineEnd >= 0) {
        names.addKept();
        slots.push(at.keptValueIn(text, p));
        next = lineEnd + 1;
        continue;
      }
    }
    // `Name = ` with the name the ads of this kind have here, then a character trim() keeps (how
    // `condor_q -l` writes every line), is compared in place as one run; any other name or spacing is
    // scanned (a name holds no line feed, so neither crosses the line's end)
    let found = false;
    let s = -1;
    if (at !== null) {
      s = at.valueStartIn(view, p, n);
      const v = s >= 0 ? codes[s] : -1;
      if (v > 32 && v < 127) {
        found = true;
        p = s - 3;
      } else s = -1;
    }
    if (!found) while (++p < n && isNameChar(codes[p]));
    const nameEnd = p;
    if (found) p++;
    else {
      const after = p + 3 < n ? codes[p + 3] : -1;
      if (after > 32 && after < 127 && codes[p] === 32 && codes[p + 1] === 61 && codes[p + 2] === 32) {
        // ` = ` then a character trim() keeps
        p++;
        s = p + 2;
      } else {
        c = p < n ? codes[p] : -1;
        while (c === 32 || c === 9) c = ++p < n ? codes[p] : -1;
        if (c !== 61 || (p + 1 < n && codes[p + 1] === 61)) {
          spend(unpaid);
          return notAnAttribute(lineNo);
        }
        // the expression, trimmed in place as trim() would
        s = p + 1;
        while (s < n && isBlankInLine(unitAt(codes, text, s))) s++;
      }
    }
    const exprCol = p + 2 - lineStart;
    // a plain literal alone on its line is read from its start, its line's end found after it: the
    // commonest here (a string without a quote inside, an integer of at most 15 digits without a sign or
    // a leading zero, an unsigned real `[0-9]+.[0-9]+`, `true` or `false` in any case, each right before
    // the line feed), any other by lineLiteral, which reads these as well (`codes[n]` is 0, so no look
    // runs past the text)
    let plain: SlotValue | undefined;
    let end = -1;
    const c0 = codes[s];
    if (c0 === 34) {
      // the closing quote on this line: a string crosses no line's end, so the scan stops at a line feed
      // (indexOf('"') alone found a quote on a later line; checking for a line feed as well, by a second
      // indexOf or a scan a word at a time, cost more than this scan)
      // (one compare a unit: the loop stops at any unit up to `"`, 34, and `codes[n]` is 0)
      // (four bytes a step while none is `"` or below: `(x - 0x23232323) & ~x & 0x80808080` marks the
      // bytes below 35, the lowest mark exactly, and never a non-ASCII one, 0xff; then one at a time)
      let q = s + 1;
      const last4 = n - 4;
      for (;;) {
        while (q <= last4) {
          const x = view.getInt32(q, true);
          const below = (x - 0x23232323) & ~x & 0x80808080;
          if (below !== 0) {
            q += (31 - Math.clz32(below & -below)) >> 3;
            break;
          }
          q += 4;
        }
        c = codes[q];
        while (c > 34) c = codes[++q];
        if (c === 34 || c === 10 || q >= n) break;
        q++;
      }
      if (c === 34 && q < n && (codes[q + 1] === 10 || q + 1 === n)) {
        plain = text.slice(s + 1, q);
        end = q + 1;
      }
    } else if (c0 >= 48 && c0 <= 57) {
      let v = c0 - 48;
      let q = s + 1;
      // a digit is `c - 48` from 0 to 9: one unsigned compare a unit
      let d = codes[q] - 48;
      while (d >>> 0 <= 9) {
        v = v * 10 + d;
        d = codes[++q] - 48;
      }
      c = d + 48;
      if ((c === 10 || q === n) && q - s <= 15 && (c0 !== 48 || q === s + 1)) {
        plain = v;
        end = q;
      } else if (c === 46 && q < n) {
        // a real `[0-9]+.[0-9]+` right before the line feed (or the text's end), as lineLiteral reads it
        const dot = q;
        d = codes[++q] - 48;
        while (d >>> 0 <= 9) {
          v = v * 10 + d;
          d = codes[++q] - 48;
        }
        if (q > dot + 1 && (d === -38 || q === n)) {
          plain = new Real(realOf(false, v, q - s - 1, q - dot - 1, text, s, q));
          end = q;
        }
      }
    } else if ((c0 | 32) === 116) {
      // `true` in any case (a compare that meets the 0 at `n` fails there)
      if (
        (codes[s + 1] | 32) === 114 &&
        (codes[s + 2] | 32) === 117 &&
        (codes[s + 3] | 32) === 101 &&
        (codes[s + 4] === 10 || s + 4 === n)
      ) {
        plain = true;
        end = s + 4;
      }
    } else if ((c0 | 32) === 102) {
      if (
        (codes[s + 1] | 32) === 97 &&
        (codes[s + 2] | 32) === 108 &&
        (codes[s + 3] | 32) === 115 &&
        (codes[s + 4] | 32) === 101 &&
        (codes[s + 5] === 10 || s + 5 === n)
      ) {
        plain = false;
        end = s + 5;
      }
    }
    if (end < 0) {
      plain = lineLiteral(codes, text, s, n);
      end = literalLineEnd;
    }
    if (plain !== undefined) {
      next = end + 1;
      if (found) names.addExpected();
      else names.add(text, nameStart, nameEnd, slots.length);
      slots.push(plain);
      if (ascii) names.current?.keepLine(codes, view, nameStart, end, plain, s + 1);
      continue;
    }
    // the line's end and the value's, trimmed in place as trim() would: the line feed found by indexOf
    // (V8 scans natively, where a loop here costs 15 or more instructions a code unit)
    end = text.indexOf("\n", s);
    if (end < 0) end = n;
    let e = end;
    while (e > s && isTrimmed(unitAt(codes, text, e - 1))) e--;
    // a plain literal is a value at once: a string without a quote inside (checked natively) is its
    // text as written, a backslash in the old form escaping nothing but a quote (lexer.ts `oldString`)
    let slot: SlotValue | undefined;
    if (e > s) {
      if (codes[s] !== 34) slot = simpleLiteral(codes, text, s, e);
      else if (e - s >= 2 && codes[e - 1] === 34) {
        const v = text.slice(s + 1, e - 1);
        if (v.indexOf('"') < 0) slot = v;
      }
    }
    const literal = slot !== undefined;
    if (slot === undefined) {
      // any other expression: up to the line's end, trimmed; parsed (or found in the shared cache)
      // the check (and a parse) reads the ad's own bytes
      const parsed = sharedOldSlot(text, codes, s, e);
      if (isTextError(parsed)) {
        const name = text.slice(nameStart, nameEnd);
        spend(unpaid);
        return {
          ok: false,
          error: { message: `attribute \`${name}\`: ${parsed.message}`, at: `${lineNo}:${exprCol}` },
        };
      }
      slot = parsed;
    }
    next = end + 1;
    if (found) names.addExpected();
    else names.add(text, nameStart, nameEnd, slots.length);
    slots.push(slot);
    if (literal && ascii) names.current?.keepLine(codes, view, nameStart, end, slot, s + 1);
  }
  spend(unpaid);
  return { ok: true, ad: names.ad(slots) };
}

/**
 * A tree as an ad slot: a literal written without special text is kept as its bare value. Compiling
 * is charged to the decision's budget (compile.ts); a spent budget ends the read with `BudgetExceeded`.
 */
function slotOfNode(n: Node): SlotValue {
  if (n.k === "lit" && n.text === undefined) return n.v;
  const c = compile(n);
  spend(0);
  return c;
}

/** New syntax `[ name = expr; ... ]`. */
export function parseNewAd(text: string): AdResult {
  const quick = readNewAdQuick(text);
  if (quick !== null) return { ok: true, ad: quick };
  const p = parseAdLiteral(text, true);
  if (!p.ok) return { ok: false, error: { message: p.message, at: lineCol(text, p.offset) } };
  if (p.node.k !== "ad") return { ok: false, error: { message: "expected an ad", at: "1:1" } };
  const ad = adOf(p.node.attrs.map(([k, v]) => [k, slotOfNode(v)] as const));
  spend(0); // a layout of its own was charged per attribute
  return { ok: true, ad };
}

const EXPR_MARK = "\u0000Expr(";
const REAL_MARK = "\u0000Real:";
const INT_MARK = "\u0000Int:";
const JSON_TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/** How deeply a JSON ad may nest lists and ads (the same bound as a JSON request body). */
export const MAX_JSON_AD_DEPTH = 100;

/** Converts a JSON value to a tree; strings of the form `/Expr(...)/` are expressions. */
function jsonNode(v: unknown, path: string, escapedOnly: boolean, depth = 0): Node | AdError {
  spend(1);
  if (v === null || v === undefined) return { k: "lit", v: UNDEF };
  if (typeof v === "object" && depth >= MAX_JSON_AD_DEPTH) {
    return { message: `${path}: nested more than ${MAX_JSON_AD_DEPTH} levels deep`, at: path };
  }
  if (typeof v === "boolean") return { k: "lit", v };
  if (typeof v === "number") {
    if (Number.isSafeInteger(v)) return { k: "lit", v: v + 0 };
    return { k: "lit", v: new Real(v) };
  }
  if (typeof v === "string") {
    if (escapedOnly && v.startsWith(REAL_MARK))
      return { k: "lit", v: new Real(Number(v.slice(REAL_MARK.length))) };
    if (escapedOnly && v.startsWith(INT_MARK)) {
      const b = BigInt(v.slice(INT_MARK.length));
      return { k: "lit", v: b > INT64_MAX || b < INT64_MIN ? 0 : normInt(b) };
    }
    let body: string | null = null;
    if (v.startsWith(EXPR_MARK) && v.endsWith(")/")) body = v.slice(EXPR_MARK.length, -2);
    else if (!escapedOnly && v.startsWith("/Expr(") && v.endsWith(")/")) body = v.slice(6, -2);
    if (body === null) return { k: "lit", v };
    const p = parseExpr(body, false, true);
    if (!p.ok) return { message: `${path}: ${p.message}`, at: path };
    return p.node;
  }
  if (Array.isArray(v)) {
    const items: Node[] = [];
    for (let i = 0; i < v.length; i++) {
      const n = jsonNode(v[i], `${path}[${i}]`, escapedOnly, depth + 1);
      if ("message" in n) return n;
      items.push(n);
    }
    return { k: "list", items };
  }
  if (typeof v === "object") {
    const attrs: [string, Node][] = [];
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      const n = jsonNode(x, path === "" ? k : `${path}.${k}`, escapedOnly, depth + 1);
      if ("message" in n) return n;
      attrs.push([k, n]);
    }
    return { k: "ad", attrs };
  }
  return { message: `${path}: unsupported JSON value`, at: path };
}

/** A JSON object as an ad (`/Expr(...)/` strings are expressions). */
export function adFromJson(obj: Record<string, unknown>, escapedOnly = false): AdResult {
  const n = jsonNode(obj, "", escapedOnly);
  if ("message" in n) return { ok: false, error: n };
  if (n.k !== "ad") return { ok: false, error: { message: "expected a JSON object", at: "" } };
  return { ok: true, ad: adOf(n.attrs.map(([k, v]) => [k, slotOfNode(v)] as const)) };
}

/** JSON text: only `"\/Expr(...)\/"` (escaped slashes) is an expression, as the library reads it. */
export function parseJsonAd(text: string): AdResult {
  let obj: unknown;
  try {
    // numbers with a fraction or exponent become marked strings so they stay Reals (`1.0` is a Real)
    const marked = text.replace(JSON_TOKENS, (m) =>
      m.startsWith('"')
        ? m
        : /[.eE]/.test(m)
          ? `"\\u0000Real:${m}"`
          : m.length > 15
            ? `"\\u0000Int:${m}"`
            : m,
    );
    obj = JSON.parse(marked.replace(/"\\\/Expr\(/g, '"\\u0000Expr(').replace(/\)\\\/"/g, ')/"'));
  } catch (e) {
    return { ok: false, error: { message: `invalid JSON: ${(e as Error).message}`, at: "1:1" } };
  }
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return { ok: false, error: { message: "expected a JSON object", at: "1:1" } };
  }
  return adFromJson(obj as Record<string, unknown>, true);
}

/** Reads an ad given as text (new, old or JSON syntax) or as a JSON object. */
export function readAd(input: unknown): AdResult {
  if (typeof input === "string") {
    const t = input.trimStart();
    if (t.startsWith("[")) return parseNewAd(input);
    if (t.startsWith("{")) return parseJsonAd(input);
    return parseOldAd(input);
  }
  if (input !== null && typeof input === "object" && !Array.isArray(input))
    return adFromJson(input as Record<string, unknown>);
  return { ok: false, error: { message: "an ad is a string or a JSON object", at: "" } };
}

/** Ads one request may carry at most. */
export const MAX_ADS = 2000;

/** Whether a text is a JSON array of ads (`condor_q -json`, `condor_status -json`) rather than a new-syntax ad `[ a = 1 ]`. */
function isJsonAdArray(text: string): boolean {
  return /^\[\s*\{/.test(text);
}

/**
 * The items of a JSON array's text, each as its own text (strings and nesting
 * respected); null when the text is not one array. Linear in the text.
 */
function jsonArrayItems(t: string): string[] | null {
  const items: string[] = [];
  let depth = 0;
  let start = 1;
  let inString = false;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") {
      depth--;
      if (depth === 0) {
        if (i !== t.length - 1) return null;
        const last = t.slice(start, i).trim();
        if (last !== "") items.push(last);
        else if (items.length > 0) return null;
      }
    } else if (c === "," && depth === 1) {
      items.push(t.slice(start, i).trim());
      start = i + 1;
    }
  }
  return depth === 0 && !inString ? items : null;
}

/**
 * The ads of one text, as `condor_status` prints many: `-json` output (a JSON array
 * of ads, each an object), or ads separated by blank lines (the long form `-l`
 * prints, or new-syntax `[ … ]` ads). A string when the text is no JSON array is
 * passed on as each ad's text, to be read by {@link readAd}.
 */
export function splitAds(text: string): { ok: true; ads: unknown[] } | { ok: false; message: string } {
  const t = text.trim();
  if (t === "") return { ok: true, ads: [] };
  if (isJsonAdArray(t)) {
    const items = jsonArrayItems(t);
    if (items === null)
      return { ok: false, message: "not a JSON array of ads: it does not end where it should" };
    if (items.length > MAX_ADS) return { ok: false, message: `${items.length} ads: at most ${MAX_ADS}` };
    const bad = items.findIndex((a) => !a.startsWith("{"));
    if (bad >= 0) return { ok: false, message: `item ${bad} of the JSON array is not an ad (a JSON object)` };
    // Each item stays text, read as a JSON ad is (only `"\/Expr(…)\/"` written escaped is an expression).
    return { ok: true, ads: items };
  }
  const ads = t.split(/\r?\n[ \t]*\r?\n/).filter((block) => block.trim() !== "");
  if (ads.length > MAX_ADS) return { ok: false, message: `${ads.length} ads: at most ${MAX_ADS}` };
  return { ok: true, ads };
}

/**
 * Reads the one ad a field holds; a JSON array of exactly one ad (`condor_q -json`
 * for one job) is that ad.
 */
export function readOneAd(input: unknown): AdResult {
  if (typeof input === "string" && isJsonAdArray(input.trim())) {
    const split = splitAds(input);
    if (!split.ok) return { ok: false, error: { message: split.message, at: "1:1" } };
    if (split.ads.length !== 1)
      return { ok: false, error: { message: `expected one ad, found ${split.ads.length}`, at: "1:1" } };
    return readAd(split.ads[0]);
  }
  return readAd(input);
}
