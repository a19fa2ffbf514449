import * as z from "zod";
import { ENGINE_NAMES } from "../../engines/common/engine.js";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function historySchemasBuild() {
  /** One engine a policy change touched: its source digest after and before (null when absent). */
  const EngineChange = z
    .object({
      engine: z.enum(ENGINE_NAMES),
      source_sha256: z.string().nullable(),
      previous_sha256: z.string().nullable(),
    })
    .strict();

  /** One change of the active revision. */
  const HistoryRecord = z
    .object({
      sequence: z.number().int().describe("increases by one per change; the newest record has the highest"),
      revision: z.string().describe("the revision the change made active"),
      previous: z.string().describe("the revision that was active before"),
      action: z.enum(["publish", "promote", "rollback"]),
      engines: z.array(EngineChange).describe("the engines whose source the change replaced"),
      at: z.string(),
      role: z.string().describe("`admin`, or `open` when auth is off"),
      note: z.string().optional().describe("the `X-Arbiter-Change-Note` header of the change"),
    })
    .strict();

  /** `GET /v1/policies/history`'s answer. */
  const HistoryList = z
    .object({ kept: z.number().int().describe("how many records are kept"), history: z.array(HistoryRecord) })
    .strict();

  /** `POST /v1/policies/rollback`'s body. */
  const RollbackBody = z
    .object({ revision: z.string().min(1).max(200).describe("a revision the history keeps") })
    .strict();

  /** `POST /v1/policies/rollback`'s answer. */
  const RollbackAnswer = z.object({ revision: z.string(), previous: z.string() }).strict();

  return { HistoryRecord, HistoryList, RollbackBody, RollbackAnswer };
}

/** The schemas above, made on the first call and kept. */
export const historySchemas = lazily(historySchemasBuild);
