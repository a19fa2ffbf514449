import { afterEach, describe, expect, it } from "vitest";
import { readSharedData } from "../../test/support/shared-data.js";
import { describeShared } from "../../test/support/shared-suite.js";
import { loadLimitsText, type LimitsPolicy } from "../engines/limits/index.js";
import { limitsEvaluator } from "./eval-limits.js";

/** pScheduler's toolkit default (empty when ../shared is absent; the suite using it is then skipped). */
const toolkitText = readSharedData("pscheduler", "toolkit-default-limits.json") ?? "";

function load(text: string): LimitsPolicy {
  const r = loadLimitsText(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const task = { schema: 1, test: { type: "throughput", spec: { dest: "ps.example.net", duration: "PT30S" } } };

/** Runs one request line through the evaluator as `arbiter eval limits` would. */
async function evaluate(policy: LimitsPolicy, line: unknown) {
  const request = limitsEvaluator.schema.parse(line);
  return limitsEvaluator.decide(policy, request, { now: Date.UTC(2026, 5, 1), explain: false });
}

afterEach(() => {
  delete process.env.ARBITER_LOCAL_ADDRESSES;
});

describeShared("limitsEvaluator (arbiter eval limits) on the toolkit default", () => {
  it("decides on the toolkit policy without DNS: bogon lookups behave as timeouts (fail-result false)", async () => {
    const policy = load(toolkitText);
    const ok = await evaluate(policy, { requester: "203.0.113.5", task });
    expect(ok.verdict).toMatchObject({ allowed: true, identifiers: ["everybody"], classifiers: ["default"] });
    const hacker = await evaluate(policy, { requester: "198.51.100.7", task });
    expect(hacker.verdict).toMatchObject({ allowed: false });
  });

  it("uses ARBITER_LOCAL_ADDRESSES for localif", async () => {
    const policy = load(toolkitText);
    const before = await evaluate(policy, { requester: "192.0.2.1", task });
    expect((before.verdict as { identifiers: string[] }).identifiers).not.toContain("local-interfaces");
    process.env.ARBITER_LOCAL_ADDRESSES = " 192.0.2.0/28 , 2001:db8::1";
    const after = await evaluate(policy, { requester: "192.0.2.1", task });
    expect((after.verdict as { identifiers: string[] }).identifiers).toContain("local-interfaces");
  });
});

describe("limitsEvaluator (arbiter eval limits)", () => {
  it("answers each ip-cidr-list-url identifier's fail-state, since the CLI downloads no list", async () => {
    const policy = load(
      JSON.stringify({
        schema: 1,
        identifiers: [
          { name: "everybody", description: "a", type: "always", data: {} },
          ...[true, false].map((state) => ({
            name: `fails-${state}`,
            description: "l",
            type: "ip-cidr-list-url",
            data: {
              source: "https://lists.example/x.txt",
              update: "PT1H",
              retry: "PT5M",
              "fail-state": state,
            },
          })),
        ],
        classifiers: [{ name: "default", description: "d", identifiers: ["everybody"] }],
        limits: [{ name: "always", description: "a", type: "pass-fail", data: { pass: true } }],
        applications: [{ apply: [{ require: "all", limits: ["always"] }] }],
      }),
    );
    const d = await evaluate(policy, { requester: "203.0.113.5", task });
    expect((d.verdict as { identifiers: string[] }).identifiers).toEqual(["everybody", "fails-true"]);
    expect(d.cacheable).toBe(false);
  });

  it("rejects a request the HTTP route would reject", () => {
    expect(limitsEvaluator.schema.safeParse({ requester: "203.0.113.5" }).success).toBe(false);
    expect(limitsEvaluator.schema.safeParse({ task, extra: 1 }).success).toBe(false);
  });
});
