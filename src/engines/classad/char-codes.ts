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
