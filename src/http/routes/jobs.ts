import { Hono, type Context } from "hono";
import * as z from "zod";
import {
  isFailure,
  type JobQueueApi,
  type JobStatus,
  type Once,
  type QueueFailure,
} from "../../state/job-queue-types.js";
import { scheduleOutcome } from "../../state/job-queue-core.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { authorize } from "../auth.js";
import { parseExactJsonText, readJson, readJsonText, validate } from "../body.js";
import { stringifyExactJson } from "../../engines/common/exact-json.js";
import { idempotencyKey, idempotencyRequest, keyReusedMessage } from "../idempotency.js";
import { elapsedMs, logDecision, newDecisionId, wantsExplain } from "../decision.js";
import type { AppEnv, Env } from "../../env.js";
import { ApiError } from "../errors.js";
import { logDecisionCapturing, type Capture } from "../capture.js";
import { meteredStub, recordDecision } from "../metrics.js";
import { BUDGET_OUTCOME, SCHEDULE_OUTCOME } from "../../metrics/index.js";
import { EXPLAIN_QUERY, IDEMPOTENCY_HEADER, registerOperation } from "../openapi.js";
import { shedLoad } from "../overload.js";
import { jobSchemas, QUEUE_NAME } from "../schemas/jobs.js";

/** The queue the default Ganeti paths (`/2/filters`) address. */
export const DEFAULT_QUEUE = "default";

/** The Durable Object of one named queue. */
export function queueStub(env: Env, queue: string): JobQueueApi {
  return meteredStub(
    env.JOB_QUEUE.get(env.JOB_QUEUE.idFromName(queue)),
    "JobQueue",
  ) as unknown as JobQueueApi;
}

/** Answers JSON without Hono's deep JSON typing (rules hold arbitrary JSON expressions). */
export function json(c: Context<AppEnv>, value: unknown, status = 200): Response {
  return c.body(stringifyExactJson(value), status as 200, { "content-type": "application/json" });
}

/** The queue a route addresses (`default` for the Ganeti paths); 400 for a malformed name. */
export function queueParam(c: Context<AppEnv>): string {
  const queue = c.req.param("queue") ?? DEFAULT_QUEUE;
  if (!QUEUE_NAME.test(queue))
    throw new ApiError(
      "invalid_request",
      `\`${queue}\` is not a queue name (letters, digits, \`.\`, \`_\`, \`-\`)`,
    );
  return queue;
}

// ---- jobs ----

/** The job id a route addresses; 400 for anything but a positive integer. */
export function jobIdParam(c: Context<AppEnv>): number {
  const text = c.req.param("id") ?? "";
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id))
    throw new ApiError("invalid_request", `\`${text}\` is not a job id (a positive integer)`);
  return id;
}

function unwrap<T>(answer: T | QueueFailure): T {
  if (isFailure(answer)) throw new ApiError(answer.error.code, answer.error.message);
  return answer;
}

/** Counts a queue decision that ended in 422 `budget_exceeded` (it has no verdict, so no log line). */
function countBudgetFailure(
  c: Context<AppEnv>,
  started: number,
  failure: QueueFailure,
  revision: string,
): void {
  if (failure.error.code !== BUDGET_OUTCOME) return;
  const entry = {
    decision_id: "",
    engine: "jobfilter",
    revision,
    outcome: BUDGET_OUTCOME,
    ms: elapsedMs(started),
  };
  recordDecision(c.env, entry, true);
}

/** `unwrap` for a queue decision: a spent budget is counted before it becomes the 422. */
async function unwrapDecision<T>(c: Context<AppEnv>, started: number, answer: T | QueueFailure): Promise<T> {
  if (isFailure(answer) && answer.error.code === BUDGET_OUTCOME)
    countBudgetFailure(c, started, answer, (await getActiveBundle(c.env)).revision);
  return unwrap(answer);
}

/** What a job submission's log line captures: the submission as sent (integers exact) and the job's status. */
function jobCapture(text: string, status: object) {
  return (): Capture => ({
    kind: "jobfilter",
    text,
    verdict: status,
    parse: parseExactJsonText,
    stringify: stringifyExactJson,
  });
}

/** Shapes a job status as a verdict and writes the decision log line (with the submission, when one was sent and capture is on). */
async function verdict(c: Context<AppEnv>, started: number, status: JobStatus, submitted?: string) {
  const bundle = await getActiveBundle(c.env);
  const decisionId = newDecisionId();
  const entry = {
    decision_id: decisionId,
    engine: "jobfilter",
    revision: bundle.revision,
    outcome: status.action.toLowerCase(),
    ms: elapsedMs(started),
  };
  recordDecision(c.env, entry);
  if (submitted === undefined) logDecision(entry);
  else logDecisionCapturing(c, entry, jobCapture(submitted, status));
  return json(c, { decision_id: decisionId, revision: bundle.revision, cacheable: false, ...status });
}

/**
 * Answers an idempotent submission: the stored answer on a retry (marked
 * `Idempotent-Replayed: true`), the new one otherwise, the same error a
 * refused submission answered the first time, or 422 for a reused key.
 */
function idempotentVerdict(
  c: Context<AppEnv>,
  started: number,
  key: string,
  once: Once<unknown>,
  submitted: string,
  revision: string,
): Response {
  if ("mismatch" in once) throw new ApiError("idempotency_key_reused", keyReusedMessage(key));
  if (once.replayed) c.header("Idempotent-Replayed", "true");
  if (isFailure(once.answer)) {
    if (!once.replayed) countBudgetFailure(c, started, once.answer, revision);
    throw new ApiError(once.answer.error.code, once.answer.error.message);
  }
  const answer = once.answer as JobStatus & { decision_id: string; revision: string };
  if (!once.replayed) {
    const entry = {
      decision_id: answer.decision_id,
      engine: "jobfilter",
      revision: answer.revision,
      outcome: answer.action.toLowerCase(),
      ms: elapsedMs(started),
    };
    recordDecision(c.env, entry);
    logDecisionCapturing(c, entry, jobCapture(submitted, answer));
  }
  return json(c, answer, once.status);
}

async function optionalBody<S extends z.ZodType>(
  c: Context<AppEnv>,
  schema: S,
): Promise<z.output<S> | undefined> {
  const length = c.req.header("content-length");
  if (c.req.raw.body === null || length === "0") return undefined;
  return readJson(c, schema);
}

/** The job queue API (the filter resources are in rapi-filters.ts). */
export const jobRoutes = new Hono<AppEnv>();

// A queue's Durable Object answers one request at a time: past OBJECT_MAX_PENDING waiting in this isolate, shed.
const queueLoad = shedLoad((c) => `queue:${c.req.param("queue") ?? DEFAULT_QUEUE}`);
jobRoutes
  .use("/v1/queues/:queue/jobs", queueLoad)
  .use("/v1/queues/:queue/jobs/*", queueLoad)
  .use("/v1/queues/:queue/schedule", queueLoad);

jobRoutes
  .post("/v1/queues/:queue/jobs", async (c) => {
    const started = Date.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    const key = idempotencyKey(c);
    const text = await readJsonText(c);
    const submission = validate(jobSchemas().JobSubmission, parseExactJsonText(text));
    if (key === undefined)
      return verdict(
        c,
        started,
        await unwrapDecision(
          c,
          started,
          await queueStub(c.env, queue).submit(queue, submission, wantsExplain(c)),
        ),
        text,
      );
    const bundle = await getActiveBundle(c.env);
    const envelope = { decision_id: newDecisionId(), revision: bundle.revision };
    const idem = await idempotencyRequest(key, "jobs.submit", text);
    const once = await queueStub(c.env, queue).submitOnce(queue, submission, wantsExplain(c), idem, envelope);
    return idempotentVerdict(c, started, key, once, text, bundle.revision);
  })
  .get("/v1/queues/:queue/jobs/:id", async (c) => {
    const started = Date.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    return verdict(
      c,
      started,
      await unwrapDecision(c, started, await queueStub(c.env, queue).check(jobIdParam(c), wantsExplain(c))),
    );
  })
  .post("/v1/queues/:queue/jobs/:id/heartbeat", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    const id = jobIdParam(c);
    const body = await optionalBody(c, jobSchemas().HeartbeatRequest);
    return c.json(unwrap(await queueStub(c.env, queue).heartbeat(id, body?.lease_id)));
  })
  .post("/v1/queues/:queue/jobs/:id/finish", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    return c.json(unwrap(await queueStub(c.env, queue).finish(jobIdParam(c))));
  })
  .post("/v1/queues/:queue/schedule", async (c) => {
    const started = Date.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    const { queued } = await readJson(c, jobSchemas().ScheduleRequest);
    const pass = await unwrapDecision(c, started, await queueStub(c.env, queue).schedule(queued));
    const bundle = await getActiveBundle(c.env);
    const decisionId = newDecisionId();
    const entry = {
      decision_id: decisionId,
      engine: "jobfilter",
      revision: bundle.revision,
      outcome: scheduleOutcome(pass),
      ms: elapsedMs(started),
    };
    recordDecision(c.env, entry, false, SCHEDULE_OUTCOME);
    logDecision(entry);
    return c.json({ decision_id: decisionId, revision: bundle.revision, cacheable: false, ...pass });
  });

const jobs = { tag: "jobs", auth: "decision" } as const;
registerOperation({
  ...jobs,
  operationId: "submitJob",
  method: "post",
  path: "/v1/queues/{queue}/jobs",
  summary: "Submit a job: decided at once, a slot taken under a lease when it may run",
  query: [EXPLAIN_QUERY],
  errors: ["conflict"],
  request: () => jobSchemas().JobSubmission,
  response: () => jobSchemas().JobVerdict,
  headers: [IDEMPOTENCY_HEADER],
});
registerOperation({
  ...jobs,
  operationId: "getJob",
  method: "get",
  path: "/v1/queues/{queue}/jobs/{id}",
  summary: "A job's status; a held job is decided again",
  query: [EXPLAIN_QUERY],
  errors: ["invalid_request", "not_found"],
  response: () => jobSchemas().JobVerdict,
});
registerOperation({
  ...jobs,
  operationId: "heartbeatJob",
  method: "post",
  path: "/v1/queues/{queue}/jobs/{id}/heartbeat",
  summary: "Renew a running job's lease",
  errors: ["not_found", "lease_expired", "conflict"],
  request: () => jobSchemas().HeartbeatRequest,
  response: () => jobSchemas().JobStatusJson,
});
registerOperation({
  ...jobs,
  operationId: "finishJob",
  method: "post",
  path: "/v1/queues/{queue}/jobs/{id}/finish",
  summary: "Release a running job's slot (idempotent)",
  errors: ["invalid_request", "not_found"],
  response: () => jobSchemas().JobStatusJson,
});
registerOperation({
  ...jobs,
  operationId: "scheduleQueue",
  method: "post",
  path: "/v1/queues/{queue}/schedule",
  summary: "One scheduling pass over the held jobs named, in priority order; says what it did with each id",
  errors: ["budget_exceeded"],
  request: () => jobSchemas().ScheduleRequest,
  response: () => jobSchemas().ScheduleVerdict,
});
