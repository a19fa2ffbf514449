import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json } from "../common/json.js";
import { traceJob } from "./engine.js";
import { buildFilterSet } from "./filter-set.js";
import type { FilterRule, Job } from "./types.js";

const field = fc.constantFrom("OP_ID", "a", "b", "n.x", "n.y");
const value = fc.oneof(fc.constantFrom("X", "Y", "a", "b"), fc.integer({ min: -2, max: 2 }));
const leaf: fc.Arbitrary<Json> = fc.oneof(
  fc.tuple(fc.constantFrom("==", "<", ">", "<=", ">=", "!="), field, value).map(([op, f, v]) => [op, f, v]),
  field.map((f) => ["?", f]),
  fc.tuple(field, fc.constantFrom("^X$", "a", "b$", "^Y")).map(([f, re]) => ["=~", f, re]),
  fc.tuple(field, value).map(([f, v]) => ["=[]", f, v]),
);
const expr: fc.Arbitrary<Json> = fc.oneof(
  leaf,
  fc.tuple(fc.constantFrom("&", "|"), fc.array(leaf, { maxLength: 3 })).map(([op, xs]) => [op, ...xs]),
  leaf.map((x) => ["!", x]),
);
const fieldValue: fc.Arbitrary<Json> = fc.oneof(
  value,
  fc.boolean(),
  fc.constant(null),
  fc.array(value, { maxLength: 2 }),
);
const opcode = fc.record(
  {
    OP_ID: fc.constantFrom("X", "Y"),
    a: fieldValue,
    b: fieldValue,
    n: fc.oneof(fc.record({ x: fieldValue, y: fieldValue }, { requiredKeys: ["x"] }), fieldValue),
  },
  { requiredKeys: ["OP_ID"] },
);

function rule(i: number, e: Json): FilterRule {
  return {
    uuid: `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`,
    watermark: 0,
    priority: i,
    predicates: [["opcode", e]],
    action: "REJECT",
    reason_trail: [],
  };
}

describe("shared opcode field views", () => {
  it("give every rule the same match as the rule compiled alone", () => {
    fc.assert(
      fc.property(
        fc.array(expr, { minLength: 1, maxLength: 8 }),
        fc.array(opcode, { minLength: 1, maxLength: 3 }),
        (exprs, opcodes) => {
          const rules = exprs.map((e, i) => rule(i, e));
          const job = { id: 1, opcodes } as unknown as Job;
          const together = traceJob(buildFilterSet(rules), job).rules.map((r) => r.matches);
          const alone = rules.map((r) => traceJob(buildFilterSet([r]), job).rules[0].matches);
          expect(together).toEqual(alone);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
