import * as z from "zod";
import { BEST_MESSAGE, MAX_BEST } from "../../engines/classad/match-best.js";

/** An ad: ClassAd text (new `[ ... ]`, old one-attribute-per-line, or JSON text) or a JSON object. */
export const Ad = z.union([z.string().max(1_000_000), z.record(z.string(), z.unknown())]);
/** An ad as validated. */
export type Ad = z.infer<typeof Ad>;

/**
 * The body of `POST /v1/match`: one job, up to 2,000 machine ads and optionally the
 * job's schedd ad. `machines` may also be one text holding many ads: the long form
 * `condor_status -l` prints (ads separated by blank lines) or its `-json` output.
 * `best: N` asks for the best-N answer: the N highest-ranked matches and counts of the rest.
 */
export const MatchRequest = z.strictObject({
  job: Ad,
  machines: z.union([z.array(Ad).max(2000), z.string().max(1_000_000)]),
  schedd: Ad.optional(),
  best: z
    .number(BEST_MESSAGE)
    .int(BEST_MESSAGE)
    .min(1, BEST_MESSAGE)
    .max(MAX_BEST, BEST_MESSAGE)
    .optional()
    .describe(
      "list only the best N matching machines (the negotiator's order: job Rank descending, ties in request order) and count the rest in `counts`; without it every machine is listed",
    ),
});
/** A match request, as validated. */
export type MatchRequest = z.infer<typeof MatchRequest>;

/** The body of `POST /v1/ads/check`: would the pool policy discard this schedd, startd or job ad. */
export const AdCheckRequest = z.strictObject({
  kind: z.enum(["schedd", "startd", "job"]),
  ad: Ad,
});
/** An ad-check request, as validated. */
export type AdCheckRequest = z.infer<typeof AdCheckRequest>;
