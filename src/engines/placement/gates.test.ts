import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { decidePlacement } from "./decide.js";
import { filterGate, Side } from "./filter.js";
import { loadPlacement } from "./load.js";

function policyOf(source: string) {
  const c = compilePlacement(source);
  if (!c.ok) throw new Error(JSON.stringify(c.error));
  return loadPlacement(c.value);
}

/** Rules of every filter shape the gates must get right, in one chain before a fixed fallback. */
const policy = policyOf(`
partitions:
  - placementrules:
      - {name: user, create: true, filter: {type: allow, users: ["^team1-[a-z]+$"]}}
      - {name: user, create: true, filter: {type: deny, users: ["^team2-[a-z]+$"]}}
      - {name: user, create: true, filter: {type: allow, users: ["^team3-[a-z]+$"], groups: [ops]}}
      - {name: user, create: true, filter: {type: allow, users: [alice, bob]}}
      - {name: user, create: true, filter: {type: allow, users: ["(?i)^team5-[a-z]+$"]}}
      - {name: user, create: true, filter: {type: allow, users: [".*-x$"]}}
      - {name: fixed, value: root.fallback, filter: {type: allow, users: ["^svc\\\\x00z"]}}
      - {name: provided, create: true, filter: {type: allow, users: ["^team8-"]}}
      - {name: user, create: true, filter: {type: allow, users: ["^.*-t9[a-z]+$"], groups: [g9, h9]}, parent: {name: fixed, value: users}}
      - {name: user, create: true, filter: {type: allow, groups: ["^dev-.*"]}}
      - {name: user, create: true, filter: {type: allow, users: [x, y], groups: [ops, "bad group"]}}
      - {name: user, create: true, filter: {type: allow, users: ["bad user", "also bad"]}}
      - {name: user, create: true, filter: {type: allow, users: ["^.*$"], groups: [ops]}}
      - {name: fixed, value: root.default}
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: default, submitacl: "*"}, {name: fallback, submitacl: "*"}, {name: users, parent: true}]
`);

const partition = policy.partitions.get("default");

describe("placement rule gates", () => {
  it("gates the allow filters whose user and group sides each need a name or a literal", () => {
    const chain = partition!.rules;
    const rules = Array.from({ length: chain.length }, (_, i) => chain.at(i));
    const gate = (user: number, userLiteral: string, group: number, groupLiteral: string) => ({
      user,
      userLiteral,
      group,
      groupLiteral,
    });
    expect(rules.map((r) => filterGate(r.filter))).toEqual([
      gate(Side.Prefix, "team1-", Side.None, ""),
      null,
      gate(Side.Prefix, "team3-", Side.Names, ""),
      gate(Side.Names, "", Side.None, ""),
      // (?i): the folded letters are no literal, the digit and the dash are
      gate(Side.Contains, "5-", Side.None, ""),
      gate(Side.Contains, "-x", Side.None, ""),
      gate(Side.Prefix, "svc\u0000z", Side.None, ""),
      gate(Side.Prefix, "team8-", Side.None, ""),
      gate(Side.Contains, "-t9", Side.Names, ""),
      gate(Side.None, "", Side.Prefix, "dev-"),
      gate(Side.Names, "", Side.Names, ""),
      gate(Side.None, "", Side.None, ""),
      null,
      null,
    ]);
    expect(partition?.gates.userLiteral[6]).toBe("svc\u0000z");
  });

  it("places every user as the explained walk (which reads every rule) does", () => {
    const users = [
      "team1-ann",
      "team1-",
      "team2-bo",
      "team3-cy",
      "TEAM5-DI",
      "team5-ed",
      "carol",
      "alice",
      "bob",
      "team9-x",
      "svc\u0000z",
      "svc",
      "team8-q",
      "ann-t9abc",
      "ann-t9",
      "x",
      "y",
    ];
    const groupSets = [
      [],
      ["ops"],
      ["staff", "ops"],
      ["g9"],
      ["staff", "h9"],
      ["dev-1"],
      ["xdev-1"],
      ["bad group"],
    ];
    let compared = 0;
    for (const user of users) {
      for (const groups of groupSets) {
        for (const queue of ["", "root.team8"]) {
          const request = { user, groups, queue, tags: {} };
          const fast = decidePlacement(policy, request, { explain: false });
          const walked = decidePlacement(policy, request, { explain: true });
          expect(fast.verdict, `${JSON.stringify(request)}`).toEqual(walked.verdict);
          compared++;
        }
      }
    }
    expect(compared).toBe(users.length * groupSets.length * 2);
    // the chain really is exercised: a gated rule admits its own users, others fall through
    expect(decidePlacement(policy, { user: "team1-ann" }, { explain: false }).verdict.queue).toBe(
      "root.team1-ann",
    );
    expect(decidePlacement(policy, { user: "alice" }, { explain: false }).verdict.queue).toBe("root.alice");
    expect(decidePlacement(policy, { user: "carol" }, { explain: false }).verdict.rule).toEqual({
      index: 1,
      name: "user",
    });
  });
});
