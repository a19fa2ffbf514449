import * as z from "zod";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function reportSchemasBuild() {
  /** One request decided differently, masked: the request, and the compared fields of both verdicts. */
  const Example = z
    .object({
      at: z.string(),
      request: z.unknown(),
      active: z.record(z.string(), z.unknown()),
      candidate: z.record(z.string(), z.unknown()),
    })
    .strict();

  /** One outcome pair of an engine: `allowed true → false`, its count and its first examples. */
  const Pair = z
    .object({ pair: z.string(), count: z.number().int(), examples: z.array(Example).max(20) })
    .strict();

  const EngineReport = z
    .object({
      compared: z.number().int(),
      agreed: z.number().int(),
      differing: z.number().int(),
      pairs: z.array(Pair),
    })
    .strict();

  /** A comparison report (src/bundle/compare/report.ts), as the API answers it and `arbiter replay --format json` prints it. */
  const ReportBody = z.object({
    since: z
      .string()
      .nullable()
      .describe("when counting began: the candidate's staging (shadow), the first log line (replay)"),
    compared: z.number().int(),
    agreed: z.number().int(),
    differing: z.number().int(),
    engines: z.partialRecord(z.enum(ENGINE_NAMES), EngineReport),
  });

  return { ReportBody };
}

/** The schemas above, made on the first call and kept. */
export const reportSchemas = lazily(reportSchemasBuild);
