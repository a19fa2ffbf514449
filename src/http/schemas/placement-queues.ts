import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function queueTreeSchemasBuild() {
  /** One configured queue with its children. */
  const QueueNode: z.ZodType<unknown> = z.lazy(() =>
    z
      .object({
        queuename: z.string().describe("the full path, lower-cased"),
        partition: z.string(),
        isLeaf: z.boolean(),
        isManaged: z
          .literal(true)
          .describe("configured queues are managed; queues rules create at run time are not listed"),
        parent: z.string().describe("the parent's full path; empty for root"),
        submitacl: z
          .string()
          .describe("`*`, or users and groups as YuniKorn writes them (`alice,bob admins`)"),
        adminacl: z.string(),
        rules: z
          .array(z.object({ index: z.number().int(), name: z.string() }).strict())
          .describe("the placement rules whose placement can name this leaf"),
        children: z.array(QueueNode),
      })
      .strict(),
  );

  /** `GET /v1/placement/queues`'s answer. */
  const QueueTreeList = z
    .object({
      revision: z.string(),
      partitions: z.array(
        z
          .object({
            name: z.string(),
            defaultqueue: z.string().nullable(),
            root: QueueNode.nullable(),
            creates: z
              .array(
                z.object({ index: z.number().int(), name: z.string(), under: z.array(z.string()) }).strict(),
              )
              .describe(
                "rules with `create: true` and the configured queues they may create children under (`*`: any)",
              ),
          })
          .strict(),
      ),
    })
    .strict();

  return { QueueTreeList };
}

/** The schemas above, made on the first call and kept. */
export const queueTreeSchemas = lazily(queueTreeSchemasBuild);
