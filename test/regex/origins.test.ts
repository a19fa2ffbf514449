/**
 * Issue 12's catastrophic patterns through every engine that takes a regex from a
 * policy or a request, on 30 and on 10,000 characters: each answers, with the
 * right verdict. (Their cost per decision is printed by `npm run bench`, section regex.)
 */
import { describe, expect, it } from "vitest";
import { compileFilters, decideJobfilter, loadFilters, type Job } from "../../src/engines/jobfilter/index.js";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { decideLimits, limitsEngine, type LimitsRequest } from "../../src/engines/limits/index.js";
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { compileJq } from "../../src/jq/index.js";
import { contextOf } from "../limits/harness.js";

const SIZES = [30, 10_000];

function placementWith(pattern: string) {
  const text = [
    "partitions:",
    "  - placementrules:",
    `      - {name: fixed, value: root.hit, filter: {users: [${JSON.stringify(pattern)}]}}`,
    "      - {name: fixed, value: root.miss}",
    '    queues: [{name: root, submitacl: "*", queues: [{name: hit}, {name: miss}]}]',
  ].join("\n");
  const c = compilePlacement(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return loadPlacement(c.value);
}

function limitsWith(pattern: string) {
  const text = JSON.stringify({
    schema: 1,
    identifiers: [
      {
        name: "to-us",
        description: "h",
        type: "hint",
        data: { hint: "server", match: { style: "regex", match: pattern } },
      },
    ],
    classifiers: [{ name: "c", description: "c", identifiers: ["to-us"] }],
    limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
    applications: [{ classifier: "c", apply: [{ require: "all", limits: ["ok"] }] }],
  });
  const c = limitsEngine.compile(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return limitsEngine.load(JSON.parse(JSON.stringify(c.value)));
}

function jobfilterWith(pattern: string) {
  const c = compileFilters(
    JSON.stringify([{ action: "REJECT", predicates: [["reason", ["=~", "reason", pattern]]] }]),
  );
  if (!c.ok) throw new Error(JSON.stringify(c.error));
  return loadFilters(c.value);
}

const ROWS: Array<[string, string, (n: number) => string, boolean]> = [
  ["(a|a)*b", "alternation under a star", (n) => "a".repeat(n), false],
  ["(a+)+$", "nested quantifiers", (n) => "a".repeat(n), true],
  ["(a+)+b", "nested quantifiers, no match", (n) => "a".repeat(n), false],
];

describe("catastrophic patterns through every origin", () => {
  for (const [pattern, what, input, matches] of ROWS) {
    for (const n of SIZES) {
      const s = input(n);
      it(`placement filter (Go): ${pattern} (${what}) on ${n}`, () => {
        const v = decidePlacement(placementWith(pattern), { user: s }, { explain: false }).verdict;
        expect(v.queue).toBe(matches ? "root.hit" : "root.miss");
      });
      it(`limits hint (Python): ${pattern} on ${n}`, async () => {
        const d = await decideLimits(
          limitsWith(pattern),
          {
            requester: "198.51.100.7",
            server: s,
            task: { test: { type: "rtt", spec: {} } },
          } as unknown as LimitsRequest,
          contextOf(undefined),
        );
        expect((d.verdict as { identifiers: string[] }).identifiers).toEqual(matches ? ["to-us"] : []);
      });
      it(`jq test() (Oniguruma): ${pattern} on ${n}`, () => {
        const p = compileJq(`test(${JSON.stringify(pattern)})`);
        if (!p.ok) throw new Error(p.error[0].message);
        expect(p.value.run(s).outputs).toEqual([matches]);
      });
      it(`ClassAd regexp() (PCRE): ${pattern} on ${n}`, () => {
        const r = evaluateRequest(
          { expr: `regexp(${JSON.stringify(pattern)}, ${JSON.stringify(s)})` },
          { now: 0, random: () => 0 },
        );
        expect(r).toMatchObject({ type: "boolean", value: String(matches) });
      });
      it(`jobfilter reason =~ (PCRE): ${pattern} on ${n}`, () => {
        const job = {
          id: 1,
          opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", reason: [["gnt:user", s, 1]] }],
        } as unknown as Job;
        const v = decideJobfilter(
          jobfilterWith(pattern),
          { job, queue: { running: [], queued: [] } },
          { explain: false },
        ).verdict as { action?: string };
        expect(v.action === "REJECT").toBe(matches);
      });
    }
  }
});

describe("regex work is charged to the decision's budget", () => {
  it("a ClassAd regexp() whose match spends the budget is ERROR", async () => {
    const { Budget } = await import("../../src/engines/common/budget.js");
    const s = "ab".repeat(100_000) + "c";
    const expr = `regexp("^(a|b|ab)*c", "${s}")`;
    const roomy = new Budget(Number.POSITIVE_INFINITY).run(() =>
      evaluateRequest({ expr }, { now: 0, random: () => 0 }),
    );
    expect(roomy).toMatchObject({ type: "boolean", value: "true" });
    const tight = new Budget(5_000).run(() => evaluateRequest({ expr }, { now: 0, random: () => 0 }));
    expect(tight).toMatchObject({ type: "error" });
  });
});
