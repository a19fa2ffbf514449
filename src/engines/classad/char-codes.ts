/**
 * A text's UTF-16 code units in a typed array, for the ad reader and the
 * lexer: reading `codes[i]` costs a third of `text.charCodeAt(i)` in V8 (the
 * string's representation is checked on every call), and an ASCII text is
 * copied in one native pass (`TextEncoder.encodeInto`, then a widening copy).
 * Arrays are lent from a small pool and given back, so reading an ad
 * allocates none; a text read while another is (a parse inside a read) gets
 * an array of its own.
 */

const encoder = new TextEncoder();
/** The UTF-8 scratch of the ASCII copy (its contents never outlive one call). */
let bytes = new Uint8Array(4096);
/** Arrays free for lending, each with room for at least POOL_MIN_LENGTH units. */
const pool: Uint16Array[] = [];
const POOL_SIZE = 4;
const POOL_MIN_LENGTH = 4096;
/** Longer texts get arrays that are not kept (a large request's text must not stay allocated). */
const POOL_MAX_LENGTH = 1 << 16;

/**
 * The code units of `text` in `codes[0, text.length)`, followed by a 0 (so a
 * look one past the end reads no character); give the array back with
 * {@link releaseCodes} when done.
 */
export function borrowCodes(text: string): Uint16Array {
  const n = text.length;
  let codes = pool.pop();
  if (codes === undefined || codes.length <= n)
    codes = new Uint16Array(n < POOL_MAX_LENGTH ? Math.max(POOL_MIN_LENGTH, 2 * n + 1) : n + 1);
  fill(text, codes);
  return codes;
}

/** Gives an array from {@link borrowCodes} back to the pool (it must not be read afterwards). */
export function releaseCodes(codes: Uint16Array): void {
  if (pool.length < POOL_SIZE && codes.length <= 2 * POOL_MAX_LENGTH + 1) pool.push(codes);
}

/** The Int32Array views of arrays {@link wordsOf} was asked for (pooled arrays are asked again and again). */
const wordViews = new WeakMap<Uint16Array, Int32Array>();
/** The array {@link wordsOf} was last asked for and its view (a pooled array is asked for again and again). */
let lastCodes: Uint16Array | null = null;
let lastWords: Int32Array | null = null;

/**
 * The code units of `codes` two at a time, as an Int32Array over the same memory (word `j` holds units
 * `2j` and `2j + 1`): comparing a text with a kept one a word at a time halves the loads. Null when the
 * array does not start on a 4-byte boundary (arrays from {@link borrowCodes} do).
 */
export function wordsOf(codes: Uint16Array): Int32Array | null {
  if (codes === lastCodes) return lastWords;
  let w = wordViews.get(codes);
  if (w === undefined) {
    if ((codes.byteOffset & 3) !== 0) return null;
    w = new Int32Array(codes.buffer, codes.byteOffset, codes.length >> 1);
    wordViews.set(codes, w);
  }
  if (codes.length <= 2 * POOL_MAX_LENGTH + 1) {
    // only an array the pool may hold: a large text's own must not be kept alive here
    lastCodes = codes;
    lastWords = w;
  }
  return w;
}

function fill(text: string, codes: Uint16Array): void {
  const n = text.length;
  if (n >= 32) {
    if (bytes.length < n) bytes = new Uint8Array(Math.min(2 * n, POOL_MAX_LENGTH));
    if (bytes.length >= n) {
      const r = encoder.encodeInto(text, bytes);
      // every character ASCII: one byte each, so byte i is code unit i
      if (r.read === n && r.written === n) {
        codes.set(bytes.subarray(0, n));
        codes[n] = 0;
        return;
      }
    }
  }
  for (let i = 0; i < n; i++) codes[i] = text.charCodeAt(i);
  codes[n] = 0;
}
