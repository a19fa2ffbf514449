import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/** A queue the scheduler already has at run time; `leaf` (the API's form) or `kind` (the spec's form). */
export const ExistingQueue = z
  .strictObject({
    path: z
      .string()
      .regex(/^root(\.[^.]+)*$/i, "must be a fully qualified queue path starting with `root`")
      .max(4096),
    leaf: z.boolean().optional(),
    kind: z.enum(["leaf", "parent"]).optional(),
    draining: z.boolean().optional(),
  })
  .refine((q) => q.leaf !== undefined || q.kind !== undefined, { message: "give `leaf` (or `kind`)" })
  .refine((q) => q.leaf === undefined || q.kind === undefined || q.leaf === (q.kind === "leaf"), {
    message: "`leaf` and `kind` disagree",
  });
/** An existing queue entry, as validated. */
export type ExistingQueue = z.infer<typeof ExistingQueue>;

/** The body of `POST /v1/place`: who submits the application, what queue and tags it carries, what exists. */
export const PlaceRequest = z.strictObject({
  partition: z.string().max(256).optional(),
  applicationId: z.string().max(1024).optional(),
  user: z.string().max(1024),
  groups: z.array(z.string().max(1024)).max(1024).optional(),
  queue: z.string().max(4096).optional(),
  tags: z.record(z.string(), z.string()).optional(),
  existingQueues: z.array(ExistingQueue).max(100_000).optional(),
});
/** A validated placement request. */
export type PlaceRequest = z.infer<typeof PlaceRequest>;

/**
 * The placement verdict as the API answers it (envelope included), for the OpenAPI document and
 * the playground's and policy test file's schemas: made on the first call and kept, not in every
 * isolate at load (no route validates with it; docs/performance.md, wt/heap2).
 */
function placeVerdictBuild() {
  return z.object({
    decision_id: z.string(),
    revision: z.string(),
    cacheable: z.boolean(),
    queue: z.string().nullable().describe("the lower-case full path of the queue, null when rejected"),
    create: z.boolean().describe("true when the queue does not exist yet and the scheduler must create it"),
    rule: z
      .object({ index: z.number().int(), name: z.string() })
      .nullable()
      .describe(
        "the top-level rule that placed (or failed): its position in the chain and name; `recovery` and `default` for the fallbacks",
      ),
    rejected: z.boolean(),
    reason: z.string().optional().describe("why the application was rejected, in YuniKorn's words"),
    error: z
      .string()
      .optional()
      .describe("YuniKorn's full error text naming the application, when `applicationId` was given"),
    trace: z.unknown().optional(),
  });
}

/** The placement verdict's schema, made on the first call and kept. */
export const placeVerdictSchema = lazily(placeVerdictBuild);
/** A placement verdict with its envelope. */
export type PlaceVerdict = z.infer<ReturnType<typeof placeVerdictSchema>>;
