/**
 * Issue 28, from experiment to change (playground/actions.js): the test case a
 * decision makes holds the request as typed and the verdict's own fields (no ids,
 * times or trace); two verdicts are compared field by field, noise left out.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { testCaseYaml, verdictDiff } from "../../playground/actions.js";

describe("Save as test case", () => {
  it("writes one case: the request as typed (big integers exact) and the verdict's fields as the expectation", () => {
    const answer = {
      action: "REJECT",
      rule: "r1",
      run: false,
      state: "rejected",
      decision_id: "d",
      revision: "r",
      trace: { rules: [] },
      lease: null,
    };
    const yaml = testCaseYaml({
      engine: "jobfilter",
      request: '{"job": {"id": 1700000000123456789, "opcodes": []}}',
      answer,
      name: 'a "quoted" name',
    });
    expect(yaml).toContain('request: {"job":{"id":1700000000123456789,"opcodes":[]}}');
    expect(parse(yaml)).toEqual({
      engine: "jobfilter",
      cases: [
        {
          name: 'a "quoted" name',
          request: { job: { id: 1700000000123456789, opcodes: [] } },
          expect: { action: "REJECT", rule: "r1", run: false, state: "rejected" },
        },
      ],
    });
  });
});

describe("Compare with active", () => {
  it("lists each differing field as a JSON pointer with both values, leaving out ids, revisions, times and the trace", () => {
    const edited = {
      queue: "root.default",
      create: false,
      rule: { index: 2, name: "fixed" },
      decision_id: "a",
      revision: "x",
      trace: [1],
    };
    const active = {
      queue: "root.newapp.sarah",
      create: true,
      rule: { index: 0, name: "user" },
      decision_id: "b",
      revision: "y",
      trace: [2],
    };
    expect(verdictDiff(edited, active)).toEqual([
      { at: "/queue", edited: "root.default", active: "root.newapp.sarah" },
      { at: "/create", edited: false, active: true },
      { at: "/rule/index", edited: 2, active: 0 },
      { at: "/rule/name", edited: "fixed", active: "user" },
    ]);
    expect(verdictDiff({ ...edited, decision_id: "z" }, edited)).toEqual([]);
    expect(verdictDiff({ a: [1, 2] }, { a: [1] })).toEqual([{ at: "/a/1", edited: 2, active: undefined }]);
  });
});
