import { z } from "zod";

const envelope = { decision_id: z.string(), revision: z.string(), cacheable: z.boolean() };

/** The /v1/match verdict, for the OpenAPI document. */
export const MatchVerdict = z.object({
  ...envelope,
  job: z.object({ discarded: z.boolean() }),
  schedd: z.object({ discarded: z.boolean() }).optional(),
  machines: z.array(
    z.object({ name: z.union([z.string(), z.number()]), discarded: z.boolean(), match: z.boolean(), rank: z.number() }),
  ),
  best: z.union([z.string(), z.number(), z.null()]),
  log: z.array(z.string()),
  trace: z.json().optional().describe("present with ?explain=true"),
});

/** The /v1/ads/check verdict, for the OpenAPI document. */
export const AdCheckVerdict = z.object({ ...envelope, discarded: z.boolean(), trace: z.json().optional().describe("present with ?explain=true") });
