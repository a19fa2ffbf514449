/**
 * The shape of a job filter rule as a zod schema: the rule's fields, the
 * predicate names, the query-language operators and the actions. The rule
 * checks (`validateRule`, `parseRuleBody`, `parseExpression`) take their names
 * from here, and the JSON Schema of filters.json is generated from it, so each
 * is declared once; the checks add what a schema cannot say (a regular
 * expression that compiles, Ganeti's error texts). The schemas are made on the
 * first call of `filterShapes()` and kept: an isolate that compiles no filter
 * rules never builds them (docs/performance.md, wt/heap2).
 */
import * as z from "zod";
import { lazily } from "../common/lazy.js";

/** The predicates a rule may test: the job id, its opcodes, its reason trail. */
export const PREDICATE_NAMES = ["jobid", "opcode", "reason"] as const;

/** The actions that take no argument; `["RATE_LIMIT", n]` is the other. */
export const SIMPLE_ACTIONS = ["ACCEPT", "PAUSE", "REJECT", "CONTINUE"] as const;

/** The comparison operators of the query language and the comparison each stands for (`=` is `==`). */
export const COMPARISONS = { "==": "==", "=": "==", "<": "<", ">": ">", "<=": "<=", ">=": ">=" } as const;

function filterShapesBuild() {
  /** A value a filter compares with: a string or an integer (exact past 2^53). */
  const FilterValue = z.union([z.string(), z.number().int(), z.bigint()]);

  /** A query-language filter expression, as Ganeti's JSON encodes it (`null` matches everything). */
  const FilterExpression: z.ZodType = z
    .lazy(() =>
      z.union([
        z.null(),
        z.tuple([z.enum(["&", "|"])], FilterExpression).describe("all (`&`) or any (`|`) of the expressions"),
        z.tuple([z.literal("!"), FilterExpression]).describe("not"),
        z.tuple([z.literal("?"), z.string()]).describe("the field is true"),
        z
          .tuple([z.literal("=~"), z.string(), z.string()])
          .describe("the field matches a PCRE regular expression"),
        z
          .tuple([
            z.enum([...(Object.keys(COMPARISONS) as (keyof typeof COMPARISONS)[]), "!=", "=[]"]),
            z.string(),
            FilterValue,
          ])
          .describe(
            "compares a field with a value (`=[]`: the list field contains it); `watermark` stands for the rule's watermark",
          ),
      ]),
    )
    .meta({ id: "FilterExpression" });

  /** One predicate: `[name, expression]`. */
  const FilterPredicateShape = z.tuple([z.enum(PREDICATE_NAMES), FilterExpression]);

  /** A rule's action. */
  const FilterActionShape = z.union([
    z.enum(SIMPLE_ACTIONS),
    z.tuple([z.literal("RATE_LIMIT"), z.number().int().positive()]),
  ]);

  /** A reason-trail entry: `[source, reason, timestamp_ns]`. */
  const ReasonTrailEntryShape = z.tuple([z.string(), z.string(), z.union([z.number().int(), z.bigint()])]);

  /** An integer from 0 to 2^63-1, exact past 2^53 (Ganeti's priorities and watermarks). */
  const NonNegativeInt64 = z.union([
    z.number().int().min(0),
    z
      .bigint()
      .min(0n)
      .max(2n ** 63n - 1n),
  ]);

  /** One rule of filters.json (the RAPI's full form); every field may be left out. */
  const FilterRuleFile = z.strictObject({
    uuid: z
      .string()
      .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      .optional()
      .describe("lower-case; the n-th rule without one gets 00000000-0000-4000-8000-<n in hex>"),
    watermark: NonNegativeInt64.optional().describe("the highest job id when the rule was added (default 0)"),
    priority: NonNegativeInt64.optional().describe("lower is evaluated first (default 0)"),
    predicates: z
      .array(FilterPredicateShape)
      .optional()
      .describe("all must match (default none: the rule matches every job)"),
    action: FilterActionShape.optional().describe("default CONTINUE"),
    reason_trail: z.array(ReasonTrailEntryShape).optional(),
  });

  /** The whole filters.json: the rules a new job queue starts with. */
  const FiltersFile = z.array(FilterRuleFile).meta({ title: "Arbiter job filter rules (filters.json)" });

  return {
    FilterExpression,
    FilterPredicateShape,
    FilterActionShape,
    ReasonTrailEntryShape,
    NonNegativeInt64,
    FilterRuleFile,
    FiltersFile,
  };
}

/** The shapes of a job filter rule and of filters.json, made on the first call and kept. */
export const filterShapes = lazily(filterShapesBuild);
