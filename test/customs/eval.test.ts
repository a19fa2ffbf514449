import { describe, expect, it } from "vitest";
import { customsEvaluator } from "../../src/cli/eval-customs.js";

const hosts = [
  { name: "ws0", address: "10.0.0.10", load: 0, swapFreePct: 25, jobs: 0 },
  { name: "a", address: "10.0.0.1", load: 0.75, swapFreePct: 25, jobs: 0 },
];
const request = { client: "ws0", fromAddress: "10.0.0.10", user: "alice" };

describe("arbiter eval customs", () => {
  it("decides with policies/customs.json by default", async () => {
    expect(await customsEvaluator.evaluateLine({ hosts, request })).toEqual({
      host: null,
      ratings: { ws0: "excluded:self", a: "unavailable:AVAIL_LOAD" },
    });
  });

  it("takes a line's own policy", async () => {
    const out = await customsEvaluator.evaluateLine({
      policy: { defaults: { maxLoad: 1 } },
      input: { hosts, request },
    });
    expect(out).toEqual({ host: "a", ratings: { ws0: "excluded:self", a: 64 } });
  });

  it("answers errors as the API's envelope", async () => {
    const out = (await customsEvaluator.evaluateLine({
      hosts,
      request: { ...request, fromAddress: "x" },
    })) as { error: { code: string } };
    expect(out.error.code).toBe("invalid_request");
    const bad = (await customsEvaluator.evaluateLine({
      policy: { defaults: { maxLoad: 0.1 } },
      input: { hosts, request },
    })) as { error: { code: string } };
    expect(bad.error.code).toBe("policy_invalid");
  });
});
