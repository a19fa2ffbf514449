import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  decideLimits,
  limitsEngine,
  validateLimitsText,
  type LimitsRequest,
} from "../../src/engines/limits/index.js";
import { loadCases } from "../support/cases.js";
import { haveSharedData, SHARED_DATA_ABSENT } from "../support/shared-data.js";
import { startFetchFake, type FetchFake } from "../support/fetch-fake.js";
import { contextOf, jqAvailable, limitsCaseExtra, sharedPolicyText, withLoopback } from "./harness.js";

const cases = loadCases("limits", limitsCaseExtra);
const haveJq = jqAvailable();

let fake: FetchFake;
beforeAll(async () => {
  fake = await startFetchFake();
});
afterAll(() => fake.close());

describe("limits cases", () => {
  it("has at least 80 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
  });

  for (const { name, value: c } of cases) {
    const skip =
      c.skip ??
      (c.policy_file !== undefined && !haveSharedData ? SHARED_DATA_ABSENT : undefined) ??
      (c.needs === "jq" && !haveJq ? "the jq engine (src/jq) has not landed yet" : undefined);
    // a skipped case carries its reason in its name, so the report says why (e.g. ../shared absent)
    const title = skip === undefined ? name : `${name} — skipped: ${skip}`;
    it.skipIf(skip !== undefined)(title, async () => {
      const policy = withLoopback(c.policy, fake.base);
      const text =
        c.policy_file !== undefined
          ? sharedPolicyText(c.policy_file)
          : typeof policy === "string"
            ? policy
            : JSON.stringify(policy);
      const compiled = limitsEngine.compile(text);
      if (c.want_error !== undefined) {
        expect(compiled.ok, "policy should fail to compile").toBe(false);
        if (compiled.ok) return;
        const want = c.want_error as { message?: string; at?: string };
        if (want.at !== undefined) expect(compiled.error[0].at).toBe(want.at);
        const v = validateLimitsText(text);
        expect(v.text).toBe(`Limit configuration is invalid:\n${compiled.error[0].message}`);
        if (want.message !== undefined) expect(compiled.error[0].message).toBe(want.message);
        return;
      }
      if (!compiled.ok) throw new Error(`policy failed to compile: ${compiled.error[0].message}`);
      // The bundle stores compiled data as JSON: go through a JSON round trip like it does.
      const loaded = limitsEngine.load(JSON.parse(JSON.stringify(compiled.value)));
      const now = c.now === undefined ? undefined : typeof c.now === "number" ? c.now : Date.parse(c.now);
      const decision = await decideLimits(loaded, c.input as LimitsRequest, contextOf(c.context, now, fake));
      const got: Record<string, unknown> = {
        ...decision.verdict,
        cacheable: decision.cacheable,
        outcome: decision.outcome,
      };
      const want = withLoopback(c.want, fake.base) as Record<string, unknown>;
      const picked: Record<string, unknown> = {};
      for (const k of Object.keys(want)) picked[k] = got[k];
      expect(picked).toEqual(want);
    });
  }
});
