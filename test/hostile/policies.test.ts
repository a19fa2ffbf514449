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
      expect(error.details?.[0]).toMatchObject({
        code: "placement_invalid_type",
        message: "cannot unmarshal !!map into string (a key of the configuration)",
      });
      expect(a.bytes).toBeLessThan(2000);
    });
  }

  it("20,000 nested flow sequences", async () => {
    const a = await validatePolicy("placement", "partitions: " + nestedArrays(20_000, ""));
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({
      code: "placement_yaml_too_deep",
      at: "1:112",
    });
  });

  it("20,000 nested block sequences", async () => {
    const a = await validatePolicy("placement", "partitions:\n" + "- ".repeat(20_000) + "x");
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({
      code: "placement_yaml_too_deep",
      at: "2:199",
    });
  });
});

/** A queue whose `properties` hold `n` keys, each line built by `line(i)`. */
function manyProperties(n: number, line: (i: number) => string): string {
  const head = "partitions:\n- name: default\n  queues:\n  - name: root\n    properties:\n";
  return head + Array.from({ length: n }, (_, i) => `      ${line(i)}\n`).join("");
}

// Issue 24 item 5: validating YAML was quadratic in a mapping's keys (the yaml package's
// unique-key check, and one walk of the whole document per alias); it is linear now.
// These finish (with the documented answer) only because it is: before, 45,000 anchored
// keys took 38 s of CPU.
describe("YAML that was quadratic to validate", () => {
  it("45,000 anchored keys in one mapping (under 1 MiB) are valid", async () => {
    const source = manyProperties(45_000, (i) => `&${i.toString(36)} ${i.toString(36)}: v`);
    expect(source.length).toBeLessThan(1 << 20);
    const a = await validatePolicy("placement", source);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
  });

  it("8,000 `? *a` alias keys are repeated keys, as yaml.v3 says", async () => {
    const source = manyProperties(8_000, (i) => (i === 0 ? "a: &a x" : `? *a\n      : v${i}`));
    const error = expectError(await validatePolicy("placement", source), 422, "policy_invalid");
    expect(error.details?.[0]).toMatchObject({
      code: "placement_duplicate_key",
      message: 'mapping key "a" already defined at line 7',
      at: "9:9",
    });
    expect(error.details_omitted).toBeGreaterThan(900);
  });

  it("a syntax error per character: the first is reported, as Go's yaml.v3 does", async () => {
    const error = expectError(
      await validatePolicy("placement", "partitions: [" + ",".repeat(200_000) + "]"),
      422,
      "policy_invalid",
    );
    expect(error.details).toHaveLength(1);
    expect(error.details?.[0]).toMatchObject({ code: "placement_yaml_syntax", at: "1:14" });
  });
});

// Issue 24 item 5: YAML the fuzzer found overflowing the stack inside the yaml package's
// parser, and alias tricks that nest deeper than the text does.
describe("YAML that nested past the stack", () => {
  it("block indicators inside a flow sequence are a syntax error at the first", async () => {
    const a = await validatePolicy("placement", "- [\n  " + "-  ".repeat(20_000));
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({
      code: "placement_yaml_syntax",
      at: "2:3",
    });
  });

  it("explicit keys inside flow mappings", async () => {
    const a = await validatePolicy(
      "placement",
      "partitions: " + "{? ".repeat(20_000) + "x" + "}".repeat(20_000),
    );
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("placement_yaml_too_deep");
  });

  it("queues nested 900 deep through aliases", async () => {
    // the anchors sit where nothing decodes them (a sequence given as the checksum); only the alias at the end is followed
    const anchors = Array.from(
      { length: 900 },
      (_, i) => `  - &q${i} {name: q${i}${i === 0 ? "" : `, queues: [*q${i - 1}]`}}`,
    );
    const source = `checksum:\n${anchors.join("\n")}\npartitions:\n  - name: default\n    queues: [{name: root, queues: [*q899]}]\n`;
    const error = expectError(await validatePolicy("placement", source), 422, "policy_invalid");
    expect(error.details?.map((d) => d.code)).toEqual(["placement_invalid_type", "placement_yaml_too_deep"]);
  });

  it("an anchor whose value holds its own alias", async () => {
    const a = await validatePolicy(
      "placement",
      "partitions:\n  - name: default\n    queues: &q\n      - name: root\n        queues: *q\n",
    );
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({
      code: "placement_invalid_type",
      message: "anchor 'q' value contains itself",
      at: "5:9",
    });
  });
});

describe("macro bombs in pool.conf", () => {
  it("24 levels of $(M)$(M) doubling are refused, naming the macro", async () => {
    const lines = [
      "M0 = x",
      ...Array.from({ length: 24 }, (_, i) => `M${i + 1} = $(M${i})$(M${i})`),
      'NEGOTIATOR_PE_JOB_EXPR = size("$(M24)") > 0',
    ];
    const a = await validatePolicy("match", lines.join("\n") + "\n");
    const error = expectError(a, 422, "policy_invalid");
    expect(error.details?.[0]).toMatchObject({ code: "match_macro_too_large", at: "26:26" });
    expect(error.details?.[0].message).toContain("$(M17)");
  });

  it("a 50,000-deep parenthesised policy expression is a syntax error", async () => {
    const a = await validatePolicy(
      "match",
      `NEGOTIATOR_PE_JOB_EXPR = ${"(".repeat(50_000)}true${")".repeat(50_000)}\n`,
    );
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
    const a = await validatePolicy(
      "jobfilter",
      JSON.stringify([{ predicates: [["opcode", JSON.parse(nestedArrays(10_000, '"x"'))]] }]),
    );
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("jobfilter_too_deep");
  });

  it("a filters.json regex of groups nested 5,015 deep (found by the fuzzer) is named; 1,000 deep is valid", async () => {
    const rule = (n: number) =>
      JSON.stringify([
        {
          priority: 2,
          predicates: [["opcode", ["=~", "reason", "(".repeat(n) + "a+" + ")".repeat(n) + "+$"]]],
        },
      ]);
    const a = await validatePolicy("jobfilter", rule(5015));
    expect(expectError(a, 422, "policy_invalid").details?.[0].message).toContain(
      "parentheses are too deeply nested at offset 1000",
    );
    const b = await validatePolicy("jobfilter", rule(1000));
    expect(b.status).toBe(200);
  });

  it("a customs.json nested 10,000 deep", async () => {
    const a = await validatePolicy("customs", `{"networks":{"1":{"maxLoad":${nestedArrays(10_000)}}}}`);
    expect(expectError(a, 422, "policy_invalid").details?.[0].code).toBe("customs_too_deep");
  });
});
