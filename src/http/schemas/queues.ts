import * as z from "zod";
import { lazily } from "../../engines/common/lazy.js";

/**
 * Made on the first call of the function below and kept, not in every isolate at load: only
 * their routes and the OpenAPI document use them (docs/performance.md, wt/heap2).
 */
function queueListingSchemasBuild() {
  const JobAction = z.enum(["ACCEPT", "PAUSE", "REJECT", "RATE_LIMITED", "ADHOC_RATE_LIMITED"]);
  const JobState = z.enum(["queued", "running", "cancelled", "finished", "expired"]);

  /** One job of a queue listing. */
  const JobListItem = z.strictObject({
    id: z.number().int(),
    state: JobState,
    action: JobAction,
    rule: z.string().nullable(),
    priority: z.number().int(),
    submitted_at: z
      .string()
      .nullable()
      .describe(
        "when the job was submitted (RFC 3339); null for a job stored before submission times were recorded",
      ),
    started_at: z
      .string()
      .nullable()
      .describe(
        "when the job first took a slot (RFC 3339); null if it has not (or was stored before start times were recorded)",
      ),
    ended_at: z
      .string()
      .nullable()
      .describe(
        "when the job finished, was cancelled or its lease expired (RFC 3339); null while it has not ended",
      ),
    lease_expires_at: z
      .string()
      .nullable()
      .describe("when a running job's lease runs out (RFC 3339); null when it holds none"),
  });

  /** The answer of GET /v1/queues/{queue}/jobs: a page of jobs, newest first, and the cursor of the next page. */
  const JobListing = z.strictObject({
    queue: z.string(),
    jobs: z.array(JobListItem),
    cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  });

  /** One queue of GET /v1/queues. */
  const QueueSummary = z.strictObject({
    queue: z.string(),
    running: z.number().int(),
    queued: z.number().int(),
    finished: z.number().int().describe("finished, cancelled and expired jobs still kept"),
    watermark: z.number().int().describe("the highest job id the queue has seen"),
  });

  /** The answer of GET /v1/queues. */
  const QueueList = z.strictObject({
    queues: z.array(QueueSummary),
    cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  });

  /** The answer of DELETE /v1/queues/{queue}/jobs/{id}: the job's status after the cancel. */
  const CancelledJob = z.strictObject({
    job_id: z.number().int(),
    action: JobAction,
    rule: z.string().nullable(),
    run: z.boolean(),
    state: JobState,
  });

  return { JobListItem, JobListing, QueueSummary, QueueList, CancelledJob };
}

/** The schemas above, made on the first call and kept. */
export const queueListingSchemas = lazily(queueListingSchemasBuild);
