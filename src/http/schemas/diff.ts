import * as z from "zod";
import { MAX_CAPTURED_REQUESTS } from "../../bundle/diff.js";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function diffSchemasBuild() {
  /** The body of `POST /v1/policies/{engine}/diff`: the two sources and, optionally, captured requests. */
  const DiffBody = z
    .object({
      old: z
        .string()
        .optional()
        .describe(
          "the old policy's source text; left out, the active policy's source for the engine stands for it",
        ),
      new: z.string().describe("the new policy's source text"),
      requests: z
        .array(z.record(z.string(), z.unknown()))
        .max(MAX_CAPTURED_REQUESTS)
        .optional()
        .describe(
          `captured requests to decide besides the generated ones, each in the engine's decision request form (as \`arbiter eval\` reads it); at most ${MAX_CAPTURED_REQUESTS}`,
        ),
    })
    .strict();

  const View = z
    .record(z.string(), z.unknown())
    .describe("the compared fields of a verdict (as the shadow report compares them), or `{error}`");

  /** One group of differing verdicts: the pair, how many requests fell in it, and the first one. */
  const DiffPairSchema = z
    .object({
      pair: z
        .string()
        .describe(
          "`field old → new`, as the shadow report names pairs; past 50 pairs the rest are counted under `(other pairs)`",
        ),
      count: z.number().int(),
      example: z
        .object({
          request: z
            .unknown()
            .describe("the first request of the pair (a part longer than 8 KiB as JSON is `{omitted}`)"),
          old: View,
          new: View,
        })
        .strict(),
    })
    .strict();

  /** What the request generation covered. */
  const DiffCoverage = z
    .object({
      boundaries: z
        .record(z.string(), z.number().int())
        .describe("boundary kinds found in either policy, with how many of each"),
      generated: z.number().int(),
      captured: z.number().int(),
      exhaustive: z
        .boolean()
        .describe(
          "every class of request the boundaries separate was decided (then no difference is `equivalent`)",
        ),
      stopped: z.boolean().describe("the work bound stopped the diff before every request was decided"),
      why: z.array(z.string()).describe("why the enumeration is not exhaustive, when it is not"),
    })
    .strict();

  /** The answer of `POST /v1/policies/{engine}/diff`: the diff report of `arbiter diff --format json`. */
  const DiffAnswer = z
    .object({
      engine: z.string(),
      result: z
        .string()
        .describe("`equivalent`, `no difference found over N requests`, or `N of M requests differ`"),
      equivalent: z.boolean(),
      compared: z.number().int(),
      differing: z.number().int(),
      pairs: z.array(DiffPairSchema).describe("by count, largest first"),
      coverage: DiffCoverage,
      old_revision: z
        .string()
        .optional()
        .describe("when `old` was left out: the active revision whose source was the old side"),
    })
    .strict();

  /** One staged engine's diff findings in the candidate report. */
  const EngineFindings = DiffAnswer.omit({ engine: true, old_revision: true, pairs: true })
    .extend({
      active_sha256: z.string().describe("the active source the diff was computed against"),
      candidate_sha256: z.string(),
      stale: z
        .boolean()
        .describe(
          "the active source changed since staging: the diff is against the one active then (stage again to refresh)",
        ),
      pairs: z.array(
        DiffPairSchema.extend({
          seen: z.boolean().describe("live shadow comparisons have fallen in this pair"),
          live_count: z
            .number()
            .int()
            .describe("how many (0: would differ on these requests, none seen yet)"),
        }).strict(),
      ),
      unseen: z.number().int().describe("pairs no live comparison has shown yet"),
    })
    .strict();

  /** The candidate report's `diff`: each staged engine whose source differs from the active one. */
  const CandidateDiff = z
    .object({
      engines: z.partialRecord(z.enum(ENGINE_NAMES), EngineFindings),
      not_covered: z
        .array(z.enum(ENGINE_NAMES))
        .describe("staged engines with a changed source that have no diff (the diff does not cover them)"),
    })
    .strict();

  return { DiffBody, DiffPairSchema, DiffCoverage, DiffAnswer, CandidateDiff };
}

/** The schemas above, made on the first call and kept. */
export const diffSchemas = lazily(diffSchemasBuild);
