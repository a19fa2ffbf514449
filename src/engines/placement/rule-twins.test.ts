// Rules that validate as an earlier rule of their shape does (quick-rule.ts RULE_TWINS) take
// that rule's verdict and are built from its data: each policy here, made of rules of a few
// shapes filled with scalars that make every check answer both ways, must compile exactly as
// when every mapping is read in place (no shapes, so no twins): the same rules, or the same
// errors at the same places, in the same order.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finish } from "../common/slices.js";
import { compileWithPlacesSteps } from "./compile.js";
import { parseConfig } from "./parse.js";
import { RULE_TWINS } from "./quick-rule.js";
import { hardRule, placementWithRules } from "../../../bench/fixtures.js";

/** Rule names: valid kinds in any case, a kind the build refuses, recovery, a name validation refuses, a null word. */
const NAMES = ["user", "fixed", "Fixed", "tag", "provided", "bogus", "recovery", '"9x"', "null"];
/** Values: queues that exist (a parent, a leaf) or not, qualified or not, names the build refuses, a null word. */
const VALUES = ["users", "root.users", "root.q", "root", "q", "rootx", "new.sub", '"bad name"', "null"];
const TYPES = ["allow", "deny", "Deny", "bogus", "null"];
/** One users entry: expressions of one shape, a bad one, names (one ending in `$`), a name validation refuses. */
const USERS = [
  "^.*-t1[a-z]+$",
  "^.*-t2[a-z]+$",
  "^.*-t23[a-z]+$",
  "^.*-t([a-z]+$",
  "^(u1|v1)$",
  "bob",
  "bob$",
  "b.c",
  "9bad",
  "a b",
];
/** One groups entry, as USERS (a group name may not hold `/` or `$`). */
const GROUPS = ["^g1x+$", "^g2x+$", "^g1(+$", "dev", "x/y", "g$", "9g"];
/** Entries of a list of several: names, repeats, names the patterns refuse. */
const ENTRIES = ["g1", "g2", "h1", "9g", "a.b", "x/y"];

const pick = (pool: string[]) => fc.constantFrom(...pool);
const quoted = (s: string) => `"${s}"`;

const rule = fc.oneof(
  fc
    .tuple(pick(NAMES), pick(TYPES), pick(USERS), pick(ENTRIES), pick(ENTRIES), pick(NAMES), pick(VALUES))
    .map(
      ([name, type, user, g1, g2, pname, pvalue]) =>
        `{name: ${name}, create: true, filter: {type: ${type}, users: [${quoted(user)}], groups: [${g1}, ${g2}]}, parent: {name: ${pname}, value: ${pvalue}}}`,
    ),
  fc
    .tuple(pick(NAMES), pick(VALUES), pick(USERS), fc.boolean())
    .map(
      ([name, value, user, create]) =>
        `{name: ${name}, create: ${create}, value: ${value}, filter: {users: [${quoted(user)}]}}`,
    ),
  fc
    .tuple(pick(NAMES), pick(TYPES), pick(GROUPS), pick(VALUES), pick(VALUES))
    .map(
      ([name, type, group, value, pvalue]) =>
        `{name: ${name}, value: ${value}, filter: {type: ${type}, groups: [${quoted(group)}]}, parent: {name: fixed, value: ${pvalue}}}`,
    ),
  fc
    .tuple(pick(NAMES), pick(ENTRIES), pick(ENTRIES), pick(ENTRIES), pick(VALUES))
    .map(
      ([name, a, b, c, value]) =>
        `{name: ${name}, value: ${value}, filter: {users: [${a}, ${b}, ${c}], groups: [${a}]}}`,
    ),
);

function policyOf(rules: string[]): string {
  return [
    "partitions:",
    "  - name: default",
    "    placementrules:",
    ...rules.map((r) => `      - ${r}`),
    "    queues:",
    "      - name: root",
    "        queues:",
    "          - {name: users, parent: true}",
    "          - {name: q}",
    "",
  ].join("\n");
}

/** What a compile gives, without the function that places errors. */
function compiled(source: string, lazy: boolean): unknown {
  const r = finish(compileWithPlacesSteps(source, lazy));
  return r.ok ? { data: r.value.data, valid: r.value.valid } : r.error;
}

/** How many rules of a policy are twins. */
function twinCount(source: string): number {
  const parsed = parseConfig(source);
  if (!parsed.ok) return 0;
  const rules = parsed.value.config.partitions?.[0]?.placementrules ?? [];
  return (RULE_TWINS.get(rules) ?? []).filter((t) => t >= 0).length;
}

describe("rules that validate as an earlier rule of their shape (quick-rule.ts RULE_TWINS)", () => {
  it("compile as when every rule is checked and built alone", () => {
    let twins = 0;
    let clean = 0;
    fc.assert(
      fc.property(
        // repeats of a few rules, so that a shape's rules often pass or fail together
        fc.array(rule, { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(3), { minLength: 2, maxLength: 14 }),
        (pool, picks) => {
          const source = policyOf(picks.map((k) => pool[k % pool.length]));
          const lazy = compiled(source, true);
          expect(lazy).toEqual(compiled(source, false));
          twins += twinCount(source);
          if (!Array.isArray(lazy)) clean++;
        },
      ),
      { numRuns: 200, seed: 3104 },
    );
    // not vacuous: many rules were twins, and some policies compiled
    expect(twins).toBeGreaterThan(300);
    expect(clean).toBeGreaterThan(10);
  });

  it("compile policies of valid rules of one shape, some twins, as alone", () => {
    const rules = [
      '{name: user, create: true, filter: {type: allow, users: ["^.*-t1[a-z]+$"], groups: [g1, h1]}, parent: {name: fixed, value: users}}',
      '{name: user, create: true, filter: {type: allow, users: ["^.*-t2[a-z]+$"], groups: [g2, g2]}, parent: {name: fixed, value: users}}',
      '{name: user, create: true, filter: {type: allow, users: ["bob"], groups: [9g, h3]}, parent: {name: fixed, value: users}}',
      '{name: user, create: true, filter: {type: deny, users: ["^.*-t4[a-z]+$"], groups: [g4, h4]}, parent: {name: fixed, value: users}}',
      '{name: user, create: true, filter: {type: allow, users: ["^.*-t5[a-z]+$"], groups: [g5, h5]}, parent: {name: fixed, value: q}}',
      '{name: user, create: true, filter: {type: allow, users: ["b.c"], groups: [g6, h6]}, parent: {name: fixed, value: users}}',
    ];
    const source = policyOf(rules);
    expect(compiled(source, true)).toEqual(compiled(source, false));
    // the first rule's twins: the other expressions and names, not the other type or value
    const parsed = parseConfig(source);
    if (!parsed.ok) throw new Error("parse");
    expect(RULE_TWINS.get(parsed.value.config.partitions![0].placementrules)).toEqual([-1, 0, 0, -1, -1, 0]);
  });

  it("finds every rule of the hard file but the first a twin of it", () => {
    const parsed = parseConfig(placementWithRules(200, hardRule, ["{name: users, parent: true}"]));
    if (!parsed.ok) throw new Error("parse");
    const twins = RULE_TWINS.get(parsed.value.config.partitions![0].placementrules);
    expect(twins).toEqual([-1, ...Array<number>(199).fill(0)]);
  });
});
