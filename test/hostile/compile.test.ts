// Issue 24, items 6 and 7: policy sources whose reading was quadratic or recursive
// (pool.conf `\` continuation lines and nested macro defaults, JSON policies nested to
// the end whether or not they parse) are validated through the Worker at about 1 MB,
// each to its documented answer, while /healthz keeps answering. The CPU they take is
// measured by `npm run bench:hostile`, never asserted here; on the old code the
// continuation lines took minutes (the test's timeout) and deep JSON overflowed the stack.
import { describe, expect, it } from "vitest";
import { COMPILE_ROWS } from "./compile-rows.js";
import { expectError, hostile, nestedArrays, postHostile, validatePolicy } from "./support.js";

describe("hostile policy sources end with their documented answer", () => {
  for (const row of COMPILE_ROWS) {
    it(row.name, async () => {
      for (const bytes of [100_000, 1_000_000]) {
        const source = row.source(bytes);
        expect(source.length).toBeLessThanOrEqual(1_048_576);
        const a = await validatePolicy(row.engine, source);
        expect(row.check(a.status, a.body), `${bytes} bytes`).toBeNull();
      }
    });
  }

  it("names where a deep JSON policy goes past the limit, as for JSON that parses", async () => {
    for (const engine of ["limits", "customs", "jobfilter"]) {
      const broken = expectError(
        await validatePolicy(engine, `{"a": [1, {"b": ${nestedArrays(5_000, "1,")}}]}`),
        422,
        "policy_invalid",
      );
      const parsed = expectError(
        await validatePolicy(engine, `{"a": [1, {"b": ${nestedArrays(5_000)}}]}`),
        422,
        "policy_invalid",
      );
      expect(broken.details?.[0].code).toBe(`${engine}_too_deep`);
      expect(broken.details?.[0]).toEqual(parsed.details?.[0]);
      expect(broken.details?.[0].at).toBe("/a/1/b" + "/0".repeat(97));
    }
  });

  it("reports a syntax error that comes before the depth limit as the syntax error", async () => {
    const a = await validatePolicy("limits", `[1 2, ${nestedArrays(5_000)}]`);
    expect(expectError(a, 422, "policy_invalid").details?.[0]).toMatchObject({
      code: "limits_invalid_json",
      at: "1:4",
    });
  });
});

describe("deep bodies the exact-integer reader refuses are named as too deep", () => {
  const deep = (n: number) =>
    `{"id": 12345678901234567890, "opcodes": [{"OP_ID": "OP_TEST", "x": ${nestedArrays(n)}}]}`;

  it("a job nested 1,000 and 50,000 deep with a big integer is 400 nesting_too_deep", async () => {
    for (const n of [1_000, 50_000]) {
      const error = expectError(
        await postHostile("/v1/queues/hostile/jobs", deep(n)),
        400,
        "nesting_too_deep",
      );
      expect(error.details?.[0].at).toBe("/opcodes/0/x" + "/0".repeat(97));
    }
  });

  it("a RAPI filter rule nested 50,000 deep with a big integer names the depth in Ganeti's 400", async () => {
    const a = await hostile(
      "POST",
      "/2/filters",
      `{"priority": 12345678901234567890, "predicates": [["opcode", ${nestedArrays(50_000)}]]}`,
    );
    expect(a.status).toBe(400);
    expect((a.body as { message: string }).message).toContain("nested more than 100 levels deep");
  });
});
