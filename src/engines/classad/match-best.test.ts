import { describe, expect, it } from "vitest";
import { impliedBest, type MatchAnswer } from "../../../test/support/match-best.js";
import { Budget } from "../common/budget.js";
import { compileMatchPolicy, loadMatchPolicy } from "./index.js";
import { ClassAdRequestError, decideMatch, slotReads } from "./match.js";
import { BestHeap, MAX_BEST } from "./match-best.js";

const ctx = { now: Date.UTC(2026, 10, 27, 12), random: () => 0.5 };

function policyOf(text: string) {
  const c = compileMatchPolicy(text);
  if (!c.ok) throw new Error(JSON.stringify(c.error));
  return loadMatchPolicy(c.value);
}

const POLICY = policyOf(
  [
    "NEGOTIATOR_PE_STARTD_ONLY_EXPR = Memory < 512",
    'NEGOTIATOR_PE_RESOURCE_EXPR = Partition =!= "gpu"',
    "NEGOTIATOR_PE_JOB_EXPR = TARGET.Cpus =!= 3",
    'NEGOTIATOR_PE_SCHEDD_ONLY_EXPR = Name == "old"',
    'NEGOTIATOR_PE_JOB_ONLY_EXPR = Owner == "guest"',
  ].join("\n"),
);

/** Ranks with ties, NaN, the infinities, -0 and non-numbers; machines of every fate; some without a Name. */
const RANKS = [
  "TARGET.Memory",
  "TARGET.Memory % 3",
  'real("NaN")',
  "1.0/0.0",
  "-1.0/0.0",
  "-0.0",
  '"text"',
  "TARGET.Memory / 7.0",
];

function machines(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const name = i % 9 === 4 ? "" : `Name = "m${i}"; `;
    const memory = i % 13 === 0 ? 256 : 1024 * (1 + ((i * 7) % 5));
    const partition = i % 17 === 2 ? 'Partition = "gpu"; ' : "";
    const cpus = i % 19 === 6 ? 3 : 4;
    return `[ ${name}${partition}Memory = ${memory}; Cpus = ${cpus}; Requirements = ${i % 11 === 4 ? "false" : "true"} ]`;
  });
}

function job(rank: string, owner = "alice"): string {
  return `[ Owner = "${owner}"; Requirements = TARGET.Memory >= 2048; Rank = ${rank} ]`;
}

describe("best-N match", () => {
  it.each(RANKS)(
    "lists the best N in the full answer's order and counts the rest as it does (Rank = %s)",
    (rank) => {
      const request = { job: job(rank), machines: machines(120), schedd: '[ Name = "new" ]' };
      const full = decideMatch(POLICY, request, ctx);
      const fullVerdict = JSON.parse(JSON.stringify(full.verdict)) as MatchAnswer;
      // the fixture has every fate
      expect(fullVerdict.machines.some((m) => m.discarded)).toBe(true);
      expect(fullVerdict.log.some((l) => l.endsWith("reason=NEGOTIATOR_PE_RESOURCE_EXPR"))).toBe(true);
      expect(fullVerdict.log.some((l) => l.endsWith("reason=NEGOTIATOR_PE_JOB_EXPR"))).toBe(true);
      for (const n of [1, 2, 5, 40, 119, 120, MAX_BEST]) {
        const d = decideMatch(POLICY, { ...request, best: n }, ctx);
        expect(JSON.parse(JSON.stringify(d.verdict)), `best ${n}`).toEqual(impliedBest(fullVerdict, n));
        expect(d.outcome).toBe(full.outcome);
        expect(d.cacheable).toBe(full.cacheable);
      }
    },
  );

  it.each([
    ["a discarded job", job("TARGET.Memory", "guest"), undefined],
    ["a discarded schedd", job("TARGET.Memory"), '[ Name = "old" ]'],
  ])("with %s lists none and counts every machine that is not discarded as unmatched", (_, jobAd, schedd) => {
    const request = { job: jobAd, machines: machines(30), ...(schedd === undefined ? {} : { schedd }) };
    const full = decideMatch(POLICY, request, ctx);
    const d = decideMatch(POLICY, { ...request, best: 3 }, ctx);
    expect(JSON.parse(JSON.stringify(d.verdict))).toEqual(
      impliedBest(JSON.parse(JSON.stringify(full.verdict)) as MatchAnswer, 3),
    );
    expect(d.verdict.machines).toEqual([]);
    expect(d.outcome).toBe(full.outcome);
  });

  it("charges every machine's evaluation to the budget, and says when it ran out", () => {
    const request = { job: job("TARGET.Memory"), machines: machines(400) };
    const used = new Budget(Number.MAX_SAFE_INTEGER);
    used.run(() => decideMatch(POLICY, { ...request, best: 1 }, ctx));
    const fewer = new Budget(Number.MAX_SAFE_INTEGER);
    fewer.run(() =>
      decideMatch(POLICY, { ...request, machines: request.machines.slice(0, 200), best: 1 }, ctx),
    );
    // twice the machines, about twice the work, though the answer lists one
    expect(used.used).toBeGreaterThan(fewer.used * 1.8);
    const tight = new Budget(Math.floor(used.used / 2));
    const d = tight.run(() => decideMatch(POLICY, { ...request, best: 1 }, ctx));
    expect(d.outcome).toBe("budget_exceeded");
    expect(d.verdict.log.at(-1)).toMatch(/budget_exceeded/);
  });

  it("reads every machine's first slot before its evaluations (what it counts keeps the read)", () => {
    const request = { job: job("TARGET.Memory"), machines: ["[]", ...machines(3), "[]", "[]"], best: 1 };
    const d = decideMatch(null, request, ctx);
    expect(d.outcome).toBe("matched");
    expect(slotReads()).toBe(3);
  });

  it.each([0, -1, 1.5, MAX_BEST + 1, "3", null])("rejects best = %j naming the field", (best) => {
    expect(() => decideMatch(null, { job: job("1"), machines: machines(2), best }, ctx)).toThrow(
      ClassAdRequestError,
    );
    try {
      decideMatch(null, { job: job("1"), machines: machines(2), best }, ctx);
    } catch (e) {
      expect((e as ClassAdRequestError).field).toBe("best");
      expect((e as ClassAdRequestError).message).toBe(`\`best\`: must be an integer from 1 to ${MAX_BEST}`);
    }
  });
});

describe("BestHeap", () => {
  it("keeps what sorting all would put first: rank descending, NaN last, ties by index", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let round = 0; round < 200; round++) {
      const n = 1 + Math.floor(next() * 60);
      const ranks = Array.from({ length: n }, () => {
        const x = next();
        return x < 0.1 ? NaN : x < 0.15 ? -0 : x < 0.2 ? Infinity : Math.floor(next() * 6) - 2;
      });
      const size = 1 + Math.floor(next() * (n + 3));
      const heap = new BestHeap(Math.min(size, n));
      ranks.forEach((r, i) => heap.offer(i, r));
      const all = ranks
        .map((r, i) => i)
        .sort((a, b) => {
          const [ra, rb] = [ranks[a], ranks[b]];
          if (Number.isNaN(ra) || Number.isNaN(rb))
            return Number.isNaN(ra) === Number.isNaN(rb) ? a - b : Number.isNaN(ra) ? 1 : -1;
          return rb - ra || a - b;
        });
      expect(heap.ordered().idx).toEqual(all.slice(0, size));
    }
  });
});
