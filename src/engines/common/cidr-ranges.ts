/**
 * Sets of networks as sorted, merged address ranges in typed arrays: IPv4 as
 * pairs of 32-bit words, IPv6 as two four-word addresses. Built in one sort,
 * queried by binary search, and stored in the bundle as base64 so an isolate
 * loads a 100,000-entry list without reading any CIDR text.
 */
import { SCANNED, scanNetwork } from "./cidr-scan.js";

/** The JSON form kept in a compiled policy: base64 of the little-endian words, and the entry count. */
export interface PackedRanges {
  readonly n: number;
  readonly v4: string;
  readonly v6: string;
}

/** A prepared set answering containment and overlap in O(log n). */
export class RangeSet {
  constructor(
    /** Number of distinct entries the set was built from. */
    readonly size: number,
    /** Merged IPv4 ranges: start, end, start, end… */
    readonly v4: Uint32Array,
    /** Merged IPv6 ranges: four start words then four end words, per range. */
    readonly v6: Uint32Array,
  ) {}

  /** True when an IPv4 range [start, end] shares an address with the set. */
  overlaps4(start: number, end: number): boolean {
    const i = floor4(this.v4, end);
    return i >= 0 && this.v4[2 * i + 1] >= start;
  }

  /** True when one merged range holds all of the IPv4 range [start, end]. */
  contains4(start: number, end: number): boolean {
    const i = floor4(this.v4, start);
    return i >= 0 && this.v4[2 * i + 1] >= end;
  }

  /** True when an IPv6 range (four start words, four end words) shares an address with the set. */
  overlaps6(start: ArrayLike<number>, end: ArrayLike<number>): boolean {
    const i = floor6(this.v6, end);
    return i >= 0 && cmp6(this.v6, 8 * i + 4, start, 0) >= 0;
  }

  /** True when one merged range holds all of the IPv6 range. */
  contains6(start: ArrayLike<number>, end: ArrayLike<number>): boolean {
    const i = floor6(this.v6, start);
    return i >= 0 && cmp6(this.v6, 8 * i + 4, end, 0) >= 0;
  }

  /** The JSON form for a compiled policy. */
  pack(): PackedRanges {
    return { n: this.size, v4: wordsToBase64(this.v4), v6: wordsToBase64(this.v6) };
  }

  /** Rebuilds a set from its JSON form; no CIDR text is read. */
  static unpack(p: PackedRanges): RangeSet {
    return new RangeSet(p.n, base64ToWords(p.v4), base64ToWords(p.v6));
  }
}

/** Compares the four words at a[ai] with b[bi]. */
function cmp6(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number): number {
  for (let k = 0; k < 4; k++) {
    const d = a[ai + k] - b[bi + k];
    if (d !== 0) return d;
  }
  return 0;
}

/** Index of the last range whose start is <= value, or -1. */
function floor4(r: Uint32Array, value: number): number {
  let lo = 0;
  let hi = (r.length >> 1) - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (r[2 * mid] <= value) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function floor6(r: Uint32Array, value: ArrayLike<number>): number {
  let lo = 0;
  let hi = (r.length >> 3) - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cmp6(r, 8 * mid, value, 0) <= 0) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Accumulates networks (as scanned words) and builds the merged set in one sort per family. */
export class RangeSetBuilder {
  /** IPv4 entries as start * 64 + prefix: one native numeric sort orders them. */
  private keys4 = new Float64Array(64);
  private n4 = 0;
  /** IPv6 entries: four start words and the prefix, five slots each. */
  private words6 = new Uint32Array(5 * 16);
  private n6 = 0;

  /** Adds the network SCANNED holds (after a successful scanNetwork). */
  addScanned(): void {
    if (SCANNED.family === 4) this.add4(SCANNED.w[3], SCANNED.prefix);
    else this.add6(SCANNED.w, SCANNED.prefix);
  }

  /** Adds an IPv4 network by its first address and prefix. */
  add4(start: number, prefix: number): void {
    if (this.n4 === this.keys4.length) {
      const grown = new Float64Array(this.keys4.length * 2);
      grown.set(this.keys4);
      this.keys4 = grown;
    }
    this.keys4[this.n4++] = start * 64 + prefix;
  }

  /** Adds an IPv6 network by its first address's four words and prefix. */
  add6(w: ArrayLike<number>, prefix: number): void {
    if (5 * (this.n6 + 1) > this.words6.length) {
      const grown = new Uint32Array(this.words6.length * 2);
      grown.set(this.words6);
      this.words6 = grown;
    }
    const o = 5 * this.n6++;
    this.words6[o] = w[0];
    this.words6[o + 1] = w[1];
    this.words6[o + 2] = w[2];
    this.words6[o + 3] = w[3];
    this.words6[o + 4] = prefix;
  }

  /** Sorts, de-duplicates and merges adjacent or overlapping ranges. */
  build(): RangeSet {
    const keys = this.keys4.subarray(0, this.n4).sort();
    const v4 = new Uint32Array(2 * this.n4);
    let m4 = 0;
    let distinct = 0;
    for (let i = 0; i < keys.length; i++) {
      if (i > 0 && keys[i] === keys[i - 1]) continue;
      distinct++;
      const start = Math.floor(keys[i] / 64);
      const end = start + 2 ** (32 - (keys[i] - start * 64)) - 1;
      if (m4 > 0 && start <= v4[2 * m4 - 1] + 1) {
        if (end > v4[2 * m4 - 1]) v4[2 * m4 - 1] = end;
      } else {
        v4[2 * m4] = start;
        v4[2 * m4 + 1] = end;
        m4++;
      }
    }
    const w = this.words6;
    const order = radixOrder(w, this.n6);
    const v6 = new Uint32Array(8 * this.n6);
    let m6 = 0;
    const end = new Uint32Array(4);
    let prev = -1;
    for (let j = 0; j < order.length; j++) {
      const i = order[j];
      const o = 5 * i;
      if (prev >= 0 && cmp6(w, o, w, 5 * prev) === 0 && w[o + 4] === w[5 * prev + 4]) continue;
      prev = i;
      distinct++;
      lastAddress(w, o, w[o + 4], end);
      const last = 8 * (m6 - 1);
      if (m6 > 0 && follows(v6, last + 4, w, o)) {
        if (cmp6(end, 0, v6, last + 4) > 0) v6.set(end, last + 4);
      } else {
        const at = 8 * m6++;
        v6[at] = w[o];
        v6[at + 1] = w[o + 1];
        v6[at + 2] = w[o + 2];
        v6[at + 3] = w[o + 3];
        v6.set(end, at + 4);
      }
    }
    return new RangeSet(distinct, v4.slice(0, 2 * m4), v6.slice(0, 8 * m6));
  }
}

/** Below this many IPv6 rows a comparison sort orders them: the radix passes cost 65,537 buckets each, whatever n. */
export const RADIX_MIN_ROWS = 256;

/**
 * Work the IPv6 orderings did, for tests: buckets counted by the radix passes
 * and rows ordered by comparison (the radix's cost that does not grow with n).
 */
export const ORDER_WORK = { buckets: 0, compared: 0 };

/**
 * The order of n five-word rows (four address words, then the prefix) by address
 * then prefix: a comparison sort for fewer than RADIX_MIN_ROWS rows (a list of a
 * few IPv6 networks, or none, is most lists), else an LSD radix sort on 16-bit
 * digits, skipping digits all rows share, so 100,000 IPv6 networks sort in a few
 * milliseconds with no comparator calls.
 */
function radixOrder(w: Uint32Array, n: number): Uint32Array {
  let order = Uint32Array.from({ length: n }, (_, i) => i);
  if (n < RADIX_MIN_ROWS) {
    if (n < 2) return order;
    ORDER_WORK.compared += n;
    return order.sort((a, b) => cmp6(w, 5 * a, w, 5 * b) || w[5 * a + 4] - w[5 * b + 4]);
  }
  let next = new Uint32Array(n);
  const counts = new Uint32Array(65537);
  // digits from least significant: the prefix, then each word's low and high half, last word first
  for (let d = 0; d < 9; d++) {
    const slot = d === 0 ? 4 : 3 - ((d - 1) >> 1);
    const shift = d === 0 ? 0 : (d - 1) & 1 ? 16 : 0;
    const first = (w[5 * order[0] + slot] >>> shift) & 0xffff;
    let same = true;
    for (let i = 1; i < n && same; i++) same = ((w[5 * order[i] + slot] >>> shift) & 0xffff) === first;
    if (same) continue;
    ORDER_WORK.buckets += counts.length;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((w[5 * order[i] + slot] >>> shift) & 0xffff) + 1]++;
    for (let b = 1; b < 65537; b++) counts[b] += counts[b - 1];
    for (let i = 0; i < n; i++) {
      const row = order[i];
      next[counts[(w[5 * row + slot] >>> shift) & 0xffff]++] = row;
    }
    const t = order;
    order = next;
    next = t;
  }
  return order;
}

/** Writes into out the last address of the network starting at w[o] with this prefix. */
export function lastAddress(w: ArrayLike<number>, o: number, prefix: number, out: Uint32Array): void {
  for (let k = 0; k < 4; k++) {
    const keep = prefix - k * 32;
    const host = keep >= 32 ? 0 : keep <= 0 ? 0xffffffff : 0xffffffff >>> keep;
    out[k] = (w[o + k] | host) >>> 0;
  }
}

const NEXT = new Uint32Array(4);

/** Whether a range starting at b[bi] overlaps or directly follows one ending at a[ai] (start <= end + 1). */
function follows(a: ArrayLike<number>, ai: number, b: ArrayLike<number>, bi: number): boolean {
  if (cmp6(b, bi, a, ai) <= 0) return true;
  // end + 1 with carry, compared word by word
  let carry = 1;
  for (let k = 3; k >= 0; k--) {
    const s = a[ai + k] + carry;
    NEXT[k] = s >>> 0;
    carry = s > 0xffffffff ? 1 : 0;
  }
  if (carry === 1) return true;
  return cmp6(b, bi, NEXT, 0) <= 0;
}

/**
 * Builds a set from address/CIDR texts, masking host bits and skipping text
 * that is not an address or network.
 */
export function rangeSetOfTexts(texts: readonly string[]): RangeSet {
  const b = new RangeSetBuilder();
  for (const t of texts) if (scanNetwork(t)) b.addScanned();
  return b.build();
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64_CODES = Uint8Array.from(B64, (ch) => ch.charCodeAt(0));
const B64_INDEX = new Uint8Array(128);
const ASCII = new TextDecoder("latin1");
for (let i = 0; i < 64; i++) B64_INDEX[B64.charCodeAt(i)] = i;

/** Base64 of 32-bit words, each written little-endian. */
export function wordsToBase64(words: Uint32Array): string {
  const bytes = new Uint8Array(words.length * 4);
  for (let i = 0; i < words.length; i++) {
    const v = words[i];
    bytes[4 * i] = v & 255;
    bytes[4 * i + 1] = (v >>> 8) & 255;
    bytes[4 * i + 2] = (v >>> 16) & 255;
    bytes[4 * i + 3] = v >>> 24;
  }
  const out = new Uint8Array(4 * Math.ceil(bytes.length / 3));
  let o = 0;
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i];
    const b = i + 1 < bytes.length ? bytes[i + 1] : 0;
    const c = i + 2 < bytes.length ? bytes[i + 2] : 0;
    out[o++] = B64_CODES[a >> 2];
    out[o++] = B64_CODES[((a & 3) << 4) | (b >> 4)];
    out[o++] = i + 1 < bytes.length ? B64_CODES[((b & 15) << 2) | (c >> 6)] : 61;
    out[o++] = i + 2 < bytes.length ? B64_CODES[c & 63] : 61;
  }
  return ASCII.decode(out);
}

/** The words of wordsToBase64's output. */
export function base64ToWords(text: string): Uint32Array {
  let len = text.length;
  while (len > 0 && text.charCodeAt(len - 1) === 61) len--;
  const bytes = new Uint8Array((len * 3) >> 2);
  let o = 0;
  for (let i = 0; i < len; i += 4) {
    const a = B64_INDEX[text.charCodeAt(i)];
    const b = B64_INDEX[text.charCodeAt(i + 1)];
    const c = i + 2 < len ? B64_INDEX[text.charCodeAt(i + 2)] : 0;
    const d = i + 3 < len ? B64_INDEX[text.charCodeAt(i + 3)] : 0;
    bytes[o++] = (a << 2) | (b >> 4);
    if (i + 2 < len) bytes[o++] = ((b & 15) << 4) | (c >> 2);
    if (i + 3 < len) bytes[o++] = ((c & 3) << 6) | d;
  }
  const words = new Uint32Array(bytes.length >> 2);
  for (let i = 0; i < words.length; i++) {
    words[i] =
      (bytes[4 * i] | (bytes[4 * i + 1] << 8) | (bytes[4 * i + 2] << 16) | (bytes[4 * i + 3] << 24)) >>> 0;
  }
  return words;
}
