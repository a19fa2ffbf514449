import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function lintSchemasBuild() {
  /** One lint finding, as `POST /v1/policies/{engine}/lint` and `arbiter lint --format json` give it. */
  const LintFindingSchema = z
    .object({
      code: z
        .string()
        .describe(
          "stable snake_case code, prefixed by the engine (`placement_unreachable_rule`); docs/policies/analysis.md explains each",
        ),
      severity: z
        .enum(["warning", "info"])
        .describe(
          "`warning`: cannot be what was meant; `info`: worth knowing (errors are validation's, never lint's)",
        ),
      message: z.string().describe("what was found, in the origin's terms"),
      at: z
        .string()
        .describe("`line:column` (1-based) in the source text, or empty when the finding has no one place"),
    })
    .strict();

  /** The answer of `POST /v1/policies/{engine}/lint`: the findings, ordered by place, and how many of each severity. */
  const LintAnswer = z
    .object({
      engine: z.string(),
      findings: z.array(LintFindingSchema),
      counts: z.object({ warning: z.number().int(), info: z.number().int() }).strict(),
    })
    .strict();

  return { LintFindingSchema, LintAnswer };
}

/** The schemas above, made on the first call and kept. */
export const lintSchemas = lazily(lintSchemasBuild);
