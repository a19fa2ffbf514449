// Request bodies shaped to overflow stacks or flood error bodies (issue 12's rows on
// nesting depth, long arrays and error-body size), each answered by a 400 naming the field.
import { describe, expect, it } from "vitest";
import { expectError, manyItems, nestedArrays, postHostile } from "./support.js";

describe("deep bodies are refused by name, on every route", () => {
  const rows: [string, string, string, string][] = [
    [
      "limits spec nested 1,800 deep",
      "/v1/limits/decide",
      `{"task":{"test":{"type":"rtt","spec":{"x":${nestedArrays(1800)}}}}}`,
      "/task/test/spec/x/0",
    ],
    [
      "match job nested 1,953 deep",
      "/v1/match",
      `{"job":{"x":${nestedArrays(1953)}},"machines":[]}`,
      "/job/x/0",
    ],
    [
      "ads/check ad nested 2,636 deep",
      "/v1/ads/check",
      `{"kind":"job","ad":{"x":${nestedArrays(2636)}}}`,
      "/ad/x/0",
    ],
    [
      "opcode parameters nested 2,314 deep",
      "/v1/queues/hostile/jobs",
      `{"opcodes":[{"OP_ID":"OP_TEST","p":${nestedArrays(2314)}}]}`,
      "/opcodes/0/p/0",
    ],
    [
      "placement tags nested 50,000 deep",
      "/v1/place",
      `{"user":"u","tags":${nestedArrays(50000)}}`,
      "/tags/0",
    ],
    ["host report nested 5,000 deep", "/v1/hosts/allocate", `{"x":${nestedArrays(5000)}}`, "/x/0"],
  ];
  for (const [name, path, body, prefix] of rows) {
    it(name, async () => {
      const error = expectError(await postHostile(path, body), 400, "nesting_too_deep");
      expect(error.message).toContain("100 levels");
      expect(error.details?.[0].at.startsWith(prefix)).toBe(true);
    });
  }
});

describe("containers with too many items are refused by name", () => {
  const rows: [string, string, string, string][] = [
    ["150,000 opcodes", "/v1/queues/hostile/jobs", `{"opcodes":${manyItems(150_000, "0")}}`, "`opcodes`"],
    [
      "150,000 tools",
      "/v1/limits/decide",
      `{"task":{"test":{"type":"rtt","spec":{}},"tools":${manyItems(150_000, "0")}}}`,
      "`task.tools`",
    ],
    [
      "150,000 reason entries",
      "/v1/queues/hostile/jobs",
      `{"opcodes":[{"OP_ID":"OP_TEST","reason":${manyItems(150_000, "0")}}]}`,
      "`opcodes[0].reason`",
    ],
    ["150,000 machines", "/v1/match", `{"job":{},"machines":${manyItems(150_000, "0")}}`, "`machines`"],
  ];
  for (const [name, path, body, field] of rows) {
    it(name, async () => {
      const error = expectError(await postHostile(path, body), 400, "too_many_items");
      expect(error.message).toContain(field);
      expect(error.message).toContain("10000");
    });
  }
});

describe("error bodies are bounded", () => {
  it("10,000 bad opcodes give the first 50 details and a count of the rest", async () => {
    const a = await postHostile("/v1/queues/hostile/jobs", `{"opcodes":${manyItems(10_000, "0")}}`);
    const error = expectError(a, 400, "invalid_request");
    expect(error.details).toHaveLength(50);
    expect(error.details?.[49].at).toBe("/opcodes/49");
    expect(error.details_omitted).toBe(10_000 - 50);
    expect(a.bytes).toBeLessThan(20_000);
  });

  it("a huge unknown key is cut in the message", async () => {
    const a = await postHostile("/v1/ads/check", { kind: "job", ad: "[]", ["k".repeat(500_000)]: 1 });
    const error = expectError(a, 400, "invalid_request");
    expect(error.message.length).toBeLessThanOrEqual(1000);
    expect(a.bytes).toBeLessThan(10_000);
  });
});

describe("deep expressions inside request strings", () => {
  it("an ad of 50,000-deep parentheses is a 400 naming the ad", async () => {
    const a = await postHostile("/v1/ads/check", {
      kind: "job",
      ad: "[ a = " + "(".repeat(50_000) + "1" + ")".repeat(50_000) + " ]",
    });
    const error = expectError(a, 400, "invalid_request");
    expect(error.details?.[0].at).toBe("/ad");
    expect(error.message).toContain("nested too deeply");
  });

  it("a JSON-text ad nested 5,000 deep is a 400 naming the ad", async () => {
    const a = await postHostile("/v1/match", { job: `{"x":${nestedArrays(5000)}}`, machines: [] });
    const error = expectError(a, 400, "invalid_request");
    expect(error.details?.[0].at).toBe("/job");
    expect(error.message).toContain("100 levels");
  });

  it("a RAPI filter with a 60-deep predicate answers Ganeti's 400", async () => {
    let expr: unknown = ["==", "OP_ID", "x"];
    for (let i = 0; i < 60; i++) expr = ["!", expr];
    const a = await postHostile("/2/filters", { predicates: [["opcode", expr]] });
    expect(a.status).toBe(400);
    expect((a.body as { message: string }).message).toContain("nested more than 50 levels deep");
  });
});
