import { beforeEach, describe, expect, it } from "vitest";
import {
  clearExprCache,
  clearSeenTexts,
  exprCacheHeld,
  MAX_CACHE_CHARS,
  MAX_CACHED_TEXT,
  parseOldAd,
} from "../../src/engines/classad/ad-input.js";
import { evalAttr } from "../../src/engines/classad/evaluate.js";
import { EvalState } from "../../src/engines/classad/state.js";

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

  // the cache keeps old-form texts by a 30-bit hash of their bytes: these two texts share one
  it("answers each of two texts of one hash with its own value, the one kept last shared", () => {
    const a = "Memory + 107046";
    const b = "Memory + 134944";
    const value = (text: string) => {
      const r = parseOldAd(`Memory = 1\nX = ${text}`);
      if (!r.ok) throw new Error(r.error.message);
      return evalAttr(r.ad, "x", null, new EvalState({ now: 0, random: () => 0 }));
    };
    for (let round = 0; round < 3; round++) {
      expect(value(a)).toBe(107047);
      expect(value(a)).toBe(107047);
      expect(value(b)).toBe(134945);
      expect(value(b)).toBe(134945);
    }
    expect(exprCacheHeld().entries).toBe(1);
  });

  // the hash reads four bytes a step: texts differing only in every second byte (here the digits at
  // odd offsets of `Memory + d0d0d`), or only in each step's top byte (offsets 11, 15 and 19 of
  // `Memory + 10d000d000d`), must still reach distinct slots of the admission filter, else they push
  // each other out and none is ever kept (as on f86bfd3's hash)
  it.each([
    ["every second byte", (a: number, b: number, c: number) => `${a}0${b}0${c}`],
    ["the top byte of a step", (a: number, b: number, c: number) => `10${a}000${b}000${c}`],
  ])("admits, on their second sighting, texts that differ only in %s", (_, digits) => {
    const texts = Array.from({ length: 200 }, (_, i) => {
      const [a, b, c] = [Math.floor(i / 100) + 1, Math.floor(i / 10) % 10, i % 10];
      return `Memory = 1\nX = Memory + ${digits(a, b, c)}`;
    });
    for (const _ of [1, 2]) for (const t of texts) expect(parseOldAd(t).ok).toBe(true);
    expect(exprCacheHeld().entries).toBeGreaterThanOrEqual(190);
  });

  // every non-ASCII character is one byte to the hash (char-codes.ts): texts that differ only there
  // share a key, and each must still be answered with its own value
  it("answers texts that differ only in non-ASCII characters each with its own value", () => {
    const texts = ["caf\u00e9", "caf\u00fc", "caf\u4e00", "caf\u{1f600}".slice(0, 4)];
    const value = (t: string) => {
      const r = parseOldAd(`X = strcat("${t}", "")`);
      if (!r.ok) throw new Error(r.error.message);
      return evalAttr(r.ad, "x", null, new EvalState({ now: 0, random: () => 0 }));
    };
    for (let round = 0; round < 3; round++) for (const t of texts) expect(value(t)).toBe(t);
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
