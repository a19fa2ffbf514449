/**
 * The placement policy as the bundle stores it (src/engines/placement/store.ts,
 * issue 24 item 9): columns that JSON.parse reads quickly, with the rules'
 * gates worked out at publish. Nothing is lost on the way, the stored gates
 * are the ones the loaded rules imply, the stored form's object count does
 * not grow with the rules, and data of older bundles still loads.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  compilePlacement,
  decidePlacement,
  loadPlacement,
  placementEngine,
} from "../../src/engines/placement/index.js";
import { admittedRules } from "../../src/engines/placement/decide.js";
import { filterGate, Side } from "../../src/engines/placement/filter.js";
import { placementData, storePlacement } from "../../src/engines/placement/store.js";
import { LazyChain } from "../../src/engines/placement/rule-chain.js";
import type {
  PlacementData,
  PlacementPolicy,
  Rule,
  RuleChain,
  RuleGates,
} from "../../src/engines/placement/types.js";
import { loadCases, REPO_ROOT } from "../support/cases.js";

/** Every policy the case files compile, the shipped one, and chains of thousands of rules of the shapes issue 24 names. */
function policies(): { name: string; source: string }[] {
  const out = [
    {
      name: "policies/placement.yaml",
      source: readFileSync(join(REPO_ROOT, "policies/placement.yaml"), "utf8"),
    },
  ];
  for (const c of loadCases("placement")) {
    const p = c.value.policy;
    if (p !== undefined) out.push({ name: c.name, source: typeof p === "string" ? p : JSON.stringify(p) });
  }
  out.push({ name: "hard shape ×2,000", source: chain(2_000, hardRule) });
  out.push({ name: "mixed shapes ×1,000", source: chain(1_000, mixedRule) });
  return out;
}

function hardRule(i: number): string {
  return `{name: user, create: true, filter: {type: allow, users: ["^.*-t${i}[a-z]+$"], groups: [g${i}, h${i}]}, parent: {name: fixed, value: users}}`;
}

/** Rules of every filter shape in turn, names repeating across rules so that the indexes list several rules per name. */
function mixedRule(i: number): string {
  const shapes = [
    `{name: user, create: true, filter: {type: allow, users: [u${i % 7}, v${i % 5}]}}`,
    `{name: user, create: true, filter: {type: allow, groups: [g${i % 9}, shared]}}`,
    `{name: user, create: true, filter: {type: deny, users: ["^d${i}"]}}`,
    `{name: tag, value: t${i % 3}, create: true, filter: {type: allow, groups: ["^gr${i % 4}-"]}}`,
    `{name: fixed, value: root.q${i % 11}, create: true, filter: {type: allow, users: ["(?i)^x${i % 6}y$"], groups: [g${i % 9}]}}`,
    `{name: provided, create: true, filter: {type: allow, users: ["^(a|b)${i}$"]}, parent: {name: user, parent: {name: fixed, value: root.p${i % 2}}}}`,
  ];
  return shapes[i % shapes.length];
}

function chain(n: number, rule: (i: number) => string): string {
  const rules = Array.from({ length: n }, (_, i) => `      - ${rule(i)}`);
  return [
    "partitions:",
    "  - name: default",
    "    placementrules:",
    ...rules,
    "      - {name: fixed, value: root.default}",
    "    queues:",
    "      - name: root",
    '        submitacl: " ops"',
    "        queues:",
    '          - {name: default, submitacl: "*"}',
    "          - {name: users, parent: true}",
    "",
  ].join("\n");
}

function compiled(source: string): PlacementData | null {
  const c = compilePlacement(source);
  return c.ok ? c.value : null;
}

/** The stored form as KV gives it back: through JSON. */
function stored(data: PlacementData): PlacementData {
  return JSON.parse(JSON.stringify(storePlacement(data))) as PlacementData;
}

/** Every rule of a chain, built. */
function rulesOf(chain: RuleChain): Rule[] {
  return Array.from({ length: chain.length }, (_, i) => chain.at(i));
}

/** How many objects and arrays a JSON value holds. */
function containers(v: unknown): number {
  if (v === null || typeof v !== "object") return 0;
  let n = 1;
  for (const x of Object.values(v)) n += containers(x);
  return n;
}

describe("the stored placement policy", () => {
  const all = policies()
    .map((p) => ({ ...p, data: compiled(p.source) }))
    .filter((p): p is { name: string; source: string; data: PlacementData } => p.data !== null);

  it("gives back the compiled data it was made from (every case-file policy, the shipped one, long chains)", () => {
    expect(all.length).toBeGreaterThan(100);
    for (const p of all) expect(placementData(stored(p.data)), p.name).toEqual(p.data);
  });

  it("stores the gates the loaded rules imply, and name indexes that list exactly the rules naming each name", () => {
    let indexed = 0;
    for (const p of all) {
      const policy: PlacementPolicy = loadPlacement(stored(p.data));
      for (const part of policy.partitions.values()) {
        const g = part.gates;
        const users = new Map<string, number[]>();
        const groups = new Map<string, number[]>();
        rulesOf(part.rules).forEach((r, i) => {
          const gate = filterGate(r.filter);
          const at = `${p.name}: rule ${i}`;
          expect(g.gated[i], at).toBe(gate === null ? 0 : 1);
          expect([g.userSide[i], g.groupSide[i]], at).toEqual(
            gate === null ? [0, 0] : [gate.user, gate.group],
          );
          expect([g.userLiteral[i], g.groupLiteral[i]], at).toEqual(
            gate === null ? ["", ""] : [gate.userLiteral, gate.groupLiteral],
          );
          const list = (to: Map<string, number[]>, name: string) =>
            to.set(name, [...(to.get(name) ?? []), i]);
          // an expression of a few whole texts is indexed by those texts
          if (gate?.user === Side.Names)
            for (const u of r.filter.userExp?.exact ?? r.filter.users) list(users, u);
          if (gate?.group === Side.Names)
            for (const x of r.filter.groupExp?.exact ?? r.filter.groups) list(groups, x);
        });
        expect(g.users.size, p.name).toBe(users.size);
        expect(g.groups.size, p.name).toBe(groups.size);
        for (const [name, rules] of users)
          expect(g.users.get(name), `${p.name}: user ${name}`).toEqual(rules);
        for (const [name, rules] of groups)
          expect(g.groups.get(name), `${p.name}: group ${name}`).toEqual(rules);
        for (const missing of ["", "nobody", "zzzz", "\u0000", "g"]) {
          if (!users.has(missing)) expect(g.users.get(missing)).toBeUndefined();
          if (!groups.has(missing)) expect(g.groups.get(missing)).toBeUndefined();
        }
        indexed += users.size + groups.size;
      }
    }
    expect(indexed).toBeGreaterThan(4_000);
  });

  it("decides as the explained walk over every rule does, for names the chains list and names they do not", () => {
    const mixed = all.find((p) => p.name === "mixed shapes ×1,000")!;
    const policy = loadPlacement(stored(mixed.data));
    const users = ["carol", "u3", "v4", "d12", "d1200", "X5Y", "x5y", "a11", "b17", "alice-t9abc", "ops"];
    const groupSets = [[], ["shared"], ["g4", "ops"], ["gr2-x"], ["gr9-x", "g8"], ["ops"]];
    const placed = new Set<string | null>();
    for (const user of users)
      for (const groups of groupSets) {
        const request = { user, groups, tags: { t0: "a", t1: "b", t2: "c" }, queue: "root.given" };
        const fast = decidePlacement(policy, request, { explain: false }).verdict;
        expect(fast, JSON.stringify(request)).toEqual(
          decidePlacement(policy, request, { explain: true }).verdict,
        );
        placed.add(fast.queue);
      }
    // the chain is exercised: many rules place, not only the fallback
    expect(placed.size).toBeGreaterThan(8);
  });

  it("finds through the indexes exactly the gated rules whose gate admits the application, and reads every gate for a bundle stored without the literal order", () => {
    /** The rules a walk over every gate lets through (decide.ts, mayAdmit), ascending. */
    function walked(g: RuleGates, user: string, groups: string[]): number[] {
      const may = (side: number, literal: string, text: string) =>
        side === Side.Prefix ? text.startsWith(literal) : side === Side.Contains && text.includes(literal);
      const out: number[] = [];
      for (let i = 0; i < g.gated.length; i++) {
        if (g.gated[i] !== 1) continue;
        const byUser =
          g.userSide[i] === Side.Names
            ? (g.users.get(user) ?? []).includes(i)
            : may(g.userSide[i], g.userLiteral[i], user);
        const byGroup = groups.some((x) =>
          g.groupSide[i] === Side.Names
            ? (g.groups.get(x) ?? []).includes(i)
            : may(g.groupSide[i], g.groupLiteral[i], x),
        );
        if (byUser || byGroup) out.push(i);
      }
      return out;
    }
    const requests: [string, string[]][] = [
      ["carol", ["staff"]],
      ["ann-t17x", ["g4"]],
      // literals that overlap and repeat in one text, and at its start
      ["-t1-t19-t1999q-t1", ["h1999", "g4", "g4"]],
      ["u3", ["gr2-x", "shared", "g8"]],
      ["d12", ["gr9-x", "xgr1-"]],
      ["X5Y", []],
      ["a11", ["ops"]],
      ["", [""]],
    ];
    let found = 0;
    let indexed = 0;
    for (const name of ["hard shape ×2,000", "mixed shapes ×1,000"]) {
      const data = all.find((p) => p.name === name)!.data;
      const kept = JSON.parse(JSON.stringify(storePlacement(data))) as {
        partitions: { gates: Record<string, unknown> }[];
      };
      const policy = loadPlacement(kept as never);
      const g = policy.partitions.get("default")!.gates;
      // a bundle stored before the order was kept
      for (const key of ["userByLiteral", "userLengths", "groupByLiteral", "groupLengths"])
        delete kept.partitions[0].gates[key];
      const older = loadPlacement(kept as never);
      expect(older.partitions.get("default")!.gates.open).toBeNull();
      for (const [user, groups] of requests) {
        const at = `${name}: ${user} ${JSON.stringify(groups)}`;
        // null when the text's pieces would cost more searches than reading every gate
        const hits = admittedRules(g, user, groups);
        if (hits !== null) {
          expect(hits, at).toEqual(walked(g, user, groups));
          indexed++;
          found += hits.length;
        }
        const request = { user, groups, tags: { t0: "a" }, queue: "root.given" };
        const verdict = decidePlacement(policy, request, { explain: false }).verdict;
        expect(verdict, at).toEqual(decidePlacement(policy, request, { explain: true }).verdict);
        expect(decidePlacement(older, request, { explain: false }).verdict, at).toEqual(verdict);
      }
    }
    expect(indexed).toBeGreaterThanOrEqual(14);
    expect(found).toBeGreaterThan(40);
    // a text long enough that reading every gate is cheaper than its pieces' searches
    const hard = loadPlacement(stored(all.find((p) => p.name === "hard shape ×2,000")!.data));
    expect(admittedRules(hard.partitions.get("default")!.gates, "x".repeat(2_000), [])).toBeNull();
  });

  it("holds the same number of objects and arrays whatever the number of rules (JSON.parse builds no object per rule)", () => {
    const small = placementEngine.compile(chain(20, hardRule));
    const large = placementEngine.compile(chain(2_000, hardRule));
    if (!small.ok || !large.ok) throw new Error("the chains compile");
    expect(containers(large.value)).toBe(containers(small.value));
    expect(containers(large.value)).toBeLessThan(60);
  });

  it("builds no rule when loading, and only the rules a decision's gates let through", () => {
    const data = compiled(chain(2_000, hardRule))!;
    const chainOf = (p: PlacementPolicy) => p.partitions.get("default")!.rules as LazyChain;
    const policy = loadPlacement(stored(data));
    expect(chainOf(policy).built).toBe(0);
    // no gate admits carol: only the fallback rule is built
    expect(
      decidePlacement(policy, { user: "carol", groups: ["staff"] }, { explain: false }).verdict.rule,
    ).toEqual({ index: 2000, name: "fixed" });
    expect(chainOf(policy).built).toBe(1);
    // the literals "-t1" and "-t17" and rule 4's group let rules 1, 17 and 4 through; their shared parent is built once
    decidePlacement(policy, { user: "ann-t17x", groups: ["g4"] }, { explain: false });
    expect(chainOf(policy).built).toBe(5);
    // the explained walk reads every rule
    decidePlacement(policy, { user: "carol" }, { explain: true });
    expect(chainOf(policy).built).toBe(2_002); // 2,000 rules, the fallback, the parent
  });

  it("loads a parent that every rule shares once, and an expression that several rules share as one matcher", () => {
    const source = chain(
      300,
      (i) =>
        `{name: user, create: true, filter: {type: allow, users: ["^.*-t${i % 3}[a-z]+$"]}, parent: {name: fixed, value: users}}`,
    );
    const policy = placementEngine.load(JSON.parse(JSON.stringify(placementEngine.compile(source))).value);
    const rules = rulesOf(policy.partitions.get("default")!.rules);
    expect(new Set(rules.slice(0, 300).map((r) => r.parent)).size).toBe(1);
    expect(new Set(rules.slice(0, 300).map((r) => r.filter.userExp)).size).toBe(3);
    expect(new Set(rules.slice(0, 300).map((r) => r.filter)).size).toBe(3);
  });

  it("loads the plain data of a bundle made before this form, old expression translations included", () => {
    const data = compiled(
      chain(3, (i) => `{name: user, create: true, filter: {type: allow, users: ["(?i)^team${i}-[a-z]+$"]}}`),
    )!;
    // a bundle of the JavaScript translation days: `(?i)` as flags, no literals stored
    const old = JSON.parse(JSON.stringify(data)) as PlacementData;
    for (const r of old.partitions[0].rules)
      if (r.filter.userExp !== null)
        r.filter.userExp = { source: r.filter.userExp.source.replace("(?i)", ""), flags: "iu" } as never;
    const policy = loadPlacement(old);
    expect(
      decidePlacement(policy, { user: "TEAM1-Ann", groups: ["ops"] }, { explain: false }).verdict,
    ).toMatchObject({ queue: "root.team1-ann", rule: { index: 1 } });
    expect(placementData(storePlacement(old))).toEqual(data);
  });
});
