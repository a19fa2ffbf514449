/**
 * The shared expression cache of ad reading: one compiled form per distinct
 * attribute text (old long form and new syntax kept apart, their strings being
 * escaped differently), bounded in entries and in characters, and the plain
 * literals read straight from the text without a parse.
 */
import { Budget, BudgetExceeded, currentBudget, spend } from "../common/budget.js";
import { forgetKeptLines, type SlotValue } from "./classad.js";
import { viewOf } from "./char-codes.js";
import { compile } from "./compile.js";
import { Lexer, PARSE_UNITS_PER_TOKEN } from "./lexer.js";
import { Compiled } from "./node.js";
import { parseExpr } from "./parser.js";
import { Checked, checkExpression } from "./syntax-check.js";
import { ERROR, Real } from "./values.js";

/** Distinct expression texts the shared cache holds at most. */
const MAX_CACHE = 20_000;
/**
 * Characters of expression text the shared cache holds at most: a compiled
 * expression keeps about 40 bytes per character of its text (measured: 20k
 * distinct 100-character texts kept 80 MB), so this bounds the cache near
 * 8 MB, where 20,000 entries alone let distinct texts in requests fill a
 * 128 MB isolate.
 */
export const MAX_CACHE_CHARS = 200_000;
/** Longer texts are compiled for their ad but not kept: one would take a large share of the cache, and long texts rarely repeat. */
export const MAX_CACHED_TEXT = 2_000;

/**
 * Units a text the cache lacks and will keep costs per character, charged before it is parsed: it
 * is lexed a second time, parsed, copied, compiled on first use and collected. 2,000 machine ads
 * each with an expression of its own (about 44 characters) took 9.4 µs a text more than the same
 * ads sharing one text (node, issue 24), about 213 ns a character, where a spent budget may cost
 * about 37 ns a unit; at 1 unit a character such a request read all 2,000 ads and took 30–40 ms.
 * Its nodes are charged as they are compiled (compile.ts); a text too long to keep pays its tokens
 * and nodes only.
 */
export const MISS_UNITS_PER_CHAR = 6;

/** An old long-form text the cache keeps (its own copy) and its slot. */
interface KeptText {
  readonly text: string;
  readonly slot: SlotValue;
}

/**
 * Old long-form texts by {@link textHash} (30 bits, so that the key is a small integer): the text kept
 * under it, compared with the text looked for natively (`===`), so that neither a lookup nor keeping a
 * text hashes it a second time (V8 hashed the cut for `Map.get` and its own copy again for `Map.set`,
 * 10% of a cold parse). Two texts of one hash: the one kept last stays (a lookup of the other is a miss,
 * charged as any miss is). New-syntax texts (apart: their strings are escaped differently) by their text.
 * A plain literal is kept as its bare value.
 */
let oldCache = new Map<number, KeptText>();
let newCache = new Map<string, SlotValue>();
let cachedChars = 0;

/**
 * Slots of the admission filter: a text is kept only when it is seen a second
 * time while its hash still sits in its slot. Distinct texts (every request
 * writing its own) were kept until the cache filled and was emptied, each
 * compiled form living long enough to be promoted to V8's old generation:
 * about 8 MB of old-generation garbage per fill, which raised workerd's
 * resident memory between full collections by 60–90 MB on a stream of
 * distinct match requests (issue 24 item 10). A text seen once now dies young.
 */
export const SEEN_SLOTS = 8192;
/** The hash of the text last seen in each slot (0: none); fixed size, allocated once. */
const seen = new Int32Array(SEEN_SLOTS);
/** Texts compiled but not kept because they were seen for the first time (for tests and benchmarks). */
let firstSightings = 0;

/** What the shared expression cache holds now: entries and characters of text (for tests and benchmarks). */
export function exprCacheHeld(): { entries: number; chars: number; firstSightings: number } {
  return { entries: oldCache.size + newCache.size, chars: cachedChars, firstSightings };
}

/**
 * Forgets every text read: empties the shared expression cache and the old-form
 * lines the layouts keep (classad.ts `keepLine`), so that the next ad of every
 * kind is read from its text alone (benchmarks use it to time cold parsing;
 * the layouts themselves, the attribute names' chains, stay). With `lines`
 * false the kept lines stay (the cold row of earlier benchmarks: plain literal
 * lines read as a repeated ad of a known kind reads them).
 */
export function clearExprCache(lines = true): void {
  emptyCache();
  if (lines) forgetKeptLines();
}

/**
 * Empties the shared expression cache (when it is full: the layouts' kept lines,
 * plain literals, are bounded on their own). New Maps rather than clear():
 * clearing a long-lived Map makes V8 keep its old table chained to the new one,
 * and every entry added after that survives young-generation collections, which
 * made each cold parse after a warm one 2-3× slower.
 */
function emptyCache(): void {
  oldCache = new Map();
  newCache = new Map();
  cachedChars = 0;
}

/** Forgets which texts were seen once (tests start from an empty admission filter). */
export function clearSeenTexts(): void {
  seen.fill(0);
  firstSightings = 0;
}

/**
 * Whether a text missing from the cache was seen before (its hash in its slot
 * of the admission filter); records it when not. A collision only admits a
 * text early, which the cache's own bounds still cover.
 */
function seenBefore(h: number): boolean {
  const slot = (h >>> 1) & (SEEN_SLOTS - 1);
  if (seen[slot] === h) return true;
  seen[slot] = h;
  firstSightings++;
  return false;
}

/**
 * The FNV-1a hash of a text of `n` characters whose bytes (char-codes.ts) are `codes` from `at` on, four
 * bytes a step, then the last ones, then mixed (old long form and new syntax apart), odd (never 0, an
 * empty slot of the admission filter). Texts that differ only in non-ASCII characters (one byte
 * stands for them all) share a hash: the cache compares the text itself, so they only miss.
 */
function textHash(oldForm: boolean, codes: Uint8Array, at: number, n: number): number {
  // (an int32 from the start: 0x811c9dc5 as written is a double, and the loop then converted h every step)
  let h = oldForm ? 0x811c9dc5 | 0 : 0x01000193;
  const view = viewOf(codes);
  const e = at + n;
  const whole = e - 3;
  let i = at;
  // a multiply carries bits upward only: each step's product is rotated, so that a step's top byte
  // reaches the low bits through the next steps' multiplies (else texts differing only in top bytes
  // differ in 8 bits of the hash, and 200 of them meet in a few slots of the admission filter)
  for (; i < whole; i += 4) {
    h = Math.imul(h ^ view.getInt32(i, true), 0x01000193);
    h = (h << 13) | (h >>> 19);
  }
  for (; i < e; i++) h = Math.imul(h ^ codes[i], 0x01000193);
  // and the last step's high bits are folded down, so that every byte moves the admission filter's slot
  // (its low bits) and the kept key
  h ^= n;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h | 1;
}

/** A text that did not parse: the parser's message and offset in the text. */
export interface TextError {
  message: string;
  offset: number;
}

/**
 * The bare value of a plain literal written at `src[s, e)` (`codes` holding
 * its bytes, char-codes.ts): an integer (`-?(0|[1-9][0-9]{0,14})`), a
 * string literal without quote or backslash inside, `true` or `false` in any
 * case, or a real written `-?[0-9]+.[0-9]+` (read as the lexer reads it);
 * undefined for any other text.
 */
export function simpleLiteral(codes: Uint8Array, src: string, s: number, e: number): SlotValue | undefined {
  if (e <= s) return undefined;
  const c0 = codes[s];
  if (c0 === 34) {
    if (e - s < 2 || codes[e - 1] !== 34) return undefined;
    // no quote before the closing one, and no backslash
    for (let q = s + 1; q < e - 1; q++) {
      const c = codes[q];
      if (c === 34 || c === 92) return undefined;
    }
    return src.slice(s + 1, e - 1);
  }
  const lower = c0 | 32;
  if (lower === 116 || lower === 102) return booleanWord(codes, s, e);
  let q = s;
  const neg = c0 === 45;
  if (neg) q++;
  const digits = e - q;
  if (digits < 1) return undefined;
  let v = 0;
  const first = q;
  for (; q < e; q++) {
    const d = codes[q] - 48;
    if (d < 0 || d > 9) return d === -2 && q > first ? realText(codes, src, s, q, e) : undefined;
    v = v * 10 + d;
  }
  if (digits > 15) return undefined;
  if (codes[first] === 48) return digits === 1 ? 0 : undefined;
  return neg ? 0 - v : v;
}

/** `true` or `false` in any case written exactly at `codes[s, e)`, or undefined. */
function booleanWord(codes: Uint8Array, s: number, e: number): boolean | undefined {
  const word = e - s === 4 ? "true" : e - s === 5 ? "false" : null;
  if (word === null) return undefined;
  for (let i = 0; i < word.length; i++) if ((codes[s + i] | 32) !== word.charCodeAt(i)) return undefined;
  return word === "true";
}

/** A real `-?[0-9]+.[0-9]+` at `src[s, e)` whose `.` is at `dot` (digits before it checked), or undefined. */
function realText(codes: Uint8Array, src: string, s: number, dot: number, e: number): Real | undefined {
  if (dot + 1 >= e) return undefined;
  let m = 0;
  for (let q = codes[s] === 45 ? s + 1 : s; q < dot; q++) m = m * 10 + codes[q] - 48;
  for (let q = dot + 1; q < e; q++) {
    const c = codes[q];
    if (c < 48 || c > 57) return undefined;
    m = m * 10 + c - 48;
  }
  return new Real(realOf(codes[s] === 45, m, e - s - (codes[s] === 45 ? 2 : 1), e - dot - 1, src, s, e));
}

/** Powers of ten a double holds exactly (10^0 … 10^22). */
const EXACT_POWERS = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
  1e20, 1e21, 1e22,
];

/**
 * The number a real `-?[0-9]+.[0-9]+` written at `src[s, e)` stands for, as `Number()` reads it: its
 * `digits` digits (`frac` of them after the dot) make `m`. While `m` is exact (at most 15 digits) and
 * 10^frac too, `m / 10^frac` is that number, IEEE division rounding correctly as `Number()` does; any
 * other text is read by `Number()`.
 */
export function realOf(
  neg: boolean,
  m: number,
  digits: number,
  frac: number,
  src: string,
  s: number,
  e: number,
): number {
  if (digits > 15 || frac > 22) return Number(src.slice(s, e));
  const v = m / EXACT_POWERS[frac];
  return neg ? -v : v;
}

/** A copy of a text not sharing its characters with a larger one (a cut of a request's text would keep the request alive). */
function ownCopy(text: string): string {
  return ("\u0000" + text).slice(1);
}

/**
 * The shared slot of the old long-form attribute text written at `src[s, e)`
 * (`codes` holding all of `src`'s bytes, char-codes.ts), parsed, and kept
 * on its second sighting as room allows: a literal without special text is its
 * bare value, anything else its compiled form; an expression that surely parses
 * (syntax-check.ts) is parsed and compiled on first use. Reading is charged to the
 * decision's budget; a spent one ends the read with `BudgetExceeded`.
 */
export function sharedOldSlot(src: string, codes: Uint8Array, s: number, e: number): SlotValue | TextError {
  // a text too long to keep is never looked for
  if (e - s >= MAX_CACHED_TEXT) return sharedSlot(src.slice(s, e), true, codes, s);
  const h = textHash(true, codes, s, e - s);
  const text = src.slice(s, e);
  const kept = oldCache.get(h & 0x3fffffff);
  if (kept !== undefined && kept.text === text) return kept.slot;
  return sharedSlot(text, true, codes, s, 0, h);
}

/**
 * The shared slot of a new-syntax attribute value written at `src[s, e)` inside
 * an ad literal (`codes` holding all of `src`'s bytes; parsed at nesting
 * depth 1, as it sits there): a literal without special text is its bare value,
 * anything else its compiled form, made on first use when it surely parses. Its
 * `tokens` are not charged again here: the caller's reading of the ad paid for
 * them; a value parsed now pays for parsing them before the parse starts.
 */
export function sharedNewSlot(
  src: string,
  codes: Uint8Array,
  s: number,
  e: number,
  tokens: number,
): SlotValue | TextError {
  const text = src.slice(s, e);
  return newCache.get(text) ?? sharedSlot(text, false, codes, s, tokens);
}

/** Parses and compiles a text {@link checkExpression} accepted, in old long form (on first use of its slot). */
function makeOld(text: string): Compiled {
  return made(parseExpr(text, true, false, 0));
}

/** The same for a new-syntax value (it sits at nesting depth 1 in its ad). */
function makeNew(text: string): Compiled {
  return made(parseExpr(text, false, false, 1));
}

function made(p: ReturnType<typeof parseExpr>): Compiled {
  // never fails for a checked text; were it to, the expression is ERROR rather than a throw mid-evaluation
  return p.ok ? compile(p.node) : new Compiled(() => ERROR, { k: "lit", v: ERROR });
}

/**
 * A text that surely parses to more than a lone literal, kept unparsed (its slot
 * parsed and compiled on first use), or undefined when it must be parsed now. An
 * old-form text's tokens are charged as its parse would charge them.
 */
function deferredSlot(text: string, oldForm: boolean, codes: Uint8Array, at: number): Compiled | undefined {
  const lx = Lexer.over(text, codes, at, at + text.length);
  lx.kindsOnly = true;
  lx.oldStrings = oldForm;
  lx.charged = oldForm;
  if (checkExpression(lx) !== Checked.Expression) return undefined;
  return Compiled.deferred(text, oldForm ? makeOld : makeNew);
}

/**
 * Parses, compiles and (as room allows) keeps a text missing from the
 * old-form or new-syntax cache: kept on its second sighting, not its first.
 * `codes` may hold the text's bytes from `at` on (those of the ad it was
 * cut from). A text the syntax check accepts is kept unparsed, to be parsed
 * and compiled on first use (its tokens are charged now, as a parse's would be).
 */
function sharedSlot(
  text: string,
  oldForm: boolean,
  codes: Uint8Array,
  at: number,
  tokens = 0,
  hash?: number,
): SlotValue | TextError {
  const size = text.length + 1;
  if (size <= MAX_CACHED_TEXT) spend(MISS_UNITS_PER_CHAR * size);
  const h = size > MAX_CACHED_TEXT ? 0 : (hash ?? textHash(oldForm, codes, at, text.length));
  const keep = size <= MAX_CACHED_TEXT && seenBefore(h);
  const own = keep ? ownCopy(text) : text;
  let slot: SlotValue | undefined = deferredSlot(own, oldForm, codes, at);
  if (slot === undefined) {
    // parsing costs several units a token (lexer.ts): an old-form parse pays as it reads them, a
    // new-syntax value (its tokens counted by the ad's reader) before anything is built, so a value
    // the budget cannot pay for (a 131 KB sum, a 50,000-element list) is never parsed
    if (!oldForm) {
      const due = PARSE_UNITS_PER_TOKEN * tokens;
      if (currentBudget().remaining() < due) {
        // the budget cannot pay for this parse: its first tokens are still parsed, so that an error
        // there (nesting past the limit, within 800 tokens) is the answer as before, then reading ends
        const failed = probeParse(own, codes.subarray(at, at + text.length));
        if (failed !== null) return failed;
      }
      spend(due);
    }
    const p = oldForm
      ? parseExpr(own, true, true, 0, codes.subarray(at, at + text.length))
      : parseExpr(own, false, false, 1);
    if (!p.ok) return { message: p.message, offset: p.offset };
    const n = p.node;
    if (n.k === "lit" && n.text === undefined) slot = n.v;
    else {
      slot = compile(n);
      spend(0);
    }
  }
  if (keep) {
    makeRoom(size);
    // After makeRoom: emptying the cache replaces both maps.
    if (oldForm) oldCache.set(h & 0x3fffffff, { text: own, slot });
    else newCache.set(own, slot);
  }
  return slot;
}

/** Tokens of a value whose parse the budget cannot pay for that are parsed all the same, for the error they may hold. */
export const PROBE_TOKENS = 2048;

/**
 * Parses at most the first {@link PROBE_TOKENS} tokens of a new-syntax value (`codes` its code
 * units, when the caller has them; charged as a parse is): its parse error when one is met there,
 * else null (the value parses that far, or further).
 */
function probeParse(text: string, codes?: Uint8Array): TextError | null {
  const probe = new Budget(PROBE_TOKENS * (PARSE_UNITS_PER_TOKEN + 1));
  let p: ReturnType<typeof parseExpr> | null = null;
  try {
    p = probe.run(() => parseExpr(text, false, true, 1, codes));
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
  }
  spend(Math.min(probe.used, probe.limit));
  return p !== null && !p.ok ? { message: p.message, offset: p.offset } : null;
}

/** Counts a text of `size` characters about to be kept, emptying the cache first when it is full. */
function makeRoom(size: number): void {
  if (oldCache.size + newCache.size >= MAX_CACHE || cachedChars + size > MAX_CACHE_CHARS) emptyCache();
  cachedChars += size;
}

/** Whether a slot reading failed (slot values are never plain objects with a message). */
export function isTextError(c: SlotValue | TextError): c is TextError {
  // a compiled slot, the commonest object here, answered first (getPrototypeOf of it was a runtime call)
  return (
    typeof c === "object" &&
    c !== null &&
    !(c instanceof Compiled) &&
    Object.getPrototypeOf(c) === Object.prototype
  );
}
