import { beforeEach, describe, expect, it } from "vitest";
import {
  clearExprCache,
  clearSeenTexts,
  exprCacheHeld,
  MAX_CACHE_CHARS,
  MAX_CACHED_TEXT,
  parseOldAd,
} from "../../src/engines/classad/ad-input.js";
import { MAX_PROBES, TABLE_SLOTS, textHash } from "../../src/engines/classad/expr-cache.js";

/** An old-form ad whose Requirements text differs from every other `i` and is about `chars` long. */
function distinctAd(i: number, chars: number): string {
  const terms = Array.from({ length: Math.ceil(chars / 12) }, (_, k) => `(A${k} + ${i})`);
  return `Requirements = ${terms.join(" + ")}\nName = "slot${i}"`;
}

// Issue 24 item 10: request-supplied ClassAd texts filled a shared cache bounded only by its
// entry count (20,000 distinct 100-character texts kept 80 MB, 1,000-character ones 794 MB).
describe("the shared ClassAd expression cache", () => {
  beforeEach(() => {
    clearExprCache();
    clearSeenTexts();
  });

  it("never holds more than its bound of text, however many distinct texts arrive twice", () => {
    let most = 0;
    for (let i = 0; i < 2500; i++) {
      for (const _ of [1, 2]) expect(parseOldAd(distinctAd(i, 100)).ok).toBe(true);
      most = Math.max(most, exprCacheHeld().chars);
    }
    expect(most).toBeGreaterThan(MAX_CACHE_CHARS / 2);
    expect(most).toBeLessThanOrEqual(MAX_CACHE_CHARS);
  }, 60_000);

  it("does not keep a text longer than its per-text bound, yet the ad evaluates", () => {
    const r = parseOldAd(distinctAd(1, MAX_CACHED_TEXT + 500));
    expect(r.ok).toBe(true);
    expect(exprCacheHeld().entries).toBe(0);
  });

  it("still shares a repeated text, from its second sighting on", () => {
    parseOldAd(distinctAd(7, 100));
    expect(exprCacheHeld().entries).toBe(0);
    parseOldAd(distinctAd(7, 100));
    const held = exprCacheHeld();
    expect(held.entries).toBe(1);
    parseOldAd(distinctAd(7, 100));
    expect(exprCacheHeld()).toEqual(held);
  });

  // Issue 24 item 10, second look: distinct texts (one per request) were kept until the cache
  // filled and was emptied, living long enough to be promoted to V8's old generation, whose
  // garbage raised workerd's resident memory by 60–90 MB on distinct match requests.
  it("keeps no text seen only once, however many distinct texts arrive", () => {
    let most = 0;
    for (let i = 0; i < 2500; i++) {
      expect(parseOldAd(distinctAd(i, 100)).ok).toBe(true);
      most = Math.max(most, exprCacheHeld().chars);
    }
    expect(most).toBe(0);
    expect(exprCacheHeld().firstSightings).toBe(2500);
  }, 60_000);

  it("keeps a text seen again after many other distinct texts (its slot of the filter not yet taken)", () => {
    parseOldAd(distinctAd(1, 100));
    for (let i = 2; i < 200; i++) parseOldAd(distinctAd(i, 100));
    parseOldAd(distinctAd(1, 100));
    expect(exprCacheHeld().entries).toBe(1);
  });
});

// Issue 31: the cache is a table of its own keyed by one hash of the text's code units, compared in place.
describe("the expression cache's table", () => {
  beforeEach(() => {
    clearExprCache();
    clearSeenTexts();
  });

  const codes = new Uint16Array(64);
  /** The hash the table keys an old-form text by. */
  function hashOf(text: string): number {
    for (let i = 0; i < text.length; i++) codes[i] = text.charCodeAt(i);
    return textHash(codes, 0, text.length, true);
  }

  /** The slot of `v = text`, read as an old-form ad. */
  function slotOf(text: string): unknown {
    const r = parseOldAd(`v = ${text}`);
    if (!r.ok) throw new Error(r.error.message);
    return r.ad.slots[0];
  }

  it("tells apart texts of one hash, and keeps no more than its probes allow in one run", () => {
    // two texts of one length and the same hash (bit 1 aside, which carries the form): found by the birthday bound
    const byKey = new Map<number, string>();
    let pair: [string, string] | null = null;
    for (let i = 100_000; pair === null; i++) {
      const t = `A + ${i}`;
      const key = hashOf(t) & ~2;
      const other = byKey.get(key);
      if (other !== undefined) pair = [other, t];
      else byKey.set(key, t);
    }
    const [a, b] = pair;
    for (const _ of [1, 2]) slotOf(a);
    const sa = slotOf(a);
    for (const _ of [1, 2]) slotOf(b);
    const sb = slotOf(b);
    expect(exprCacheHeld().entries).toBe(2);
    expect(sb).not.toBe(sa);
    expect(slotOf(a)).toBe(sa);
    expect(slotOf(b)).toBe(sb);

    // texts starting their probe at one slot: the first MAX_PROBES are kept, the rest compiled each time
    clearExprCache();
    const start = (t: string): number => (hashOf(t) >>> 2) & (TABLE_SLOTS - 1);
    const crowd = [`B + 0`];
    for (let i = 1; crowd.length < MAX_PROBES + 2; i++)
      if (start(`B + ${i}`) === start(crowd[0])) crowd.push(`B + ${i}`);
    const kept = crowd.map((t) => {
      slotOf(t);
      return slotOf(t);
    });
    expect(exprCacheHeld().entries).toBe(MAX_PROBES);
    crowd.forEach((t, i) => {
      if (i < MAX_PROBES) expect(slotOf(t)).toBe(kept[i]);
      else expect(slotOf(t)).not.toBe(kept[i]);
    });
    expect(new Set(crowd.map(slotOf)).size).toBe(crowd.length);
  });
});
