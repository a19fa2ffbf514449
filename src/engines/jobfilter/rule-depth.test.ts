import { describe, expect, it } from "vitest";
import { showCompact, showPretty } from "./render.js";
import { parseAction, parsePredicate, parseReasonTrail, parseRuleBody } from "./rule-parse.js";

/** `value` wrapped in `levels` arrays. */
function nested(levels: number, value: unknown = 1): unknown {
  let v = value;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

describe("rule parts nested past 100 levels are jobfilter_too_deep, never a stack overflow (issue 24)", () => {
  const deep = nested(20_000);

  it("refuses deep predicates, actions, reason trails and rule bodies with the depth error", () => {
    const tooDeep = /^jobfilter_too_deep: `[^`]+` is nested more than 100 levels deep \(the limit is 100\)$/;
    expect(parsePredicate(["jobid", deep])).toEqual({ ok: false, error: expect.stringMatching(tooDeep) });
    expect(parsePredicate(["bogus", deep])).toEqual({ ok: false, error: expect.stringMatching(tooDeep) });
    expect(parseAction(deep)).toEqual({ ok: false, error: expect.stringMatching(tooDeep) });
    expect(parseReasonTrail([deep])).toEqual({ ok: false, error: expect.stringMatching(tooDeep) });
    for (const body of [
      { action: deep },
      { predicates: [["jobid", deep]] },
      { reason: [deep] },
      { priority: deep },
    ]) {
      const r = parseRuleBody(body);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(tooDeep);
    }
  });

  it("keeps Ganeti's texts for values within the limit, and renders deeper ones without recursing", () => {
    expect(parseAction(nested(50, "x"))).toEqual({
      ok: false,
      error: expect.stringContaining(`malformed FilterAction JSON: ${"[".repeat(50)}"x"${"]".repeat(50)}`),
    });
    expect(showCompact(deep)).toBe("<nested more than 100 levels deep>");
    expect(showPretty(deep)).toBe("<nested more than 100 levels deep>");
    expect(showPretty(nested(3))).toBe("[[[1]]]");
  });
});
