/**
 * A text's characters as bytes in a typed array, for the ad reader and the
 * lexer: reading `codes[i]` costs a third of `text.charCodeAt(i)` in V8 (the
 * string's representation is checked on every call). Byte `i` is code unit `i`
 * when that unit is ASCII and {@link NON_ASCII} when it is not, so an index is
 * the same in the text and in its bytes; what ClassAd syntax reads (names,
 * numbers, operators, quotes, blanks) is ASCII, and a reader that needs a
 * non-ASCII unit itself (a Unicode blank that trim() removes) reads it from the
 * text. An ASCII text is copied in one native pass (`TextEncoder.encodeInto`
 * writes its bytes in place: no widening copy), and the bytes are read eight
 * or four at a time through a DataView ({@link viewOf}) where a run is compared
 * or hashed. Arrays are lent from a small pool and given back, so reading an ad
 * allocates none; a text read while another is (a parse inside a read) gets an
 * array of its own.
 */

/**
 * The byte a code unit above 127 stands as: never a character of the syntax, never equal to an ASCII
 * byte, and never the top byte of a zero read as a double (0x80 would make -0, equal to +0), so eight
 * bytes read as a double equal eight ASCII bytes only when they are those bytes.
 */
export const NON_ASCII = 0xff;

const encoder = new TextEncoder();
/** Arrays free for lending, each with room for at least POOL_MIN_LENGTH units. */
const pool: Uint8Array[] = [];
const POOL_SIZE = 4;
const POOL_MIN_LENGTH = 4096;
/** Longer texts get arrays that are not kept (a large request's text must not stay allocated). */
const POOL_MAX_LENGTH = 1 << 16;

/** Whether the text {@link borrowCodes} was last asked for is all ASCII (its bytes are its code units). */
export let lastAscii = true;

/**
 * The bytes of `text` in `codes[0, text.length)` (see the module's comment), followed by a 0 (so a look
 * one past the end reads no character); give the array back with {@link releaseCodes} when done. Sets
 * {@link lastAscii}.
 */
export function borrowCodes(text: string): Uint8Array {
  const n = text.length;
  let codes = pool.pop();
  if (codes === undefined || codes.length <= n)
    codes = new Uint8Array(n < POOL_MAX_LENGTH ? Math.max(POOL_MIN_LENGTH, 2 * n + 1) : n + 1);
  lastAscii = fill(text, codes);
  return codes;
}

/** Gives an array from {@link borrowCodes} back to the pool (it must not be read afterwards). */
export function releaseCodes(codes: Uint8Array): void {
  if (pool.length < POOL_SIZE && codes.length <= 2 * POOL_MAX_LENGTH + 1) pool.push(codes);
}

/** The DataViews of arrays {@link viewOf} was asked for (pooled arrays are asked again and again). */
const views = new WeakMap<Uint8Array, DataView>();
/** The array {@link viewOf} was last asked for and its view. */
let lastCodes: Uint8Array | null = null;
let lastView: DataView | null = null;

/**
 * A DataView over the memory of `codes` (index `i` of the view is byte `i`): bytes read eight at a time
 * (`getFloat64`) or four (`getInt32`) from any index, where a typed-array loop costs V8 about as much an
 * iteration for one byte as a DataView read does for eight.
 */
export function viewOf(codes: Uint8Array): DataView {
  if (codes === lastCodes) return lastView as DataView;
  let v = views.get(codes);
  if (v === undefined) {
    v = new DataView(codes.buffer, codes.byteOffset, codes.length);
    views.set(codes, v);
  }
  if (codes.length <= 2 * POOL_MAX_LENGTH + 1) {
    // only an array the pool may hold: a large text's own must not be kept alive here
    lastCodes = codes;
    lastView = v;
  }
  return v;
}

/** Fills `codes` with the bytes of `text` and a 0; whether it is all ASCII. */
function fill(text: string, codes: Uint8Array): boolean {
  const n = text.length;
  if (n >= 32) {
    const r = encoder.encodeInto(text, codes);
    // every character ASCII: one byte each, so byte i is code unit i
    if (r.read === n && r.written === n) {
      codes[n] = 0;
      return true;
    }
  }
  let ascii = true;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) codes[i] = c;
    else {
      codes[i] = NON_ASCII;
      ascii = false;
    }
  }
  codes[n] = 0;
  return ascii;
}

/** The code unit at `i` of `text`, whose bytes are `codes`: the byte when ASCII, else the text's unit. */
export function unitAt(codes: Uint8Array, text: string, i: number): number {
  const c = codes[i];
  return c < 128 ? c : text.charCodeAt(i);
}

/*
 * Texts read one after another (a match request's job, schedd and machine ads), encoded ahead, many in
 * one `encodeInto` call: in workerd each call is a call into the runtime's bindings, about 1,500
 * instructions for one of the bench's ads (docs/performance.md, wt/matchenc), where joining the nine and
 * encoding them in one call costs about 4,900 in all. The texts are joined into one string, {@link
 * aheadSource}, whose bytes are {@link aheadBytes} (as {@link borrowCodes} makes them, followed by a 0),
 * and a reader of text `i` reads the stretch of both where that text is ({@link aheadTake}): indices are
 * the batch's, not the text's (the lexer reads a stretch of a text, `Lexer.over`). A batch holding a
 * non-ASCII character anywhere (its bytes would no longer sit at its units' indices), a text too long
 * for the batch, anything not a string and any text that is not `[` first (the new syntax's quick reader,
 * ad-new-syntax.ts, is the one reader of a batch) are read as before, each from its own bytes.
 */

/** Units of text one batch encodes at most (its array has room for them and the 0 after them). */
const AHEAD_ROOM = 1 << 14;
/** Texts one batch holds at most. */
const AHEAD_TEXTS = 256;

/** The batch: its texts joined, and their bytes (the array allocated on first use and kept). */
export let aheadSource = "";
export let aheadBytes: Uint8Array = new Uint8Array(1);
/** The text whose stretch {@link aheadTake} answers next, and where it starts in {@link aheadSource}. */
let aheadText: string | null = null;
let aheadStart = 0;

/** The texts being read (see {@link aheadBegin}), and the range of them the batch holds. */
let aheadFirst: unknown = undefined;
let aheadSecond: unknown = undefined;
let aheadRest: readonly unknown[] = [];
let batchFrom = 0;
let batchTo = 0;
/** The batch's texts, while it is made. */
const batchParts: string[] = [];
/** Where each of the batch's texts starts in it, -1 for one it does not hold. */
const batchStarts = new Int32Array(AHEAD_TEXTS);

/** Text `i` of the list {@link aheadBegin} was given. */
function aheadItem(i: number): unknown {
  return i === 0 ? aheadFirst : i === 1 ? aheadSecond : aheadRest[i - 2];
}

/**
 * Starts reading the texts `first`, `second`, then `rest[0]`, `rest[1]`, … (numbered 0, 1, 2, …; any
 * may be no string): before reading text `i` call {@link aheadAt}(i), and {@link aheadEnd} when done.
 */
export function aheadBegin(first: unknown, second: unknown, rest: readonly unknown[]): void {
  aheadFirst = first;
  aheadSecond = second;
  aheadRest = rest;
  batchFrom = batchTo = 0;
  aheadText = null;
}

/** Text `i` is read next: {@link aheadTake} answers its stretch (encoding the next batch when `i` is past this one). */
export function aheadAt(i: number): void {
  aheadText = null;
  if (i >= batchTo || i < batchFrom) encodeBatch(i);
  const start = batchStarts[i - batchFrom];
  if (start >= 0) {
    aheadText = aheadItem(i) as string;
    aheadStart = start;
  }
}

/**
 * Where `text` starts in {@link aheadSource} (its bytes at the same indices of {@link aheadBytes}) when it
 * is the text {@link aheadAt} named, once; else -1 (read it from its own bytes).
 */
export function aheadTake(text: string): number {
  if (text !== aheadText) return -1;
  aheadText = null;
  return aheadStart;
}

/** Drops the texts {@link aheadBegin} was given and the batch's text (a cut of it would keep it alive). */
export function aheadEnd(): void {
  aheadFirst = aheadSecond = undefined;
  aheadRest = [];
  aheadText = null;
  aheadSource = "";
  batchFrom = batchTo = 0;
}

/** Encodes texts `from`, `from + 1`, … in one call, as many as the batch holds. */
function encodeBatch(from: number): void {
  const count = aheadRest.length + 2;
  const parts = batchParts;
  parts.length = 0;
  let length = 0;
  let k = 0;
  let i = from;
  for (; i < count && k < AHEAD_TEXTS; i++, k++) {
    const t = aheadItem(i);
    // only new-syntax ads starting at their first unit are read from a batch (ad-new-syntax.ts)
    if (typeof t !== "string" || t.length > AHEAD_ROOM || t.charCodeAt(0) !== 91) {
      batchStarts[k] = -1;
      continue;
    }
    if (length + t.length > AHEAD_ROOM) break;
    batchStarts[k] = length;
    parts.push(t);
    length += t.length;
  }
  batchFrom = from;
  batchTo = i;
  if (length === 0) {
    aheadSource = "";
    return;
  }
  // joined by `join`, which makes one flat string (`+=` makes a tree of them, flattened in place on first
  // use, every later read then going through the tree's root)
  const joined = parts.join("");
  parts.length = 0;
  aheadSource = joined;
  if (aheadBytes.length <= AHEAD_ROOM) aheadBytes = new Uint8Array(AHEAD_ROOM + 1);
  const r = encoder.encodeInto(joined, aheadBytes);
  // every character ASCII: byte j is unit j of the batch; else its texts are read from their own bytes
  if (r.read === length && r.written === length) aheadBytes[length] = 0;
  else batchStarts.fill(-1, 0, k);
}
