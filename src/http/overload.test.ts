import { describe, expect, it } from "vitest";
import type { Env } from "../env.js";
import { ApiError } from "./errors.js";
import { admit, isObjectOverloaded } from "./overload.js";

describe("admit", () => {
  it("lets OBJECT_MAX_PENDING requests wait on one object and refuses the next with 503 overloaded", () => {
    const env = { OBJECT_MAX_PENDING: "2" } as Env;
    const a = admit(env, "q");
    const b = admit(env, "q");
    expect(() => admit(env, "q")).toThrow(ApiError);
    try {
      admit(env, "q");
    } catch (e) {
      expect((e as ApiError).status).toBe(503);
      expect((e as ApiError).code).toBe("overloaded");
    }
    // Another object has its own count.
    admit(env, "other")();
    a();
    a(); // releasing twice frees one place only
    const c = admit(env, "q");
    expect(() => admit(env, "q")).toThrow(ApiError);
    b();
    c();
  });

  it("recognises the runtime's overloaded Durable Object error", () => {
    expect(
      isObjectOverloaded(
        Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), {
          overloaded: true,
        }),
      ),
    ).toBe(true);
    expect(isObjectOverloaded(new Error("other"))).toBe(false);
    expect(isObjectOverloaded(null)).toBe(false);
  });
});
