import { describe, expect, it } from "vitest";
import { Budget, spend } from "../engines/common/budget.js";
import { decideWithin } from "./decision.js";
import { ApiError } from "./errors.js";
import { loadLimitsText } from "../engines/limits/index.js";
import { decide as decideLimitsRoute } from "./routes/limits.js";

describe("decideWithin", () => {
  it("makes the decision's budget current while the decide function runs", async () => {
    const b = new Budget(100);
    await expect(decideWithin(b, () => (spend(30), "verdict"))).resolves.toBe("verdict");
    expect(b.used).toBe(30);
  });

  it("turns a budget spent where no verdict carries it into the 422 budget_exceeded", async () => {
    const error = await decideWithin(new Budget(10), () => spend(11)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe("budget_exceeded");
    expect((error as ApiError).status).toBe(422);
  });

  it("is not handed a promise by the limits route when its decision waits for nothing", async () => {
    const loaded = loadLimitsText(
      JSON.stringify({
        schema: 1,
        identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
        classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
        limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
        applications: [{ apply: [{ require: "all", limits: ["ok"] }] }],
      }),
    );
    if (!loaded.ok) throw new Error(loaded.error.message);
    const ctx = {
      env: {} as never,
      now: 0,
      explain: false,
      connectingIp: "192.0.2.7",
      budget: new Budget(1000),
    };
    const request = { task: { test: { type: "rtt", spec: {} } } };
    const d = decideLimitsRoute(loaded.value, request, ctx);
    expect(d).not.toBeInstanceOf(Promise);
    // the connecting address stood in for the requester: not cacheable
    expect(d).toMatchObject({ outcome: "allowed", cacheable: false });
    expect(decideLimitsRoute(null, request, { ...ctx, connectingIp: null })).not.toBeInstanceOf(Promise);
  });
});
