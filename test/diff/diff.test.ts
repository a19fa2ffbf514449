/**
 * The semantic diff (src/bundle/diff.ts): pairs of policies with known
 * differences must be reported with the pair and an example request that
 * shows it; identical pairs are `equivalent` when the enumeration is
 * exhaustive, else `no difference found over N requests`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffPolicies, requestCost } from "../../src/bundle/diff.js";
import { MAX_PAIRS, OTHER_PAIR } from "../../src/bundle/compare/report.js";
import { MAX_PRODUCT_VALUES } from "../../src/engines/common/diff-requests.js";
import { REPO_ROOT } from "../support/cases.js";

const shipped = (file: string): string => readFileSync(join(REPO_ROOT, "policies", file), "utf8");

const placement = (rules: string): string =>
  [
    "partitions:",
    "  - name: default",
    "    placementrules:",
    rules.trimEnd(),
    "    queues:",
    "      - name: root",
    '        submitacl: "*"',
    "        queues:",
    "          - name: a",
    "          - name: b",
    "",
  ].join("\n");

describe("placement diff", () => {
  const fixedA = placement("      - name: fixed\n        value: a\n");
  it("an identical pair without regexes is equivalent", () => {
    const r = diffPolicies("placement", fixedA, fixedA);
    expect(r.ok && r.value.result).toBe("equivalent");
  });

  it("a changed fixed queue differs for every request, with an example", () => {
    const r = diffPolicies("placement", fixedA, placement("      - name: fixed\n        value: b\n"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.differing).toBe(r.value.compared);
    expect(r.value.pairs.map((p) => p.pair)).toEqual(["queue root.a → root.b"]);
    expect(r.value.pairs[0].example.old).toMatchObject({ queue: "root.a" });
  });

  it("a pair differing only for a regex witness is found", () => {
    const allow = (re: string): string =>
      `      - name: fixed\n        value: a\n        filter:\n          type: allow\n          users:\n            - "${re}"\n      - name: fixed\n        value: b\n`;
    const r = diffPolicies("placement", placement(allow("^dev")), placement(allow("^devops")));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.differing).toBeGreaterThan(0);
    expect(r.value.pairs.map((p) => p.pair)).toContain("queue root.a → root.b");
    const user = (r.value.pairs[0].example.request as { user: string }).user;
    expect(user.startsWith("dev") && !user.startsWith("devops")).toBe(true);
    expect(r.value.equivalent).toBe(false);
  });

  it("an identical pair with a regex filter is only searched", () => {
    const r = diffPolicies("placement", shipped("placement.yaml"), shipped("placement.yaml"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.result).toMatch(/^no difference found over \d+ requests$/);
    expect(r.value.coverage.why.join(" ")).toMatch(/regex/);
  });

  it("a side that does not validate is named", () => {
    const r = diffPolicies("placement", fixedA, "partitions: 3");
    expect(!r.ok && r.error.side).toBe("new");
  });
});

const rules = (...rs: object[]): string =>
  JSON.stringify(
    rs.map((r, i) => ({
      uuid: `00000000-0000-0000-0000-00000000000${i}`,
      watermark: 0,
      priority: i,
      reason_trail: [],
      ...r,
    })),
  );

describe("jobfilter diff", () => {
  const reject = (op: string, n: number): string =>
    rules({ predicates: [["opcode", [op, "memory", n]]], action: "REJECT" });
  it("a threshold moved by one differs exactly at the edge", () => {
    const r = diffPolicies("jobfilter", reject(">", 100), reject(">", 101));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.pairs.map((p) => p.pair)).toEqual(["action REJECT → ACCEPT"]);
    const op = (r.value.pairs[0].example.request as { job: { opcodes: { memory: number }[] } }).job
      .opcodes[0];
    expect(op.memory).toBe(101);
  });

  it("an identical pair of comparisons is equivalent", () => {
    const r = diffPolicies("jobfilter", reject(">", 100), reject(">", 100));
    expect(r.ok && r.value.result).toBe("equivalent");
  });

  it("a regex predicate differing only for its witness is found", () => {
    const re = (s: string): string =>
      rules({ predicates: [["opcode", ["=~", "OP_ID", s]]], action: "REJECT" });
    const r = diffPolicies("jobfilter", re("^OP_INSTANCE_"), re("^OP_INSTANCE_CREATE"));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.differing).toBeGreaterThan(0);
  });

  it("the shipped filters against themselves", () => {
    const r = diffPolicies("jobfilter", shipped("filters.json"), shipped("filters.json"));
    expect(r.ok && r.value.differing).toBe(0);
  });
});

describe("diff bounds", () => {
  const fixed = (q: string): string => placement(`      - name: fixed\n        value: ${q}\n`);

  it("the work bound stops the diff part-way and says so, never claiming equivalence", () => {
    const whole = diffPolicies("placement", fixed("a"), fixed("a"));
    if (!whole.ok) throw new Error(whole.error.message);
    expect(whole.value.coverage.stopped).toBe(false);
    const cost = requestCost(2 * fixed("a").length, { partition: "default", user: "u", groups: [] });
    const r = diffPolicies("placement", fixed("a"), fixed("a"), { work: cost * 3 });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.coverage.stopped).toBe(true);
    expect(r.value.compared).toBeLessThan(whole.value.compared);
    expect(r.value.compared).toBeGreaterThan(0);
    expect(r.value.equivalent).toBe(false);
    expect(r.value.coverage.exhaustive).toBe(false);
    expect(r.value.result).toBe(`no difference found over ${r.value.compared} requests`);
    expect(r.value.coverage.why.join(" ")).toContain(`stopped the diff after ${r.value.compared} of`);
  });

  it("a pair of many tag rules generates fewer requests, so building them stays bounded", () => {
    const tags = (n: number, v: string): string =>
      placement(
        Array.from({ length: n }, (_, i) => `      - name: tag\n        value: t${i}${v}\n`).join(""),
      );
    const r = diffPolicies("placement", tags(500, "a"), tags(500, "b"));
    if (!r.ok) throw new Error(r.error.message);
    // 1,000 tag names make 1,004 lists: at most MAX_PRODUCT_VALUES / 1,004 requests.
    expect(r.value.coverage.generated).toBeLessThanOrEqual(Math.floor(MAX_PRODUCT_VALUES / 1004));
    expect(r.value.coverage.why.join(" ")).toContain(
      `exceed the ${r.value.coverage.generated} requests generated`,
    );
  });

  it("differences past the report's pair cap are counted under `(other pairs)`", () => {
    const users = Array.from({ length: MAX_PAIRS + 10 }, (_, i) => `u${i}`);
    const acl = `        submitacl: "${users.join(",")}"\n`;
    const withAcl = (rule: string): string => placement(rule).replace('        submitacl: "*"\n', acl);
    const r = diffPolicies(
      "placement",
      withAcl("      - name: user\n        create: true\n"),
      withAcl("      - name: fixed\n        value: a\n"),
    );
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.pairs.length).toBe(MAX_PAIRS + 1);
    expect(r.value.pairs.at(-1)?.pair).toBe(OTHER_PAIR);
    expect(r.value.pairs.reduce((n, p) => n + p.count, 0)).toBe(r.value.differing);
  });
});
