import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  compilePlacement,
  decidePlacement,
  loadPlacement,
  type PlacementPolicy,
} from "../../src/engines/placement/index.js";
import { storePlacement } from "../../src/engines/placement/store.js";
import { PlaceRequest } from "../../src/http/schemas/placement.js";
import { loadCases, REPO_ROOT } from "../support/cases.js";

const cases = loadCases("placement");

/** The expected error of a case: a rejected policy (code and exact YuniKorn text) or a rejected request. */
const WantError = z.strictObject({
  code: z.string().optional(),
  message: z.string().optional(),
  at: z.string().optional(),
  suggestion: z.string().optional(),
});

const defaultSource = readFileSync(join(REPO_ROOT, "policies/placement.yaml"), "utf8");

function compileCase(policy: unknown) {
  const source =
    policy === undefined ? defaultSource : typeof policy === "string" ? policy : JSON.stringify(policy);
  return compilePlacement(source);
}

function matchesError(
  e: { code: string; message: string; at: string; suggestion?: string },
  want: z.infer<typeof WantError>,
): boolean {
  return (
    (want.code === undefined || e.code === want.code) &&
    (want.message === undefined || e.message === want.message) &&
    (want.at === undefined || e.at === want.at) &&
    (want.suggestion === undefined || e.suggestion === want.suggestion)
  );
}

describe("placement cases", () => {
  it("has at least 40 cases", () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const compiled = compileCase(c.value.policy);
      if (!compiled.ok) {
        expect(c.value.want_error, `policy rejected: ${JSON.stringify(compiled.error)}`).toBeDefined();
        // A list names every error, in order; one object names one error among them.
        if (Array.isArray(c.value.want_error)) {
          const wants = z.array(WantError).parse(c.value.want_error);
          expect(compiled.error.length, JSON.stringify(compiled.error)).toBe(wants.length);
          wants.forEach((w, i) =>
            expect(
              matchesError(compiled.error[i], w),
              `error ${i}: ${JSON.stringify(compiled.error[i])} vs ${JSON.stringify(w)}`,
            ).toBe(true),
          );
          return;
        }
        const want = WantError.parse(c.value.want_error);
        expect(
          compiled.error.some((e) => matchesError(e, want)),
          `no error matches ${JSON.stringify(want)} among ${JSON.stringify(compiled.error)}`,
        ).toBe(true);
        return;
      }
      // The bundle stores compiled data as JSON in its stored form: decide from a JSON round trip of it, as production does.
      const policy: PlacementPolicy = loadPlacement(
        JSON.parse(JSON.stringify(storePlacement(compiled.value))),
      );
      const request = PlaceRequest.safeParse(c.value.input);
      if (!request.success) {
        expect(c.value.want_error, `request rejected: ${request.error.message}`).toBeDefined();
        expect(WantError.parse(c.value.want_error).code).toBe("invalid_request");
        return;
      }
      expect(
        c.value.want_error,
        "expected an error, but the policy and the request are valid",
      ).toBeUndefined();
      const plain = decidePlacement(policy, request.data, { explain: false });
      expect(plain.verdict).toEqual(c.value.want);
      expect(plain.cacheable).toBe(true);
      expect(plain.trace).toBeUndefined();
      // Explaining never changes the verdict.
      const explained = decidePlacement(policy, request.data, { explain: true });
      expect(explained.verdict).toEqual(plain.verdict);
      expect(explained.trace).toBeDefined();
    });
  }
});
