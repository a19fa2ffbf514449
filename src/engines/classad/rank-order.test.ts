import { describe, expect, it } from "vitest";
import { decideMatch } from "./match.js";
import { orderByRank } from "./rank-order.js";

/** The order the verdict promises, by the plain comparison sort: rank descending, ties in input order, NaN last. */
function expected(candidates: number[], ranks: Float64Array): number[] {
  const key = (i: number) => (Number.isNaN(ranks[i]) ? -Infinity : ranks[i]);
  return candidates
    .map((c, pos) => ({ c, pos }))
    .sort((a, b) => {
      const na = Number.isNaN(ranks[a.c]);
      const nb = Number.isNaN(ranks[b.c]);
      if (na !== nb) return na ? 1 : -1;
      return key(b.c) - key(a.c) || a.pos - b.pos;
    })
    .map((x) => x.c);
}

describe("ordering a match's candidates by rank", () => {
  const specials = [
    0,
    -0,
    1,
    -1,
    0.5,
    -0.5,
    1e300,
    -1e300,
    Infinity,
    -Infinity,
    NaN,
    5e-324,
    2 ** 53,
    4096,
    8192,
  ];
  for (const n of [0, 1, 2, 8, 9, 10, 17, 100, 511, 512, 5_000]) {
    it(`keeps ties in input order and NaN last with ${n} candidates`, () => {
      let seed = n;
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const ranks = new Float64Array(n + 7);
      for (let i = 0; i < ranks.length; i++) {
        const pick = rnd();
        ranks[i] =
          pick < 0.3
            ? specials[Math.floor(rnd() * specials.length)]
            : pick < 0.6
              ? Math.floor(rnd() * 20)
              : (rnd() - 0.5) * 1e6;
      }
      const candidates = Array.from({ length: ranks.length }, (_, i) => i).filter((i) => i % 7 !== 3);
      const want = expected(candidates, ranks);
      orderByRank(candidates, ranks);
      expect(candidates).toEqual(want);
    });
  }

  it("logs every match of a large pool best first, ties in request order", () => {
    const machines = Array.from({ length: 1_200 }, (_, i) =>
      i % 5 === 0
        ? `[ Memory = ${i % 3}; Requirements = true ]`
        : `[ Name = "m${i}"; Memory = ${i % 3}; Requirements = true ]`,
    );
    const d = decideMatch(
      null,
      { job: "Requirements = TARGET.Memory > 0\nRank = TARGET.Memory", machines },
      { now: Date.UTC(2024, 0, 1), random: () => 0.5 },
    );
    const matching = machines.map((_, i) => i).filter((i) => i % 3 !== 0);
    const order = [...matching.filter((i) => i % 3 === 2), ...matching.filter((i) => i % 3 === 1)];
    const name = (i: number) => (i % 5 === 0 ? `#${i}` : `m${i}`);
    expect(d.verdict.log).toEqual(
      order.map((i) => `2024-01-01T00:00:00.000Z Matched job=#0 machine=${name(i)} rank=${i % 3}`),
    );
    expect(d.verdict.best).toBe("m2");
    expect(d.verdict.machines).toHaveLength(1_200);
    expect(d.verdict.machines[5]).toEqual({ name: 5, discarded: false, match: true, rank: 2 });
  });
});
