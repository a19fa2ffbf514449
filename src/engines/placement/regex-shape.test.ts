import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { SEEDED_MEMOS } from "./filter.js";
import { parseConfig } from "./parse.js";
import { hardRule, placementWithRules } from "../../../bench/fixtures.js";

/** Each family: a first expression, then expressions written in the same rule shape that an expression shape must or must not take. */
const FAMILIES: { users?: boolean; exprs: string[] }[] = [
  {
    exprs: [
      "^.*-t5[a-z]+$",
      "^.*-t6[a-z]+$",
      "^.*-tx[a-z]+$",
      "^.*-t55[a-z]+$",
      "^.*-t.[a-z]+$",
      "^.*-t*[a-z]+$",
      "^.*-t([a-z]+$",
      "^.*-t{[a-z]+$",
      "^.*-t|[a-z]+$",
      "^.*-t5[a-z]+$",
      "^.*-t7[a-z]+",
      "^.*-t8[a-z]+$$",
    ],
  },
  { exprs: ["^ab*c$", "^xb*c$", "^a**c$", "^ab*c*", "^ab+c$", "^a_*c$", "^ab*?$"] },
  { exprs: ["^ab$c", "^xy$z", "^x.$z", "^xy^z"] },
  { exprs: ["^[a-c]x$", "^[a-d]x$", "^[c-a]x$", "^[a-c]y$", "^[a-c]*$"] },
  { exprs: ["^(u1|v1)$", "^(u2|v2)$", "^(u2|v2$"] },
  { exprs: ["abc$", "abd$", "a.c$", "a(c$", "ab$c"] },
  { exprs: ["x[a-z]5y", "x[a-z]6(", "x[a-z]6z", "x[a-z]66"] },
  { users: false, exprs: ["^g1x+$", "^g2x+$", "^g1x?$", "^g1(+$", "^g1x+"] },
];

function rule(expr: string, users: boolean): string {
  return users
    ? `{name: user, create: true, filter: {type: allow, users: ["${expr}"]}, parent: {name: fixed, value: users}}`
    : `{name: user, filter: {type: allow, groups: ["${expr}"]}}`;
}

describe("expressions read once per shape (regex-shape.ts)", () => {
  it("gives each rule of a shared rule shape the verdict, errors and facts it gets alone", () => {
    for (const { users = true, exprs } of FAMILIES) {
      const whole = compilePlacement(placementWithRules(exprs.length, (i) => rule(exprs[i], users)));
      const alone = exprs.map((e) => compilePlacement(placementWithRules(1, () => rule(e, users))));
      const errors = alone.flatMap((a, i) =>
        a.ok ? [] : a.error.map((e) => ({ ...e, at: e.at.replace(/^4:/, `${4 + i}:`) })),
      );
      if (errors.length > 0) {
        expect(whole.ok, exprs.join(" ")).toBe(false);
        const order = (l: { at: string }[]) =>
          [...l].sort((a, b) => Number(a.at.split(":")[0]) - Number(b.at.split(":")[0]));
        if (!whole.ok) expect(order(whole.error)).toEqual(order(errors));
        continue;
      }
      expect(whole.ok, exprs.join(" ")).toBe(true);
      if (!whole.ok) continue;
      const rules = whole.value.partitions[0].rules;
      alone.forEach((a, i) => {
        if (!a.ok) return;
        expect(rules[i], exprs[i]).toEqual(a.value.partitions[0].rules[0]);
      });
    }
  });

  it("gives the shapes' answers one by one where every expression is valid", () => {
    // the families above mostly fail as a whole (one bad expression): here each valid variant beside its family's first
    for (const { users = true, exprs } of FAMILIES) {
      const valid = exprs.filter((e) => compilePlacement(placementWithRules(1, () => rule(e, users))).ok);
      const twice = valid.flatMap((e) => [e, e.replace(/[0-9]/g, (d) => String((Number(d) + 1) % 10))]);
      const policy = [exprs[0], ...valid, ...twice];
      const whole = compilePlacement(placementWithRules(policy.length, (i) => rule(policy[i], users)));
      const alone = policy.map((e) => compilePlacement(placementWithRules(1, () => rule(e, users))));
      if (alone.some((a) => !a.ok)) {
        expect(whole.ok).toBe(false);
        continue;
      }
      expect(whole.ok, policy.join(" ")).toBe(true);
      if (!whole.ok) continue;
      alone.forEach((a, i) => {
        if (a.ok)
          expect(whole.value.partitions[0].rules[i], policy[i]).toEqual(a.value.partitions[0].rules[0]);
      });
    }
  });

  it("reads the hard shape's expressions once per length of what varies", () => {
    const parsed = parseConfig(placementWithRules(200, hardRule));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    // 200 rules: the first decoded alone; of the others, every expression but the first of each length (t1…, t10…, t100…)
    const memo = SEEDED_MEMOS.get(parsed.value.config);
    expect(memo?.size).toBe(199);
    expect(memo?.get("^.*-t123[a-z]+$")).toEqual({ ok: true, value: { prefix: "", required: "-t123" } });
  });
});
