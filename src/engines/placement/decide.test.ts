import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { decidePlacement, type PlacementTrace } from "./decide.js";
import { loadPlacement } from "./load.js";

function policyOf(source: string) {
  const c = compilePlacement(source);
  if (!c.ok) throw new Error(JSON.stringify(c.error));
  return loadPlacement(c.value);
}

const policy = policyOf(`
partitions:
  - placementrules:
      - {name: provided}
      - name: user
        create: true
        parent: {name: tag, value: namespace}
      - {name: fixed, value: root.closed}
    queues:
      - name: root
        queues: [{name: closed, submitacl: " ", adminacl: " "}, {name: ns, parent: true, submitacl: alice}]
`);

describe("decidePlacement", () => {
  it("explains why each rule did not place", () => {
    const d = decidePlacement(
      policy,
      { user: "alice", queue: "nope", tags: { namespace: "missing" } },
      { explain: true },
    );
    expect(d.verdict.rejected).toBe(true);
    expect(d.outcome).toBe("rejected");
    const trace = d.trace as PlacementTrace;
    expect(trace.partition).toBe("default");
    expect(trace.rules.map((s) => [s.index, s.rule, s.result])).toEqual([
      [0, "provided", "skipped"],
      [1, "user", "skipped"],
      [2, "fixed", "skipped"],
      [3, "recovery", "skipped"],
    ]);
    expect(trace.rules[0].why).toContain("root.nope does not exist");
    expect(trace.rules[1].why).toContain("parent rule tag produced nothing");
    expect(trace.rules[2]).toEqual({
      index: 2,
      rule: "fixed",
      result: "skipped",
      queue: "root.closed",
      why: "submit access to queue root.closed denied",
    });
    expect(trace.rules[3].why).toContain("application.create.force");
  });

  it("does not build a trace unless asked", () => {
    const d = decidePlacement(policy, { user: "alice" }, { explain: false });
    expect(d.trace).toBeUndefined();
    expect(d.cacheable).toBe(true);
  });

  it("marks placed verdicts with their outcome and the rule's position", () => {
    const d = decidePlacement(policy, { user: "alice", tags: { namespace: "ns" } }, { explain: true });
    expect(d.outcome).toBe("placed");
    expect(d.verdict).toEqual({
      queue: "root.ns.alice",
      create: true,
      rule: { index: 1, name: "user" },
      rejected: false,
    });
    expect((d.trace as PlacementTrace).rules.at(-1)).toEqual({
      index: 1,
      rule: "user",
      result: "placed",
      queue: "root.ns.alice",
    });
  });

  it("is a pure function of policy and request", () => {
    const req = { user: "bob", queue: "closed", groups: ["g"] };
    expect(decidePlacement(policy, req, { explain: false })).toEqual(
      decidePlacement(policy, req, { explain: false }),
    );
  });
});
