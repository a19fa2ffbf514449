import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * The match routes' verdicts for the OpenAPI document and the playground's and policy test
 * file's schemas: made on the first call and kept, not in every isolate at load (no route
 * validates with them; docs/performance.md, wt/heap2).
 */
function matchVerdictsBuild() {
  const envelope = { decision_id: z.string(), revision: z.string(), cacheable: z.boolean() };

  /** The /v1/match verdict, for the OpenAPI document. */
  const MatchVerdict = z.object({
    ...envelope,
    job: z.object({ discarded: z.boolean() }),
    schedd: z.object({ discarded: z.boolean() }).optional(),
    machines: z
      .array(
        z.object({
          name: z.union([z.string(), z.number()]),
          discarded: z.boolean(),
          match: z.boolean(),
          rank: z.number(),
        }),
      )
      .describe(
        "every machine in request order; with `best: N` in the request only the best N matches, best first",
      ),
    best: z.union([z.string(), z.number(), z.null()]),
    counts: z
      .object({
        machines: z.number().int(),
        matched: z.number().int(),
        discarded: z.number().int(),
        rejected_by_resource_expr: z.number().int(),
        rejected_by_job_expr: z.number().int(),
        unmatched: z.number().int(),
      })
      .optional()
      .describe("present with `best: N` in the request: every machine counted by what became of it"),
    log: z
      .array(z.string())
      .describe("with `best: N`, no line per rejected machine and a `Matched` line per listed machine only"),
    trace: z.json().optional().describe("present with ?explain=true"),
  });

  /** The /v1/ads/check verdict, for the OpenAPI document. */
  const AdCheckVerdict = z.object({
    ...envelope,
    discarded: z.boolean(),
    trace: z.json().optional().describe("present with ?explain=true"),
  });

  const operandValues = z.object({
    expr: z.string(),
    value: z.string().optional().describe("the value, when every machine gave the same one"),
    min: z.number().optional(),
    max: z.number().optional(),
    values: z
      .array(z.object({ value: z.string(), machines: z.number().int() }))
      .optional()
      .describe("the values seen, most frequent first (at most 8)"),
    distinct: z.number().int().optional(),
  });

  /** The /v1/match/analyze answer, for the OpenAPI document. */
  const MatchAnalysisVerdict = z.object({
    ...envelope,
    job: z.object({ id: z.string(), discarded: z.boolean() }),
    schedd: z.object({ discarded: z.boolean() }).optional(),
    machines: z.object({
      total: z.number().int(),
      discarded_by_policy: z.number().int(),
      rejected_by_job: z.number().int(),
      rejecting_job: z.number().int(),
      matching: z.number().int(),
    }),
    requirements: z.array(z.object({ origin: z.string(), expr: z.string() })),
    job_attributes: z.array(z.object({ name: z.string(), expr: z.string() })),
    clauses: z.array(
      z.object({
        index: z.number().int(),
        origin: z.enum(["Requirements", "NEGOTIATOR_PE_JOB_EXPR"]),
        expr: z.string(),
        matches: z.number().int(),
        values: z.array(operandValues).optional(),
      }),
    ),
    machine_side: z.array(
      z.object({
        origin: z.enum(["Requirements", "NEGOTIATOR_PE_RESOURCE_EXPR"]),
        expr: z.string(),
        machines: z.number().int(),
        names: z.array(z.union([z.string(), z.number()])),
      }),
    ),
    suggestions: z.array(
      z.object({
        kind: z.enum(["blocker", "modify", "discarded"]),
        clause: z.number().int().optional(),
        message: z.string(),
        attribute: z.string().optional(),
        from: z.string().optional(),
        to: z.string().optional(),
        more: z.number().int().optional(),
        most: z.object({ to: z.string(), more: z.number().int() }).optional(),
      }),
    ),
  });

  return { MatchVerdict, AdCheckVerdict, MatchAnalysisVerdict };
}

/** The match routes' verdict schemas, made on the first call and kept. */
export const matchVerdictSchemas = lazily(matchVerdictsBuild);
