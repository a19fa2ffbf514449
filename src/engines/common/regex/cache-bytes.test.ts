import { describe, expect, it } from "vitest";
import { Budget } from "../budget.js";
import {
  CachePool,
  cachedLinear,
  Lru,
  REGEX_CACHE_BYTES,
  REGEX_ENTRY_MAX_BYTES,
  regexBytes,
  REQUEST_PATTERNS,
} from "./index.js";
import { compileRegex } from "../../../jq/regex.js";

/** A pattern no other test compiled (the caches are per isolate). */
let seq = 0;
function fresh(body: string): string {
  return `${body}q${seq++}z`;
}

/** Whether compiling `pattern` again is a cache miss (a compile the decision pays for). */
function misses(pattern: string): boolean {
  const b = new Budget(1e9);
  b.run(() => cachedLinear(pattern, "pcre"));
  return b.regexCompiles === 1;
}

describe(
  "the caches of request-supplied patterns are bounded by bytes (issue 24 item 10)",
  { timeout: 120_000 },
  () => {
    it("keeps an ordinary pattern", () => {
      const p = fresh("^slot[0-9]+_");
      expect(misses(p)).toBe(true);
      expect(misses(p)).toBe(false);
    });

    it("keeps only the latest pattern heavier than the entry bound (near the program limit: about 5 MB)", () => {
      const p = fresh("(a{1000}){49}");
      const r = cachedLinear(p, "pcre");
      expect(r.ok).toBe(true);
      if (r.ok) expect(regexBytes(r.value)).toBeGreaterThan(REGEX_ENTRY_MAX_BYTES);
      // used again (by the next ad of the decision): not compiled again
      expect(misses(p)).toBe(false);
      const q = fresh("(a{1000}){49}");
      expect(misses(q)).toBe(true);
      expect(misses(q)).toBe(false);
      expect(misses(p)).toBe(true);
    });

    it("keeps at most REGEX_CACHE_BYTES, however few entries that is", () => {
      // each about 2 MB (a 4,900-instruction program, its VMs and its DFA's bound): 64 of them are 128 MB
      const patterns = Array.from({ length: 64 }, () => fresh("(a{100}){49}"));
      for (const p of patterns) {
        const r = cachedLinear(p, "pcre");
        expect(r.ok).toBe(true);
        expect(REQUEST_PATTERNS.bytes).toBeLessThanOrEqual(REGEX_CACHE_BYTES);
      }
      const w = cachedLinear(patterns[63], "pcre");
      if (w.ok) expect(regexBytes(w.value)).toBeGreaterThan(1_000_000);
      // the oldest went to make room, the newest is still there
      expect(misses(patterns[0])).toBe(true);
      expect(misses(patterns[63])).toBe(false);
    });

    it("counts jq's own cache in the same pool", () => {
      for (let i = 0; i < 40; i++) {
        compileRegex(fresh("(a{100}){49}"), i % 2 === 0 ? "" : "x");
        expect(REQUEST_PATTERNS.bytes).toBeLessThanOrEqual(REGEX_CACHE_BYTES);
      }
    });
  },
);

describe("Lru with a shared byte pool", () => {
  it("drops its own oldest entries first, then empties every member", () => {
    const pool = new CachePool(100, 60);
    const a = new Lru<number>(10, (v) => v, pool);
    const b = new Lru<number>(10, (v) => v, pool);
    a.set("a", 50);
    b.set("b", 40);
    a.set("c", 30);
    expect(a.get("a")).toBeUndefined();
    expect(pool.bytes).toBe(70);
    b.set("d", 50);
    expect([b.get("b"), b.get("d")]).toEqual([undefined, 50]);
    expect(pool.bytes).toBe(80);
    a.set("e", 60);
    expect([a.size, b.size, pool.bytes]).toEqual([1, 0, 60]);
    a.set("f", 61);
    expect(a.get("f")).toBe(61);
    expect(b.get("f")).toBeUndefined();
    expect(pool.bytes).toBe(60);
    a.set("g", 70);
    expect([a.get("f"), a.get("g"), pool.bytes]).toEqual([undefined, 70, 60]);
    a.dispose();
    expect([pool.bytes, pool.heavy]).toEqual([0, undefined]);
  });

  it("replacing a key gives back the old entry's bytes", () => {
    const pool = new CachePool(100, 100);
    const a = new Lru<number>(10, (v) => v, pool);
    a.set("k", 40);
    a.set("k", 10);
    expect(pool.bytes).toBe(10);
  });
});
