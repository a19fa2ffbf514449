/**
 * The match verdict writes its own JSON from its columns (match-verdict.ts,
 * for the route's answer); it must be exactly the text JSON.stringify gives
 * for the verdict object, whose machine lines and log are built when read.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileMatchPolicy, loadMatchPolicy, type MatchPolicy } from "../../src/engines/classad/index.js";
import { decideMatch, decideParsedMatch, parseMatchRequest } from "../../src/engines/classad/match.js";
import { OWN_JSON_MACHINES } from "../../src/engines/classad/match-verdict.js";
import { decisionBudget } from "../../src/engines/common/budget.js";
import { verdictMembersWriter } from "../../src/engines/common/decision.js";

const compiled = compileMatchPolicy(
  readFileSync(new URL("../../policies/pool.conf", import.meta.url), "utf8"),
);
if (!compiled.ok) throw new Error("policies/pool.conf does not compile");
const pool = loadMatchPolicy(compiled.value);
const ctx = { now: Date.UTC(2026, 10, 27, 12), random: () => 0.5 };

const NAMES = [
  '"slot1"',
  '"quote\\"d"',
  '"back\\\\slash"',
  '"é ü 雪"',
  '"tab\\tnew\\nline"',
  '"\\ud800 lone"',
  "",
  "42",
  '""',
];
const RANKS = [
  "TARGET.Memory",
  'real(\\"NaN\\")',
  "1.0/0.0",
  "-1.0/0.0",
  "-0.0",
  "TARGET.Memory / 3.0",
  "1e300 * TARGET.Memory",
  '"text"',
  "undefined",
];

/** n machines cycling through names, memory (some under the policy's minimum), partitions and Requirements. */
function machines(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const name = NAMES[i % NAMES.length];
    const memory = i % 5 === 0 ? 256 : 1024 * (1 + (i % 4));
    const partition = i % 7 === 3 ? 'Partition = "gpu"; ' : "";
    return `[ ${name === "" ? "" : `Name = ${name}; `}${partition}Memory = ${memory}; Cpus = 2; Requirements = ${i % 6 === 5 ? "false" : "true"} ]`;
  });
}

function job(rank: string, extra = ""): string {
  return `[ Requirements = TARGET.Memory >= 1024; Rank = ${rank.replace(/\\"/g, '"')}; Owner = "alice"; ${extra} ]`;
}

/** The writer's text (its members, read first while the lists are unbuilt, in braces), then JSON.stringify's. */
function both(
  policy: MatchPolicy | null,
  request: { job: string; machines: string[]; schedd?: unknown },
  budget?: string,
) {
  const decision = decisionBudget(budget).run(() => decideMatch(policy, request, ctx));
  const write = verdictMembersWriter(decision.verdict);
  expect(write).toBeDefined();
  const own = `{${(write as () => string)()}}`;
  // the best is the machine of the first Matched line (the log's order is rank-order.ts's, tested there)
  const v = decision.verdict;
  const first = v.log.find((line) => line.includes(" Matched job="));
  const shown =
    first === undefined ? null : first.slice(first.indexOf(" machine=") + 9, first.lastIndexOf(" rank="));
  expect(v.best === null ? null : typeof v.best === "number" ? `#${v.best}` : v.best).toBe(shown);
  return { own, stringified: JSON.stringify(decision.verdict), decision };
}

describe("the match verdict's own JSON", () => {
  for (const n of [0, 1, 9, OWN_JSON_MACHINES]) {
    for (const rank of RANKS) {
      it(`is JSON.stringify's text: ${n} machines, Rank = ${rank}`, () => {
        for (const policy of [null, pool]) {
          for (const schedd of [
            undefined,
            { Name: "submit1.example.org" },
            { Name: "submit-old.example.org" },
          ]) {
            const { own, stringified } = both(policy, {
              job: job(rank, 'GlobalJobId = "sub#1.0#\\"x\\" é"'),
              machines: machines(n),
              schedd,
            });
            expect(own).toBe(stringified);
          }
        }
      });
    }
  }

  it("is JSON.stringify's text for a discarded job, a job without id, and a spent budget", () => {
    const blocked = both(pool, { job: job("TARGET.Memory", 'Owner = "mallory"'), machines: machines(12) });
    expect(blocked.decision.outcome).toBe("job_discarded");
    expect(blocked.own).toBe(blocked.stringified);
    const spent = both(pool, { job: job("TARGET.Memory"), machines: machines(OWN_JSON_MACHINES) }, "60");
    expect(spent.decision.outcome).toBe("budget_exceeded");
    expect(spent.own).toBe(spent.stringified);
  });

  it("is left to JSON.stringify above OWN_JSON_MACHINES machines", () => {
    const decision = decideMatch(
      pool,
      { job: job("TARGET.Memory"), machines: machines(OWN_JSON_MACHINES + 1) },
      ctx,
    );
    expect(verdictMembersWriter(decision.verdict)).toBeUndefined();
  });

  // at every size: the route's answer is written from the columns, so a small verdict's lines and log
  // are built only when read, as a large one's (wt/matchroute, session 44; they were plain fields built at once)
  for (const n of [9, OWN_JSON_MACHINES + 8])
    it(`${n} machines: own keys in order, spread as written, assignable, one accessor pair for every verdict`, () => {
      const request = {
        job: job("TARGET.Memory"),
        machines: machines(n),
        schedd: { Name: "s1" },
      };
      const a = decideMatch(pool, request, ctx).verdict;
      const b = decideMatch(null, request, ctx).verdict;
      expect(Object.keys(a)).toEqual(["job", "machines", "best", "log", "schedd"]);
      const spread = { ...a };
      expect(spread.machines).toHaveLength(n);
      expect(spread.machines).toBe(a.machines);
      expect(JSON.stringify(spread)).toBe(JSON.stringify(a));
      expect(a.log.filter((line) => line.includes(" Matched job="))).toHaveLength(
        a.machines.filter((m) => m.match).length,
      );
      // no closures per verdict: V8 gave each verdict with getters of its own a map of its own,
      // which kept every young verdict alive until the next full collection (wt/decide6)
      for (const key of ["machines", "log"]) {
        const da = Object.getOwnPropertyDescriptor(a, key) as PropertyDescriptor;
        const db = Object.getOwnPropertyDescriptor(b, key) as PropertyDescriptor;
        expect(da.enumerable).toBe(true);
        expect(da.get).toBeDefined();
        expect(da.get).toBe(db.get);
        expect(da.set).toBe(db.set);
      }
      b.machines = [];
      b.log = ["replaced"];
      expect(JSON.parse(JSON.stringify(b))).toMatchObject({ machines: [], log: ["replaced"] });
      expect(a.log).not.toEqual(["replaced"]);
    });

  // from 16,000 machines the columns are kept in chunks of 8,192 (match.ts LARGE_COLUMN, wt/decide12):
  // the same lines, log and best as the single plain columns give for the machines below it, the best
  // match (a machine with no Name, shown by its index) in the second chunk
  it("gives a large pool's machines the lines and log a smaller pool of the same ads gets", () => {
    const read = parseMatchRequest({
      job: job("TARGET.Memory"),
      machines: [
        ...machines(18),
        '[ Name = "the-last"; Memory = 4096; Requirements = false ]',
        "[ Memory = 65536; Cpus = 2; Requirements = true ]",
      ],
    });
    if (!read.ok) throw read.error;
    const ads = read.value.machines;
    const last = ads[18];
    const large = Array.from({ length: 16_000 }, (_, i) =>
      i === 15_999 ? last : i === 10_000 ? ads[19] : ads[i % 18],
    );
    for (const [rank, policy, best] of [
      ['real(\\"NaN\\")', pool, 'quote"d'],
      ["TARGET.Memory", null, 10_000],
    ] as const) {
      const j = parseMatchRequest({ job: job(rank), machines: [] });
      if (!j.ok) throw j.error;
      const big = decideParsedMatch(policy, { job: j.value.job, schedd: null, machines: large }, ctx).verdict;
      const small = decideParsedMatch(
        policy,
        { job: j.value.job, schedd: null, machines: large.slice(0, 15_999) },
        ctx,
      ).verdict;
      expect(big.machines).toHaveLength(16_000);
      expect(big.machines[15_999]).toMatchObject({ name: "the-last", match: false });
      expect(JSON.stringify(big.machines.slice(0, 15_999))).toBe(JSON.stringify(small.machines));
      expect(big.log.filter((line) => !line.includes("the-last"))).toEqual(small.log);
      expect(big.best).toBe(small.best);
      expect(big.best).toBe(best);
    }
  });

  it("follows the lists once they were built (read first, then written)", () => {
    const decision = decideMatch(pool, { job: job("TARGET.Memory"), machines: machines(9) }, ctx);
    const stringified = JSON.stringify(decision.verdict);
    expect(`{${(verdictMembersWriter(decision.verdict) as () => string)()}}`).toBe(stringified);
    expect(Object.keys(decision.verdict)).toEqual(["job", "machines", "best", "log"]);
    // a field replaced: JSON.stringify's text, its braces cut
    (decision.verdict as { best: unknown }).best = "elsewhere";
    expect((verdictMembersWriter(decision.verdict) as () => string)()).toBe(
      JSON.stringify(decision.verdict).slice(1, -1),
    );
  });

  it("writes JSON.stringify's text once a list was assigned, before or after it was read", () => {
    for (const readFirst of [false, true]) {
      const decision = decideMatch(pool, { job: job("TARGET.Memory"), machines: machines(9) }, ctx);
      const v = decision.verdict;
      if (readFirst) expect(v.log.length).toBeGreaterThan(0);
      v.log = ["replaced"];
      const members = (verdictMembersWriter(v) as () => string)();
      expect(members).toBe(JSON.stringify(v).slice(1, -1));
      expect(members).toContain('"log":["replaced"]');
    }
  });
});
