import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compileFilters,
  decideJobfilter,
  loadFilters,
  parseBucket,
  parseExpression,
  parseRuleBody,
} from "../../src/engines/jobfilter/index.js";
import type { Job } from "../../src/engines/jobfilter/index.js";

const OPS = ["&", "|", "!", "?", "==", "=", "!=", "<", ">", "<=", ">=", "=~", "=[]", "~"];
const FIELDS = ["id", "OP_ID", "a", "a.b", "reason", "source", "timestamp", "tags", "watermark"];

// Expressions that are often well-formed, sometimes not.
const expr: fc.Arbitrary<unknown> = fc.letrec<{ e: unknown }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.tuple(
      fc.constantFrom(...OPS),
      fc.constantFrom(...FIELDS),
      fc.oneof(fc.integer(), fc.constantFrom("watermark", "x", "^a", "("), fc.double()),
    ),
    fc.tuple(fc.constantFrom("&", "|"), tie("e"), tie("e")),
    fc.tuple(fc.constant("!"), tie("e")),
    fc.jsonValue({ maxDepth: 2 }),
  ),
})).e;

const opcode = fc.record({
  OP_ID: fc.constantFrom("OP_A", "OP_B"),
  a: fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.record({ b: fc.jsonValue({ maxDepth: 1 }) })),
  tags: fc.array(fc.oneof(fc.string(), fc.integer()), { maxLength: 3 }),
  reason: fc.array(
    fc.tuple(
      fc.string(),
      fc.oneof(fc.string(), fc.constantFrom("rate-limit:1:x", "rate-limit:2:y")),
      fc.integer(),
    ),
    { maxLength: 2 },
  ),
});
const job = fc.record({
  id: fc.integer({ min: 1, max: 1000 }),
  opcodes: fc.array(opcode, { maxLength: 3 }),
}) as fc.Arbitrary<Job>;

describe("jobfilter parsers never crash", () => {
  it("parseExpression gives a value or an error text for any JSON", () => {
    fc.assert(
      fc.property(expr, (e) => {
        const r = parseExpression(e);
        expect(r.ok || typeof r.error === "string").toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("parseBucket gives a bucket or null for any string", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `rate-limit:${s}`),
        ),
        (s) => {
          const b = parseBucket(s);
          if (b !== null) expect(b.limit).toBeGreaterThan(0);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("parseRuleBody gives a body or an error text for any JSON", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => {
        const r = parseRuleBody(v);
        expect(r.ok || typeof r.error === "string").toBe(true);
      }),
    );
  });

  it("valid rules decide any job without throwing, and the rule named is one of them", () => {
    const rule = fc.record({
      priority: fc.integer({ min: 0, max: 3 }),
      watermark: fc.integer({ min: 0, max: 1000 }),
      predicates: fc.array(fc.tuple(fc.constantFrom("jobid", "opcode", "reason"), expr), { maxLength: 2 }),
      action: fc.constantFrom<unknown>(
        "ACCEPT",
        "PAUSE",
        "REJECT",
        "CONTINUE",
        ["RATE_LIMIT", 1],
        ["RATE_LIMIT", 2],
      ),
    });
    fc.assert(
      fc.property(
        fc.array(rule, { maxLength: 5 }),
        job,
        fc.array(job, { maxLength: 3 }),
        (rules, j, running) => {
          const compiled = compileFilters(JSON.stringify(rules));
          if (!compiled.ok) return;
          const policy = loadFilters(compiled.value);
          const v = decideJobfilter(
            policy,
            { job: j, queue: { running, queued: [] } },
            { explain: false },
          ).verdict;
          if (v.rule !== null) expect(compiled.value.some((r) => r.uuid === v.rule)).toBe(true);
          else expect(["ACCEPT", "ADHOC_RATE_LIMITED"]).toContain(v.action);
        },
      ),
      { numRuns: 500 },
    );
  });
});
