import * as z from "zod";

/** One lint finding, as `POST /v1/policies/{engine}/lint` and `arbiter lint --format json` give it. */
export const LintFindingSchema = z
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
export const LintAnswer = z
  .object({
    engine: z.string(),
    findings: z.array(LintFindingSchema),
    counts: z.object({ warning: z.number().int(), info: z.number().int() }).strict(),
  })
  .strict();
