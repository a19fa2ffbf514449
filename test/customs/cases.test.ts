import { describe, expect, it } from "vitest";
import {
  compileCustomsPolicy,
  decideCustoms,
  DEFAULT_POLICY_DATA,
  loadCustomsPolicy,
  type CustomsPolicy,
} from "../../src/engines/customs/index.js";
import { loadCases } from "../support/cases.js";

const cases = loadCases("customs");

function policyOf(raw: unknown): { ok: true; policy: CustomsPolicy } | { ok: false; error: unknown } {
  if (raw === undefined) return { ok: true, policy: loadCustomsPolicy(DEFAULT_POLICY_DATA) };
  const compiled = compileCustomsPolicy(typeof raw === "string" ? raw : JSON.stringify(raw));
  return compiled.ok
    ? { ok: true, policy: loadCustomsPolicy(compiled.value) }
    : { ok: false, error: compiled.error };
}

function nowOf(raw: string | number | undefined): number | undefined {
  return typeof raw === "string" ? Date.parse(raw) : raw;
}

/** Passes when some produced error has the expected code and, when given, contains the message and points at `at`. */
function expectError(errors: unknown, want: unknown) {
  const list = errors as { code: string; message: string; at: string }[];
  const w = want as { code: string; message?: string; at?: string };
  const hit = list.find(
    (e) =>
      e.code === w.code &&
      (w.message === undefined || e.message.includes(w.message)) &&
      (w.at === undefined || e.at === w.at),
  );
  expect(hit, `no error matches ${JSON.stringify(w)} among ${JSON.stringify(list)}`).toBeDefined();
}

describe("customs cases", () => {
  it("has at least 40 cases", () => expect(cases.length).toBeGreaterThanOrEqual(40));
  for (const c of cases) {
    const run = c.value.skip ? it.skip : it;
    run(c.name, () => {
      const p = policyOf(c.value.policy);
      if (!p.ok) {
        expect(c.value.want_error, `policy rejected: ${JSON.stringify(p.error)}`).toBeDefined();
        return expectError(p.error, c.value.want_error);
      }
      const out = decideCustoms(p.policy, c.value.input, nowOf(c.value.now as string | number | undefined));
      if (c.value.want_error !== undefined) {
        expect(out.ok, `expected an error, got ${JSON.stringify(out)}`).toBe(false);
        if (!out.ok) expectError(out.error, c.value.want_error);
      } else {
        expect(out.ok ? out.value : out.error).toEqual(c.value.want);
      }
    });
  }
});
