import { describe, expect, it } from "vitest";
import { Budget, spend } from "../engines/common/budget.js";
import { decideWithin } from "./decision.js";
import { ApiError } from "./errors.js";

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
});
