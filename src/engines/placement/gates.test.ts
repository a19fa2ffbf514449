import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { decidePlacement } from "./decide.js";
import { namesOnly, userGate } from "./filter.js";
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
      - {name: fixed, value: root.default}
    queues:
      - name: root
        submitacl: "*"
        queues: [{name: default, submitacl: "*"}, {name: fallback, submitacl: "*"}]
`);

const partition = policy.partitions.get("default");

describe("placement rule gates", () => {
  it("gates only the filters that cannot admit a user lacking the prefix or the name, whatever the groups", () => {
    const rules = partition?.rules ?? [];
    expect(rules.map((r) => userGate(r.filter))).toEqual([
      "team1-",
      null,
      null,
      null,
      null,
      null,
      "svc\u0000z",
      "team8-",
      null,
    ]);
    expect(rules.map((r) => namesOnly(r.filter))).toEqual([
      false,
      false,
      false,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(partition?.gates[6]).toBe("svc\u0000z");
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
    ];
    const groupSets = [[], ["ops"], ["staff", "ops"]];
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
    expect(compared).toBe(users.length * 6);
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
