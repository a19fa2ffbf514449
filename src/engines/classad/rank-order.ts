/**
 * The order of a match's candidates: rank descending, ties in input order,
 * NaN last. Small lists use a stable merge sort; large ones a stable
 * least-significant-digit radix sort on the ranks' bits, so ordering 100,000
 * matches costs a few passes over them rather than n·log n comparisons.
 */

/** Below this many candidates the comparison sort is cheaper than the radix passes. */
const RADIX_FROM = 512;

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
/** Which of the two 32-bit words of a double holds its sign and exponent on this platform. */
const HI = (() => {
  f64[0] = -1;
  return u32[1] === 0xbff00000 ? 1 : 0;
})();
const LO = 1 - HI;

/** Sorts candidate indices (ascending on entry) by `ranks[i]` descending, ties keeping their order, NaN last. */
export function orderByRank(candidates: number[], ranks: ArrayLike<number>): void {
  if (candidates.length < RADIX_FROM) mergeOrder(candidates, ranks);
  else radixOrder(candidates, ranks);
}

/** Whether rank `ra` goes strictly before rank `rb`: the higher first, NaN after any number. */
function goesBefore(ra: number, rb: number): boolean {
  return ra > rb || (Number.isNaN(rb) && !Number.isNaN(ra));
}

/** Runs of this many candidates are put in order by insertion before they are merged. */
const RUN = 8;

/**
 * The comparison path: a stable merge sort with the ranks compared in place
 * (`Array.prototype.sort` calls a comparator per comparison: 100 matches took
 * about 6 µs, a third of what a 100-machine decision spends beyond its
 * evaluations). An element moves ahead of another only when it goes strictly
 * before it, so ties keep their input order.
 */
function mergeOrder(c: number[], ranks: ArrayLike<number>): void {
  const n = c.length;
  for (let lo = 0; lo < n; lo += RUN) {
    const hi = Math.min(lo + RUN, n);
    for (let i = lo + 1; i < hi; i++) {
      const x = c[i];
      const r = ranks[x];
      let j = i;
      for (; j > lo && goesBefore(r, ranks[c[j - 1]]); j--) c[j] = c[j - 1];
      c[j] = x;
    }
  }
  if (n <= RUN) return;
  let from = c;
  let to = new Array<number>(n);
  for (let w = RUN; w < n; w *= 2) {
    for (let lo = 0; lo < n; lo += 2 * w) {
      const mid = Math.min(lo + w, n);
      const hi = Math.min(lo + 2 * w, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) to[k++] = goesBefore(ranks[from[j]], ranks[from[i]]) ? from[j++] : from[i++];
      while (i < mid) to[k++] = from[i++];
      while (j < hi) to[k++] = from[j++];
    }
    const t = from;
    from = to;
    to = t;
  }
  if (from !== c) for (let k = 0; k < n; k++) c[k] = from[k];
}

/**
 * The radix path: each rank becomes a 64-bit key (two 32-bit words) that
 * ascends as the rank descends, NaN largest; eight stable byte passes, each
 * skipped when every key has the same byte there (integer ranks leave most of
 * the low bytes zero).
 */
function radixOrder(candidates: number[], ranks: ArrayLike<number>): void {
  const n = candidates.length;
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    const r = ranks[candidates[k]];
    if (Number.isNaN(r)) {
      hi[k] = 0xffffffff;
      lo[k] = 0xffffffff;
      continue;
    }
    f64[0] = r + 0; // -0 ties with 0
    let h = u32[HI];
    let l = u32[LO];
    // ascending order of the bits as unsigned: flip all bits of negatives, the sign bit of the rest
    if (h & 0x80000000) {
      h = ~h >>> 0;
      l = ~l >>> 0;
    } else {
      h = (h | 0x80000000) >>> 0;
    }
    // descending rank: complement (no rank's key reaches NaN's all-ones one: h < 2^32 - 1 here)
    hi[k] = ~h >>> 0;
    lo[k] = ~l >>> 0;
  }
  const counts = new Uint32Array(8 * 256);
  for (let k = 0; k < n; k++) {
    const l = lo[k];
    const h = hi[k];
    counts[l & 0xff]++;
    counts[256 + ((l >>> 8) & 0xff)]++;
    counts[512 + ((l >>> 16) & 0xff)]++;
    counts[768 + (l >>> 24)]++;
    counts[1024 + (h & 0xff)]++;
    counts[1280 + ((h >>> 8) & 0xff)]++;
    counts[1536 + ((h >>> 16) & 0xff)]++;
    counts[1792 + (h >>> 24)]++;
  }
  let order = Uint32Array.from({ length: n }, (_, k) => k);
  let next = new Uint32Array(n);
  for (let pass = 0; pass < 8; pass++) {
    const base = pass * 256;
    const words = pass < 4 ? lo : hi;
    const shift = (pass & 3) * 8;
    const firstDigit = (words[order[0]] >>> shift) & 0xff;
    if (counts[base + firstDigit] === n) continue; // every key has this byte: the pass changes nothing
    let sum = 0;
    for (let d = 0; d < 256; d++) {
      const c = counts[base + d];
      counts[base + d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const idx = order[k];
      const d = (words[idx] >>> shift) & 0xff;
      next[counts[base + d]++] = idx;
    }
    const t = order;
    order = next;
    next = t;
  }
  const sorted = new Array<number>(n);
  for (let k = 0; k < n; k++) sorted[k] = candidates[order[k]];
  for (let k = 0; k < n; k++) candidates[k] = sorted[k];
}
