import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatNetwork, parseNetwork, rangeContains, rangeOverlaps, type IpNetwork } from "./cidr.js";
import {
  ORDER_WORK,
  RADIX_MIN_ROWS,
  RangeSet,
  base64ToWords,
  rangeSetOfTexts,
  wordsToBase64,
} from "./cidr-ranges.js";

const netText = fc.oneof(
  fc.tuple(fc.ipV4(), fc.integer({ min: 0, max: 32 })).map(([a, p]) => `${a}/${p}`),
  fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([a, p]) => `${a}/${p}`),
  fc.ipV4(),
  fc.ipV6(),
);

/** The naive answers: some entry overlapping the query, some one entry holding all of it. */
function naive(entries: IpNetwork[], q: IpNetwork): { overlaps: boolean; contains: boolean } {
  const same = entries.filter((e) => e.family === q.family);
  const overlaps = same.some((e) => e.start <= q.end && q.start <= e.end);
  return { overlaps, contains: same.some((e) => e.start <= q.start && e.end >= q.end) };
}

describe("RangeSet", () => {
  it("answers overlap like a scan of the entries", () => {
    fc.assert(
      fc.property(fc.array(netText, { maxLength: 30 }), netText, (texts, qt) => {
        const set = rangeSetOfTexts(texts);
        const entries = texts
          .map((t) => parseNetwork(t) as IpNetwork)
          .map((n) => parseNetwork(fmt(n)) as IpNetwork);
        const q = parseNetwork(qt) as IpNetwork;
        expect(rangeOverlaps(set, q)).toBe(naive(entries, q).overlaps);
        if (naive(entries, q).contains) expect(rangeContains(set, q)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
  it("merges adjacent ranges, so containment spans them", () => {
    const set = rangeSetOfTexts(["10.0.0.0/25", "10.0.0.128/25", "2001:db8::/33", "2001:db8:8000::/33"]);
    expect(rangeContains(set, parseNetwork("10.0.0.0/24") as IpNetwork)).toBe(true);
    expect(rangeContains(set, parseNetwork("2001:db8::/32") as IpNetwork)).toBe(true);
    expect(rangeContains(set, parseNetwork("10.0.0.0/23") as IpNetwork)).toBe(false);
    expect(set.v4.length).toBe(2);
    expect(set.v6.length).toBe(8);
  });
  it("counts distinct entries, ignoring text that is not a network", () => {
    expect(rangeSetOfTexts(["10.0.0.0/8", "10.0.0.0/8", "10.1.2.3/8", "::/0", "nope"]).size).toBe(2);
  });
  it("packs to JSON and back without change", () => {
    fc.assert(
      fc.property(fc.array(netText, { maxLength: 20 }), (texts) => {
        const set = rangeSetOfTexts(texts);
        const back = RangeSet.unpack(JSON.parse(JSON.stringify(set.pack())));
        expect([...back.v4]).toEqual([...set.v4]);
        expect([...back.v6]).toEqual([...set.v6]);
        expect(back.size).toBe(set.size);
      }),
    );
  });
  it("round-trips words through base64 at every length", () => {
    for (let n = 0; n < 9; n++) {
      const words = Uint32Array.from({ length: n }, (_, i) => (i * 0x9e3779b9) >>> 0);
      expect([...base64ToWords(wordsToBase64(words))]).toEqual([...words]);
    }
  });
});

/** The network with host bits cleared, as text. */
function fmt(n: IpNetwork): string {
  return formatNetwork(n);
}

describe("ordering IPv6 entries", () => {
  // issue 24: each list paid for 65,537 radix buckets per pass whatever its length (a
  // limits.json of 2,500 twenty-entry lists spent about 0.4 s on them); small lists are
  // now ordered by comparison
  it("counts no radix bucket for lists shorter than RADIX_MIN_ROWS, and keeps their answers", () => {
    const before = { ...ORDER_WORK };
    for (let i = 0; i < 100; i++) {
      const set = rangeSetOfTexts([
        `10.${i}.0.0/16`,
        `2001:db8:${i + 1}::/48`,
        `2001:db8::${i}`,
        `2001:db6::/32`,
        `2001:db8:${i + 1}::/48`,
      ]);
      expect(set.size).toBe(4);
      expect(set.v6.length).toBe(8 * 3);
    }
    expect(ORDER_WORK.buckets - before.buckets).toBe(0);
    expect(ORDER_WORK.compared - before.compared).toBe(100 * 4);
  });

  it("orders long lists by radix as short ones by comparison", () => {
    const texts = Array.from(
      { length: RADIX_MIN_ROWS * 2 },
      (_, i) => `2001:db8:${(i * 7919) % 4096}::/${48 + (i % 16)}`,
    );
    const before = ORDER_WORK.buckets;
    const long = rangeSetOfTexts(texts);
    expect(ORDER_WORK.buckets).toBeGreaterThan(before);
    const short = texts.reduce((acc, t, i) => (i % 64 === 0 ? [...acc, []] : acc), [] as string[][]);
    texts.forEach((t, i) => short[i >> 6].push(t));
    // the union of the short lists' sets, built again from their ranges, is the long list's set
    const parts = short.map((s) => rangeSetOfTexts(s));
    expect(parts.reduce((n, p) => n + p.size, 0)).toBeGreaterThanOrEqual(long.size);
    for (let i = 0; i < long.v6.length; i += 8) {
      const start = long.v6.subarray(i, i + 4);
      const end = long.v6.subarray(i + 4, i + 8);
      expect(parts.some((p) => p.overlaps6(start, end))).toBe(true);
    }
  });
});
