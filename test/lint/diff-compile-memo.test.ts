// The diff's compile memo (src/engines/common/regex/memo.ts, issue 24 "Bounded everywhere": the
// 100 KB hard-shape placement diff spent most of its CPU compiling the same expressions again in the
// witness search and in each side's decisions): each distinct expression is planned once per diff,
// every compile is still charged what a first compile is, and the report is the same as without it.
import { describe, expect, it } from "vitest";
import { diffPolicies, type DiffOptions } from "../../src/bundle/diff.js";
import { Budget, BudgetExceeded } from "../../src/engines/common/budget.js";
import {
  compileLinear,
  compileVmTester,
  regexPlansMade,
  setRegexSpend,
  type Origin,
} from "../../src/engines/common/regex/index.js";
import { CompileMemo, withCompileMemo } from "../../src/engines/common/regex/memo.js";
import { regexWitnesses } from "../../src/engines/common/diff-requests.js";
import { spend } from "../../src/engines/common/budget.js";
import { finish, type Steps } from "../../src/engines/common/slices.js";
import { hardRule, placementWithRules } from "../../bench/fixtures.js";

/** A small seeded generator (mulberry32), so a failing case can be run again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Rules of varied hard shapes: expressions without a literal prefix (the Pike VM and its DFA),
 * deterministic unanchored ones (RegExp on short names, the Pike VM built at the first long one),
 * anchored literal ones (RegExp alone), a few whole texts, group expressions, parents.
 */
function variedRule(rnd: () => number, i: number): string {
  const k = Math.floor(rnd() * 40);
  const user = [
    `^.*-t${k}[a-z]+$`,
    `t${k}[a-z]+`,
    `^u${k}[0-9]*$`,
    `^(u${k}|v${k})$`,
    `^(.*)x${k}(y|z)+$`,
    `[a-z]+-${k}.*q`,
  ][Math.floor(rnd() * 6)];
  const groups = rnd() < 0.3 ? `["^g${k}.*$"]` : `[g${k}, h${i}]`;
  const parent = rnd() < 0.5 ? ", parent: {name: fixed, value: users}" : "";
  const type = rnd() < 0.2 ? "deny" : "allow";
  return `{name: user, create: true, filter: {type: ${type}, users: ["${user}"], groups: ${groups}}${parent}}`;
}

/** Two policies that share most rules: `n` varied rules each, a few changed on the new side. */
function variedPair(seed: number, n: number): [string, string] {
  const rnd = random(seed);
  const rules = Array.from({ length: n }, (_, i) => variedRule(rnd, i));
  const changed = rules.map((r, i) => (rnd() < 0.1 ? variedRule(rnd, i + n) : r));
  return [placementWithRules(n, (i) => rules[i]), placementWithRules(n, (i) => changed[i])];
}

/** Captured requests: names the expressions match and miss, and names past RegExp's short-input bound. */
function captured(seed: number): unknown[] {
  const rnd = random(seed ^ 0x9e3779b9);
  const out: unknown[] = [];
  for (let i = 0; i < 12; i++) {
    const k = Math.floor(rnd() * 40);
    const long = "a".repeat(200 + Math.floor(rnd() * 200));
    out.push(
      { partition: "default", user: `x-t${k}abc`, groups: [`g${k}`] },
      { partition: "default", user: `${long}t${k}${long}`, groups: [`g${k}${long}`] },
      { partition: "default", user: `u${k}`, groups: [] },
    );
  }
  return out;
}

describe("a diff plans each distinct expression at most once", () => {
  it("the 20 KB hard-shape pair: the witness search plans none, both sides' decisions share theirs", () => {
    const [a, b] = [placementWithRules(150, hardRule), placementWithRules(150, (i) => hardRule(i + 1))];
    const distinct = new Set([...a.matchAll(/"(\^[^"]*)"/g), ...b.matchAll(/"(\^[^"]*)"/g)].map((m) => m[1]))
      .size;
    const before = regexPlansMade();
    const shared = diffPolicies("placement", a, b);
    const planned = regexPlansMade() - before;
    // the witness search tests its candidates on a Pike VM of its own (no plan); the decisions plan
    // what their gates let through, once per diff (before the memo, once per side and decision)
    expect(planned).toBeLessThan(distinct);
    const unshared0 = regexPlansMade();
    const unshared = diffPolicies("placement", a, b, { compileMemoBytes: 0 });
    expect(regexPlansMade() - unshared0).toBeGreaterThan(planned);
    expect(shared).toEqual(unshared);
  }, 120_000);
  it("the witness search's matcher answers as the decisions' compile on every candidate", () => {
    const rnd = random(7);
    const extra = [
      "^(a|b)*c$",
      "x{2,4}y?",
      "^[^-]+-(dev|prod)[0-9]{1,3}$",
      "(?i)^Ab.*$",
      "\\bword\\b",
      "^$",
      "a|",
      "(a{1000}){60}",
    ];
    const sources = [
      ...extra,
      ...Array.from({ length: 300 }, (_, n) => variedRule(rnd, n).match(/users: \["([^"]*)"\]/)![1]),
    ];
    for (const source of sources) {
      const vm = compileVmTester(source, "re2");
      const lin = compileLinear(source, "re2");
      expect(vm !== null).toBe(lin.ok);
      if (vm === null || !lin.ok) continue;
      let tested = 0;
      regexWitnesses(
        source,
        (s) => {
          for (const t of [s, `${s}-`, `x${s}`, s.slice(1)]) expect(vm(t)).toBe(lin.value.test(t));
          tested++;
          return vm(s);
        },
        "zq",
      );
      expect(tested).toBeGreaterThan(0);
    }
  });
});

describe("the memo does not change what a diff reports", () => {
  const cases: Array<[string, DiffOptions]> = [
    ["default bounds", {}],
    ["captured requests, small decision budgets (compiles stopped part-way)", { decisionBudget: 3_000 }],
    ["a work bound that stops it", { work: 150_000, decisionBudget: 20_000 }],
  ];
  for (let seed = 1; seed <= 4; seed++) {
    for (const [name, base] of cases) {
      it(`varied pair ${seed}, ${name}`, () => {
        const [a, b] = variedPair(seed, 60 + 30 * seed);
        const options: DiffOptions = {
          ...base,
          requests: base.decisionBudget === 3_000 ? captured(seed) : undefined,
        };
        const shared = diffPolicies("placement", a, b, options);
        expect(shared.ok).toBe(true);
        expect(shared).toEqual(diffPolicies("placement", a, b, { ...options, compileMemoBytes: 0 }));
      }, 120_000);
    }
  }
});

describe("a compile that reuses a plan is charged as a first compile", () => {
  const patterns: Array<[string, Origin]> = [
    ["^.*-t5[a-z]+$", "re2"],
    ["t5[a-z]+", "re2"],
    ["^u5[0-9]*$", "re2"],
    [".*foo(bar|baz)+.*", "pcre"],
    ["(a{1000}){49}", "pcre"],
    ["(a{1100}){49}", "pcre"],
    ["(?<=ab)c(?=d)", "pcre"],
    ["(unclosed", "re2"],
    ["x*(y|z)*w", "python"],
  ];

  /** The units each compile of `pattern` reports, in order, with `hits` compiles of it reusing the first one's plan. */
  function charges(pattern: string, origin: Origin, memo: CompileMemo | null): number[][] {
    const runs: number[][] = [];
    const compileOnce = (): void => {
      const units: number[] = [];
      setRegexSpend((u) => units.push(u));
      try {
        compileLinear(pattern, origin, {}, true);
      } finally {
        setRegexSpend(spend);
      }
      runs.push(units);
    };
    const steps = function* (): Steps<void> {
      compileLinear(pattern, origin, {}, false);
      compileOnce();
      yield;
      compileOnce();
    };
    finish(memo === null ? steps() : withCompileMemo(steps(), memo));
    return runs;
  }

  for (const [pattern, origin] of patterns) {
    it(`${origin} ${pattern}`, () => {
      const memo = new CompileMemo();
      const reused = charges(pattern, origin, memo);
      expect(memo.hits).toBe(2);
      const fresh = charges(pattern, origin, null);
      expect(reused).toEqual(fresh);
      // and the two compiles answer alike
      const texts = [
        "",
        "x-t5abc",
        "t5qq",
        "u5",
        "foobarbaz",
        "a".repeat(1000),
        "abcd",
        "xyzw",
        "t5" + "b".repeat(300),
      ];
      const plain = compileLinear(pattern, origin);
      const memoised = finish(
        withCompileMemo(
          (function* () {
            return compileLinear(pattern, origin, {}, true);
          })(),
          memo,
        ),
      );
      expect(memoised.ok).toBe(plain.ok);
      if (plain.ok && memoised.ok)
        for (const s of texts) {
          expect(memoised.value.test(s)).toBe(plain.value.test(s));
          expect(memoised.value.exec(s, 0)).toEqual(plain.value.exec(s, 0));
        }
      else expect(memoised).toEqual(plain);
    });
  }

  it("a reused plan stops a compile at the same unit when the budget runs out", () => {
    const memo = new CompileMemo();
    const used: number[] = [];
    for (const m of [null, memo, memo]) {
      const b = new Budget(20_000);
      const run = function* (): Steps<void> {
        if (m !== null) compileLinear("(a{1000}){48}", "pcre");
        expect(() => b.run(() => compileLinear("(a{1000}){48}", "pcre", {}, true))).toThrow(BudgetExceeded);
      };
      finish(m === null ? run() : withCompileMemo(run(), m));
      used.push(b.used);
    }
    expect(memo.hits).toBeGreaterThan(0);
    expect(new Set(used).size).toBe(1);
  });
});
