import { Hono, type Context } from "hono";
import { z } from "zod";
import { parseRuleBody, parseUuid, readRapiJson, type FloatLiterals } from "../../engines/jobfilter/index.js";
import { isFailure, type JobQueueApi, type JobStatus, type Once, type QueueFailure } from "../../state/job-queue-types.js";
import { startedJobs } from "../../state/job-queue-core.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { authorize } from "../auth.js";
import { checkJsonShape, describeJsonShape } from "../../engines/common/json-shape.js";
import { parseExactJsonText, readJson, readJsonText, readText, validate } from "../body.js";
import { stringifyExactJson } from "../../engines/common/exact-json.js";
import { idempotencyKey, idempotencyRequest, keyReusedMessage } from "../idempotency.js";
import { elapsedMs, logDecision, newDecisionId, wantsExplain } from "../decision.js";
import type { AppEnv, Env } from "../../env.js";
import { ApiError, clipText } from "../errors.js";
import { logDecisionCapturing, type Capture } from "../capture.js";
import { BULK_QUERY, EXPLAIN_QUERY, IDEMPOTENCY_HEADER, registerOperation } from "../openapi.js";
import { admit, isObjectOverloaded, overloaded, RETRY_AFTER_SECONDS, shedLoad } from "../overload.js";
import {
  FilterBody,
  FilterRuleJson,
  HeartbeatRequest,
  JobSubmission,
  JobVerdict,
  QUEUE_NAME,
  ScheduleRequest,
  ScheduleVerdict,
} from "../schemas/jobs.js";

/** The queue the default Ganeti paths (`/2/filters`) address. */
export const DEFAULT_QUEUE = "default";

/** The Durable Object of one named queue. */
export function queueStub(env: Env, queue: string): JobQueueApi {
  return env.JOB_QUEUE.get(env.JOB_QUEUE.idFromName(queue)) as unknown as JobQueueApi;
}

/** Answers JSON without Hono's deep JSON typing (rules hold arbitrary JSON expressions). */
function json(c: Context<AppEnv>, value: unknown, status = 200): Response {
  return c.body(stringifyExactJson(value), status as 200, { "content-type": "application/json" });
}

function queueParam(c: Context<AppEnv>): string {
  const queue = c.req.param("queue") ?? DEFAULT_QUEUE;
  if (!QUEUE_NAME.test(queue)) throw new ApiError("invalid_request", `\`${queue}\` is not a queue name (letters, digits, \`.\`, \`_\`, \`-\`)`);
  return queue;
}

// ---- Ganeti RAPI filters: Ganeti's error body {code, message, explain} ----

const EXPLAIN: Record<number, string> = {
  400: "Bad request syntax or unsupported method",
  401: "No permission -- see authorization schemes",
  403: "Request forbidden -- authorization will not help",
  404: "Nothing matches the given URI",
  413: "Entity is too large",
  422: "Unprocessable Entity",
  500: "Server got itself in trouble",
  503: "The server cannot process the request due to a high load",
};

class RapiError extends Error {
  constructor(
    readonly status: 400 | 404 | 422,
    message: string,
  ) {
    super(message);
  }
}

type FilterHandler = (c: Context<AppEnv>, queue: string) => Promise<Response>;

/** Wraps a filter handler so every failure answers in Ganeti's RAPI error shape. */
function rapi(handler: FilterHandler, role: "decision" | "admin") {
  return async (c: Context<AppEnv>): Promise<Response> => {
    let status = 500;
    let message = "internal error";
    let release: (() => void) | undefined;
    try {
      authorize(c, role);
      const queue = queueParam(c);
      release = admit(c.env, `queue:${queue}`);
      return await handler(c, queue);
    } catch (err) {
      const e = isObjectOverloaded(err) ? overloaded("the queue has too much queued work; retry later") : err;
      if (e instanceof RapiError || e instanceof ApiError) {
        status = e.status;
        message = e.message;
        if (status === 503) c.header("Retry-After", String(RETRY_AFTER_SECONDS));
      } else {
        console.error(JSON.stringify({ ts: new Date().toISOString(), event: "internal_error", error: String(e) }));
      }
    } finally {
      release?.();
    }
    return json(c, { code: status, message: clipText(message), explain: EXPLAIN[status] ?? "" }, status);
  };
}

async function readRuleBody(c: Context<AppEnv>) {
  return (await readRuleText(c)).body;
}

/** Reads and checks a rule body, keeping its text (an Idempotency-Key's fingerprint is taken from it). */
async function readRuleText(c: Context<AppEnv>) {
  const text = await readText(c);
  let parsed: { value: unknown; floats?: FloatLiterals } = { value: null };
  if (text.trim() !== "") {
    try {
      parsed = readRapiJson(text);
    } catch {
      throw new RapiError(400, "Invalid body contents, not a dictionary");
    }
    const violation = checkJsonShape(parsed.value);
    if (violation !== null) throw new RapiError(400, describeJsonShape(violation));
  }
  const body = parseRuleBody(parsed.value, parsed.floats);
  if (!body.ok) throw new RapiError(400, body.error);
  return { body: body.value, text };
}

function uriBase(c: Context<AppEnv>, queue: string): string {
  return c.req.param("queue") === undefined ? "/2/filters" : `/v1/queues/${queue}/filters`;
}

const listFilters: FilterHandler = async (c, queue) => {
  const bulk = c.req.query("bulk");
  let isBulk = false;
  if (bulk !== undefined) {
    if (!/^\s*[+-]?\d+\s*$/.test(bulk)) throw new RapiError(400, "Invalid value for the 'bulk' parameter");
    isBulk = Number(bulk) !== 0;
  }
  const rules = await queueStub(c.env, queue).listFilters();
  if (isBulk) return json(c, rules);
  const base = uriBase(c, queue);
  return json(c, rules.map((r) => ({ uuid: r.uuid, uri: `${base}/${r.uuid}` })));
};

const addFilter: FilterHandler = async (c, queue) => {
  const key = idempotencyKey(c);
  const { body, text } = await readRuleText(c);
  if (key === undefined) return json(c, await queueStub(c.env, queue).putFilter(queue, body));
  const once = await queueStub(c.env, queue).putFilterOnce(queue, body, await idempotencyRequest(key, "filters.add", text));
  if ("mismatch" in once) throw new RapiError(422, keyReusedMessage(key));
  if (once.replayed) c.header("Idempotent-Replayed", "true");
  return json(c, once.answer);
};

const getFilter: FilterHandler = async (c, queue) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  const rule = uuid === null ? null : await queueStub(c.env, queue).getFilter(uuid);
  if (rule === null) throw new RapiError(404, `Filter rule with UUID ${c.req.param("uuid")} does not exist`);
  return json(c, rule);
};

const replaceFilter: FilterHandler = async (c, queue) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  if (uuid === null) throw new RapiError(400, "Unable to parse UUID");
  const body = await readRuleBody(c);
  return json(c, await queueStub(c.env, queue).putFilter(queue, body, uuid));
};

const deleteFilter: FilterHandler = async (c, queue) => {
  const uuid = parseUuid(c.req.param("uuid") ?? "");
  const deleted = uuid !== null && (await queueStub(c.env, queue).deleteFilter(uuid));
  if (!deleted) throw new RapiError(404, `Filter rule with UUID ${c.req.param("uuid")} does not exist`);
  return c.json(null);
};

// ---- jobs ----

function jobIdParam(c: Context<AppEnv>): number {
  const text = c.req.param("id") ?? "";
  const id = /^[1-9]\d{0,15}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(id)) throw new ApiError("invalid_request", `\`${text}\` is not a job id (a positive integer)`);
  return id;
}

function unwrap<T>(answer: T | QueueFailure): T {
  if (isFailure(answer)) throw new ApiError(answer.error.code, answer.error.message);
  return answer;
}

/** What a job submission's log line captures: the submission as sent (integers exact) and the job's status. */
function jobCapture(text: string, status: object) {
  return (): Capture => ({ kind: "jobfilter", text, verdict: status, parse: parseExactJsonText, stringify: stringifyExactJson });
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
  if (submitted === undefined) logDecision(entry);
  else logDecisionCapturing(c, entry, jobCapture(submitted, status));
  return json(c, { decision_id: decisionId, revision: bundle.revision, cacheable: false, ...status });
}

/**
 * Answers an idempotent submission: the stored answer on a retry (marked
 * `Idempotent-Replayed: true`), the new one otherwise, the same error a
 * refused submission answered the first time, or 422 for a reused key.
 */
function idempotentVerdict(c: Context<AppEnv>, started: number, key: string, once: Once<unknown>, submitted: string): Response {
  if ("mismatch" in once) throw new ApiError("idempotency_key_reused", keyReusedMessage(key));
  if (once.replayed) c.header("Idempotent-Replayed", "true");
  if (isFailure(once.answer)) throw new ApiError(once.answer.error.code, once.answer.error.message);
  const answer = once.answer as JobStatus & { decision_id: string; revision: string };
  if (!once.replayed) {
    const entry = { decision_id: answer.decision_id, engine: "jobfilter", revision: answer.revision, outcome: answer.action.toLowerCase(), ms: elapsedMs(started) };
    logDecisionCapturing(c, entry, jobCapture(submitted, answer));
  }
  return json(c, answer, once.status);
}

async function optionalBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S> | undefined> {
  const length = c.req.header("content-length");
  if (c.req.raw.body === null || length === "0") return undefined;
  return readJson(c, schema);
}

/** The job queue API and the Ganeti-compatible filter resources, for the default and for named queues. */
export const jobRoutes = new Hono<AppEnv>();

for (const base of ["/2/filters", "/v1/queues/:queue/filters"]) {
  jobRoutes
    .get(base, rapi(listFilters, "decision"))
    .post(base, rapi(addFilter, "admin"))
    .get(`${base}/:uuid`, rapi(getFilter, "decision"))
    .put(`${base}/:uuid`, rapi(replaceFilter, "admin"))
    .delete(`${base}/:uuid`, rapi(deleteFilter, "admin"));
}

// A queue's Durable Object answers one request at a time: past OBJECT_MAX_PENDING waiting in this isolate, shed.
const queueLoad = shedLoad((c) => `queue:${c.req.param("queue") ?? DEFAULT_QUEUE}`);
jobRoutes.use("/v1/queues/:queue/jobs", queueLoad).use("/v1/queues/:queue/jobs/*", queueLoad).use("/v1/queues/:queue/schedule", queueLoad);

jobRoutes
  .post("/v1/queues/:queue/jobs", async (c) => {
    const started = performance.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    const key = idempotencyKey(c);
    const text = await readJsonText(c);
    const submission = validate(JobSubmission, parseExactJsonText(text));
    if (key === undefined) return verdict(c, started, unwrap(await queueStub(c.env, queue).submit(queue, submission, wantsExplain(c))), text);
    const bundle = await getActiveBundle(c.env);
    const envelope = { decision_id: newDecisionId(), revision: bundle.revision };
    const idem = await idempotencyRequest(key, "jobs.submit", text);
    const once = await queueStub(c.env, queue).submitOnce(queue, submission, wantsExplain(c), idem, envelope);
    return idempotentVerdict(c, started, key, once, text);
  })
  .get("/v1/queues/:queue/jobs/:id", async (c) => {
    const started = performance.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    return verdict(c, started, unwrap(await queueStub(c.env, queue).check(jobIdParam(c), wantsExplain(c))));
  })
  .post("/v1/queues/:queue/jobs/:id/heartbeat", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    const id = jobIdParam(c);
    const body = await optionalBody(c, HeartbeatRequest);
    return c.json(unwrap(await queueStub(c.env, queue).heartbeat(id, body?.lease_id)));
  })
  .post("/v1/queues/:queue/jobs/:id/finish", async (c) => {
    authorize(c, "decision");
    const queue = queueParam(c);
    return c.json(unwrap(await queueStub(c.env, queue).finish(jobIdParam(c))));
  })
  .post("/v1/queues/:queue/schedule", async (c) => {
    const started = performance.now();
    authorize(c, "decision");
    const queue = queueParam(c);
    const { queued } = await readJson(c, ScheduleRequest);
    const jobs = unwrap(await queueStub(c.env, queue).schedule(queued));
    const bundle = await getActiveBundle(c.env);
    const decisionId = newDecisionId();
    const startedIds = startedJobs(jobs, queued);
    logDecision({
      decision_id: decisionId,
      engine: "jobfilter",
      revision: bundle.revision,
      outcome: `started_${startedIds.length}_of_${queued.length}`,
      ms: elapsedMs(started),
    });
    return c.json({ decision_id: decisionId, revision: bundle.revision, cacheable: false, jobs, started: startedIds });
  });

const JobStatusJson = JobVerdict.omit({ decision_id: true, revision: true, cacheable: true });
const RuleRef = z.object({ uuid: z.string(), uri: z.string() });

for (const [base, param, id] of [
  ["/2/filters", "", "Filters"],
  ["/v1/queues/{queue}/filters", " of a named queue", "QueueFilters"],
] as const) {
  // Ganeti's RAPI shape for every error, and a named queue's name is checked (400) too.
  const ganeti = { errorShape: "ganeti", tag: "filters" } as const;
  registerOperation({ ...ganeti, operationId: `list${id}`, method: "get", path: base, summary: `List filter rules${param} (?bulk=1: full rules)`, auth: "decision", query: [BULK_QUERY], errors: ["invalid_request"], response: z.union([z.array(RuleRef), z.array(FilterRuleJson)]) });
  registerOperation({ ...ganeti, operationId: `add${id.slice(0, -1)}`, method: "post", path: base, summary: `Add a filter rule${param}; answers its uuid`, auth: "admin", request: FilterBody, response: z.string(), headers: [IDEMPOTENCY_HEADER] });
  registerOperation({ ...ganeti, operationId: `get${id.slice(0, -1)}`, method: "get", path: `${base}/{uuid}`, summary: `One filter rule${param}`, auth: "decision", errors: ["invalid_request", "not_found"], response: FilterRuleJson });
  registerOperation({ ...ganeti, operationId: `replace${id.slice(0, -1)}`, method: "put", path: `${base}/{uuid}`, summary: `Replace or create a filter rule${param}`, auth: "admin", request: FilterBody, response: z.string() });
  registerOperation({ ...ganeti, operationId: `delete${id.slice(0, -1)}`, method: "delete", path: `${base}/{uuid}`, summary: `Delete a filter rule${param}`, auth: "admin", errors: ["invalid_request", "not_found"], response: z.null() });
}
const jobs = { tag: "jobs", auth: "decision" } as const;
registerOperation({ ...jobs, operationId: "submitJob", method: "post", path: "/v1/queues/{queue}/jobs", summary: "Submit a job: decided at once, a slot taken under a lease when it may run", query: [EXPLAIN_QUERY], errors: ["conflict"], request: JobSubmission, response: JobVerdict, headers: [IDEMPOTENCY_HEADER] });
registerOperation({ ...jobs, operationId: "getJob", method: "get", path: "/v1/queues/{queue}/jobs/{id}", summary: "A job's status; a held job is decided again", query: [EXPLAIN_QUERY], errors: ["invalid_request", "not_found"], response: JobVerdict });
registerOperation({ ...jobs, operationId: "heartbeatJob", method: "post", path: "/v1/queues/{queue}/jobs/{id}/heartbeat", summary: "Renew a running job's lease", errors: ["not_found", "lease_expired", "conflict"], request: HeartbeatRequest, response: JobStatusJson });
registerOperation({ ...jobs, operationId: "finishJob", method: "post", path: "/v1/queues/{queue}/jobs/{id}/finish", summary: "Release a running job's slot (idempotent)", errors: ["invalid_request", "not_found"], response: JobStatusJson });
registerOperation({ ...jobs, operationId: "scheduleQueue", method: "post", path: "/v1/queues/{queue}/schedule", summary: "One scheduling pass over held jobs in priority order", errors: ["not_found"], request: ScheduleRequest, response: ScheduleVerdict });
