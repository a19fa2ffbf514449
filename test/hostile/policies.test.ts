// Policy sources built to make a validator hang, blow up or crash (issue 12's YAML and
// macro bombs, deep JSON and deep programs): each is refused as 422 policy_invalid
// with an error that names what and where, and the Worker keeps answering meanwhile.
import { describe, expect, it } from "vitest";
import { expectError, nestedArrays, validatePolicy } from "./support.js";

function limitsWithJq(script: string): string {
  return JSON.stringify({
    schema: 1,
    identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
    classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
    limits: [{ name: "j", description: "j", type: "jq", data: { script } }],
    applications: [{ apply: [{ require: "all", limits: ["j"] }] }],
  });
}

describe("YAML bombs in a YuniKorn policy", () => {
  for (const n of [24, 26]) {
    it(`\`partitions:\` then ${n} nested explicit keys`, async () => {
      const a = await validatePolicy("placement", "partitions:\n" + "? ".repeat(n) + "x");
      const error = expectError(a, 422, "policy_invalid");
      expect(error.details?.[0]).toMatchObject({ code: "placement_invalid_type", message: "cannot unmarshal !!map into string (a key of the configuration)" });
      expect(a.bytes).toBeLessThan(2000);
    });
  }

  it("20,000 nested flow sequences", async () => {
    const a = await validatePolicy("placement", "partitions: " + nestedArrays(20_000, ""));
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({ code: "placement_yaml_too_deep", at: "1:111" });
  });

  it("20,000 nested block sequences", async () => {
    const a = await validatePolicy("placement", "partitions:\n" + "- ".repeat(20_000) + "x");
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({ code: "placement_yaml_too_deep", at: "2:199" });
  });
});

describe("macro bombs in pool.conf", () => {
  it("24 levels of $(M)$(M) doubling are refused, naming the macro", async () => {
    const lines = ["M0 = x", ...Array.from({ length: 24 }, (_, i) => `M${i + 1} = $(M${i})$(M${i})`), 'NEGOTIATOR_PE_JOB_EXPR = size("$(M24)") > 0'];
    const a = await validatePolicy("match", lines.join("\n") + "\n");
    const error = expectError(a, 422, "policy_invalid");
    expect(error.details?.[0]).toMatchObject({ code: "match_macro_too_large", at: "26:26" });
    expect(error.details?.[0].message).toContain("$(M17)");
  });

  it("a 50,000-deep parenthesised policy expression is a syntax error", async () => {
    const a = await validatePolicy("match", `NEGOTIATOR_PE_JOB_EXPR = ${"(".repeat(50_000)}true${")".repeat(50_000)}\n`);
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("match_expr_syntax");
  });
});

describe("deep JSON policies and deep programs", () => {
  it("a limits file with a 3,000-deep classifier", async () => {
    const policy = JSON.parse(limitsWithJq("true")) as { classifiers: { identifiers: unknown }[] };
    policy.classifiers[0].identifiers = JSON.parse(nestedArrays(3000, '"a"'));
    const a = await validatePolicy("limits", JSON.stringify(policy));
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("limits_too_deep");
  });

  it("a jq limit of 50,000-deep parentheses", async () => {
    const a = await validatePolicy("limits", limitsWithJq("(".repeat(50_000) + "true" + ")".repeat(50_000)));
    const error = expectError(a, 422, "policy_invalid");
    expect(error.message).toContain("nested too deeply");
  });

  it("a filters.json with a 10,000-deep predicate", async () => {
    const a = await validatePolicy("jobfilter", JSON.stringify([{ predicates: [["opcode", JSON.parse(nestedArrays(10_000, '"x"'))]] }]));
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("jobfilter_too_deep");
  });

  it("a customs.json nested 10,000 deep", async () => {
    const a = await validatePolicy("customs", `{"networks":{"1":{"maxLoad":${nestedArrays(10_000)}}}}`);
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("customs_too_deep");
  });
});
