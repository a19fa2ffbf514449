import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { compiledSchema, validate } from "./body.js";
import { ApiError } from "./errors.js";
import { readFileSync } from "node:fs";
import { decideLimits } from "../engines/limits/index.js";
import { loadLimitsText } from "../engines/limits/engine.js";
import { LimitsRequest, LimitsRequestFast, toEngineRequest } from "./schemas/limits.js";
import { AdCheckRequest, MatchRequest } from "./schemas/match.js";
import { PlaceRequest } from "./schemas/placement.js";

/** What `validate` answers: the value as JSON text (key order included), or the error's code, message and details. */
function outcome(schema: z.ZodType, text: string, fast?: z.ZodType): unknown {
  try {
    return { json: JSON.stringify(validate(schema, JSON.parse(text), fast)) };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    return { code: e.code, message: e.message, details: e.details };
  }
}

const job = '[ Requirements = TARGET.Memory >= 1024; Rank = TARGET.Memory; Owner = "alice" ]';
const BODIES: [string, z.ZodType, unknown[]][] = [
  [
    "PlaceRequest",
    PlaceRequest,
    [
      { user: "sarah", groups: ["sarah", "dev_app"], tags: { namespace: "newapp" } },
      { tags: { b: "1", a: "2" }, user: "u", partition: "default", queue: "root.x", applicationId: "app-1" },
      {
        user: "u",
        existingQueues: [
          { path: "root.a", leaf: true },
          { path: "root.b", kind: "parent", draining: false },
        ],
      },
      { user: "u", existingQueues: [{ path: "root.a" }] },
      { user: "u", existingQueues: [{ path: "root.a", leaf: true, kind: "parent" }] },
      { user: "u", existingQueues: [{ path: "x.a", leaf: true }] },
      { user: "u", groups: "sarah" },
      { user: "u", usr: "typo" },
      { user: "x".repeat(1025) },
      { user: "u", tags: { ns: 1 } },
      { user: "u", partition: undefined },
      {},
      [],
      "text",
    ],
  ],
  [
    "MatchRequest",
    MatchRequest,
    [
      { job, machines: ['[ Name = "slot1"; Memory = 2048 ]', { Name: "slot2", Memory: 512 }] },
      { machines: '[ Name = "a" ]\n\n[ Name = "b" ]', job: { Owner: "bob" }, best: 1 },
      { job, machines: [], schedd: '[ Name = "schedd" ]' },
      { job, machines: [], best: 0 },
      { job, machines: [], best: 1.5 },
      { job, machines: [1] },
      { job },
      { job, machines: [], extra: true },
    ],
  ],
  [
    "AdCheckRequest",
    AdCheckRequest,
    [{ kind: "startd", ad: job }, { kind: "negotiator", ad: job }, { kind: "job" }],
  ],
];

describe("compiledSchema", () => {
  it("compiles the decision routes' request schemas, and leaves one with a reference cycle to zod's interpreter", () => {
    expect(compiledSchema(PlaceRequest)).not.toBe(PlaceRequest);
    expect(compiledSchema(MatchRequest)).not.toBe(MatchRequest);
    expect(compiledSchema(AdCheckRequest)).not.toBe(AdCheckRequest);
    // z.json() refers to itself
    expect(compiledSchema(LimitsRequest)).toBe(LimitsRequest);
  });

  for (const [name, schema, bodies] of BODIES) {
    it(`validates ${name} bodies as zod's interpreter does: the same value and key order, or the same 400`, () => {
      const compiled = compiledSchema(schema);
      for (const body of bodies) {
        const text = JSON.stringify(body);
        expect(outcome(compiled, text), text).toEqual(outcome(schema, text));
      }
    });
  }

  it("validates limits bodies through the compiled LimitsRequestFast as LimitsRequest alone does", () => {
    const fast = compiledSchema(LimitsRequestFast);
    expect(fast).not.toBe(LimitsRequestFast);
    const test = { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } };
    const texts = [
      { requester: "198.51.100.7", task: { schema: 1, test } },
      {
        task: { test, reference: { a: [1, { b: null }] }, tools: ["iperf3"], priority: 3 },
        rewrite: true,
        server: "s",
      },
      {
        task: { schedule: { start: "@PT1M", slip: "PT5M" }, test, schema: 2 },
        run: { start: "2026-01-01T00:00:00Z", duration: "PT30S" },
        prioritize: false,
      },
      {
        task: { test: { type: "rtt", spec: { "2": 1, b: [true, -0, "x", [[]]], "1": { c: {} } }, extra: 1 } },
      },
      { task: { test: { spec: {}, type: "latency" } }, requester: "" },
      { task: { test, schema: 1.5 } },
      { task: { test }, prioritise: true },
      { task: { test: { type: "rtt" } } },
      { task: { test: { type: "rtt", spec: [] } } },
      { run: { start: "x" }, task: { test } },
    ].map((b) => JSON.stringify(b));
    // what JSON.stringify cannot write: a number past the doubles and a `__proto__` key, at both JSON objects
    texts.push(
      '{"task":{"test":{"type":"rtt","spec":{"n":1e400}}}}',
      '{"task":{"test":{"type":"rtt","spec":{"__proto__":{"x":1},"y":2}}}}',
    );
    texts.push(
      '{"task":{"test":{"type":"rtt","spec":{}},"schedule":{"a":[1e400]}}}',
      '{"task":{"test":{"type":"rtt","spec":{"a":{"__proto__":1}}}}}',
    );
    for (const text of texts)
      expect(outcome(LimitsRequest, text, fast), text).toEqual(outcome(LimitsRequest, text));
    // the valid bodies without a `__proto__` key or a number past the doubles are LimitsRequestFast's own
    for (const text of texts.slice(0, 4)) expect(fast.safeParse(JSON.parse(text)).success, text).toBe(true);
  });

  it("answers a limits body's own spec and schedule, which a limits decision leaves as they were", async () => {
    const text = JSON.stringify({
      requester: "203.0.113.9",
      rewrite: true,
      task: {
        schema: 1,
        test: {
          type: "throughput",
          spec: { schema: 1, dest: "ps.example.net", duration: "PT2S", parallel: 4 },
        },
        schedule: { repeat: "PT4H", slip: "PT1H" },
      },
    });
    const raw = JSON.parse(text) as { task: { test: { spec: object }; schedule: object } };
    const request = validate(LimitsRequest, raw, compiledSchema(LimitsRequestFast));
    expect(request.task.test.spec).toBe(raw.task.test.spec);
    expect(request.task.schedule).toBe(raw.task.schedule);
    const policy = loadLimitsText(readFileSync("policies/limits.json", "utf8"));
    if (!policy.ok) throw new Error(policy.error.message);
    const ctx = { now: 0, explain: false, cidrList: () => undefined, localAddresses: [] };
    for (let round = 0; round < 2; round++) {
      const d = await decideLimits(policy.value, toEngineRequest(request, request.requester), ctx);
      // the rewriter bumped the duration in its copy; the body's objects are as parsed
      expect(d.verdict.task).toMatchObject({ test: { spec: { duration: "PT5S" } } });
      expect(d.verdict.changes).toEqual(["Bumped duration to 5-second minimum"]);
      expect(JSON.stringify(raw)).toBe(text);
    }
  });

  it("copies what it accepts, never answering the body's own objects", () => {
    const body = JSON.parse('{"user":"u","groups":["g"],"tags":{"a":"b"}}') as {
      groups: string[];
      tags: object;
    };
    const out = validate(compiledSchema(PlaceRequest), body) as { groups: string[]; tags: object };
    expect(out.groups).not.toBe(body.groups);
    expect(out.tags).not.toBe(body.tags);
  });
});
