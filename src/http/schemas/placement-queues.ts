import * as z from "zod";

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
      submitacl: z.string().describe("`*`, or users and groups as YuniKorn writes them (`alice,bob admins`)"),
      adminacl: z.string(),
      rules: z
        .array(z.object({ index: z.number().int(), name: z.string() }).strict())
        .describe("the placement rules whose placement can name this leaf"),
      children: z.array(QueueNode),
    })
    .strict(),
);

/** `GET /v1/placement/queues`'s answer. */
export const QueueTreeList = z
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
