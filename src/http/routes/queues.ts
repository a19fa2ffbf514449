import { Hono, type Context } from "hono";
import type { AppEnv } from "../../env.js";
import { isFailure, type JobState } from "../../state/job-queue-types.js";
import { QUEUE_PAGE_MAX, registeredQueues } from "../../state/queue-registry.js";
import { authorize } from "../auth.js";
import { ApiError } from "../errors.js";
import { registerOperation, type QueryParam } from "../openapi.js";
import { queueListingSchemas } from "../schemas/queues.js";
import { jobIdParam, json, queueParam, queueStub } from "./jobs.js";

/** What `?state=` selects: `finished` covers every ended job (finished, cancelled, expired). */
const STATES: Record<string, JobState[]> = {
  running: ["running"],
  queued: ["queued"],
  finished: ["finished", "cancelled", "expired"],
};
const ALL_STATES: JobState[] = ["queued", "running", "finished", "cancelled", "expired"];

/** The most jobs one page lists, and the default. */
export const JOB_PAGE_MAX = 500;
const JOB_PAGE_DEFAULT = 100;

/** An integer query parameter in `[min, max]` (absent: `fallback`); 400 naming the parameter otherwise. */
function intQuery(c: Context<AppEnv>, name: string, min: number, max: number, fallback: number): number {
  const text = c.req.query(name);
  if (text === undefined) return fallback;
  const n = /^[0-9]{1,16}$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max))
    throw new ApiError(
      "invalid_request",
      `\`${name}\` must be an integer from ${min} to ${max}, not \`${text}\``,
    );
  return n;
}

/** Listing and cancelling a queue's jobs, and listing the queues (`gnt-job list/cancel`). */
export const queueRoutes = new Hono<AppEnv>();

queueRoutes
  .get("/v1/queues", async (c) => {
    authorize(c, "decision");
    const limit = intQuery(c, "limit", 1, QUEUE_PAGE_MAX, QUEUE_PAGE_MAX);
    const page = await registeredQueues(c.env, limit, c.req.query("cursor") || undefined);
    const queues = await Promise.all(
      page.names.map(async (queue) => ({ queue, ...(await queueStub(c.env, queue).summary()) })),
    );
    return json(c, { queues, cursor: page.cursor });
  })
  .get("/v1/queues/:queue/jobs", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    const stateText = c.req.query("state");
    const states =
      stateText === undefined ? ALL_STATES : Object.hasOwn(STATES, stateText) ? STATES[stateText] : undefined;
    if (states === undefined)
      throw new ApiError(
        "invalid_request",
        `\`state\` must be \`running\`, \`queued\` or \`finished\`, not \`${stateText}\``,
      );
    const limit = intQuery(c, "limit", 1, JOB_PAGE_MAX, JOB_PAGE_DEFAULT);
    const cursorText = c.req.query("cursor");
    const cursor = cursorText === undefined ? null : intQuery(c, "cursor", 1, Number.MAX_SAFE_INTEGER, 0);
    const page = await queueStub(c.env, queue).listJobs(states, cursor, limit);
    return json(c, { queue, ...page });
  })
  .delete("/v1/queues/:queue/jobs/:id", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    const answer = await queueStub(c.env, queue).cancel(jobIdParam(c));
    if (isFailure(answer)) throw new ApiError(answer.error.code, answer.error.message);
    return json(c, answer);
  });

const STATE_QUERY: QueryParam = {
  name: "state",
  description:
    "`running`, `queued` (held) or `finished` (finished, cancelled and expired jobs); all jobs when absent",
  schema: { type: "string", enum: ["running", "queued", "finished"] },
};
const limitQuery = (max: number, fallback: number): QueryParam => ({
  name: "limit",
  description: `jobs or queues per page, 1 to ${max} (default ${fallback})`,
  schema: { type: "string", pattern: "^[0-9]{1,16}$" },
});
const CURSOR_QUERY: QueryParam = {
  name: "cursor",
  description: "the `cursor` of the previous page",
  schema: { type: "string" },
};
const jobs = { tag: "jobs", auth: "decision" } as const;
registerOperation({
  ...jobs,
  operationId: "listQueues",
  method: "get",
  path: "/v1/queues",
  summary: `The queues that have stored a job or filter, by name, ${QUEUE_PAGE_MAX} per page at most, each with its job counts and watermark`,
  query: [limitQuery(QUEUE_PAGE_MAX, QUEUE_PAGE_MAX), CURSOR_QUERY],
  errors: ["invalid_request"],
  response: () => queueListingSchemas().QueueList,
  example: {
    queues: [
      { queue: "default", running: 2, queued: 1, finished: 14, watermark: 17 },
      { queue: "nightly", running: 0, queued: 0, finished: 3, watermark: 3 },
    ],
    cursor: null,
  },
});
registerOperation({
  ...jobs,
  operationId: "listJobs",
  method: "get",
  path: "/v1/queues/{queue}/jobs",
  summary: "A page of the queue's jobs, newest (highest id) first",
  query: [
    STATE_QUERY,
    limitQuery(JOB_PAGE_MAX, JOB_PAGE_DEFAULT),
    { ...CURSOR_QUERY, description: "the `cursor` of the previous page (the last job id it listed)" },
  ],
  errors: ["invalid_request"],
  response: () => queueListingSchemas().JobListing,
  example: {
    queue: "default",
    jobs: [
      {
        id: 17,
        state: "queued",
        action: "RATE_LIMITED",
        rule: "5f0c2a4e-3b1d-4c8e-9a27-6d1e0f3b8c45",
        priority: 0,
        submitted_at: "2026-11-27T05:10:02.118Z",
        started_at: null,
        ended_at: null,
        lease_expires_at: null,
      },
      {
        id: 16,
        state: "running",
        action: "ACCEPT",
        rule: null,
        priority: 0,
        submitted_at: "2026-11-27T05:09:41.730Z",
        started_at: "2026-11-27T05:09:41.730Z",
        ended_at: null,
        lease_expires_at: "2026-11-27T05:19:41.730Z",
      },
    ],
    cursor: "16",
  },
});
registerOperation({
  ...jobs,
  operationId: "cancelJob",
  method: "delete",
  path: "/v1/queues/{queue}/jobs/{id}",
  summary: "Cancel a job: a held job is dropped, a running job's slot released (idempotent)",
  errors: ["invalid_request", "not_found"],
  response: () => queueListingSchemas().CancelledJob,
  example: {
    job_id: 17,
    action: "RATE_LIMITED",
    rule: "5f0c2a4e-3b1d-4c8e-9a27-6d1e0f3b8c45",
    run: false,
    state: "cancelled",
  },
});
