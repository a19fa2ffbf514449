import * as z from "zod";
import { filterShapes, validateRules } from "../../engines/jobfilter/index.js";
import { lazily } from "../../engines/common/lazy.js";

/**
 * The job and RAPI filter routes' schemas (225 zod instances) are made by `jobSchemas()` on its
 * first call, by the first such request or the first `/v1/openapi.json` of an isolate, not at
 * load: only those routes (and `arbiter eval jobfilter`) use them, and they validate with zod's
 * interpreter either way (docs/performance.md, wt/lazyschema2).
 */
function jobSchemasBuild() {
  /**
   * A timestamp in nanoseconds since the epoch. Today's exceed 2^53, so the body
   * is read with exact integers: past 2^53 the value is a bigint holding every
   * digit, and it is answered and stored digit for digit.
   */
  const NanoTimestamp = z.union([z.number().int(), z.bigint()]).meta({
    description: "nanoseconds since the epoch; an exact 64-bit integer (values past 2^53 keep every digit)",
  });

  /** A reason-trail entry: `[source, reason, timestamp_ns]`. */
  const ReasonEntry = z.tuple([z.string(), z.string(), NanoTimestamp]);

  /** An opcode: `OP_ID`, its own parameters (any JSON), and optionally its reason trail. */
  const Opcode = z.looseObject({
    OP_ID: z.string().min(1),
    reason: z.array(ReasonEntry).optional(),
  });

  /** The body of POST /v1/queues/{queue}/jobs: the service assigns the next id when none is given. */
  const JobSubmission = z.strictObject({
    id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional(),
    opcodes: z.array(Opcode).min(1),
    priority: z.number().int().optional(),
  });

  /** A job as the pure decision takes it. */
  const JobInput = z.strictObject({
    id: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    opcodes: z.array(Opcode),
  });

  /** A lease on a running slot. */
  const Lease = z.strictObject({ id: z.string(), expires_at: z.string() });

  const JobAction = z.enum(["ACCEPT", "PAUSE", "REJECT", "RATE_LIMITED", "ADHOC_RATE_LIMITED"]);

  /** What job routes answer: the decision envelope, the decision, and the job's state and lease. */
  /** One rule of a job's explain trace (src/engines/jobfilter/engine.ts `TraceLine`). */
  const JobfilterTraceRule = z.strictObject({
    index: z.number().int().describe("the rule's place in evaluation order (priority, watermark, uuid)"),
    uuid: z.string(),
    priority: z.number().int(),
    watermark: z.number().int(),
    action: z.union([
      z.enum(["ACCEPT", "PAUSE", "REJECT", "CONTINUE"]),
      z.tuple([z.literal("RATE_LIMIT"), z.number().int()]),
    ]),
    matches: z.boolean().describe("whether all its predicates hold"),
    predicates: z.array(
      z.strictObject({
        predicate: z.tuple([z.enum(["jobid", "opcode", "reason"]), z.unknown()]),
        matches: z.boolean(),
      }),
    ),
    result: z
      .enum(["applied", "continued", "no_match", "not_reached"])
      .describe(
        "applied: it decided; continued: it matched but is CONTINUE; no_match: a predicate is false; not_reached: after the rule that applied",
      ),
    why: z.string(),
  });

  /** The explain trace of a job decision. */
  const JobfilterTrace = z.strictObject({
    rules: z.array(JobfilterTraceRule),
    buckets: z.array(z.strictObject({ key: z.string(), limit: z.number() })),
  });

  const JobVerdict = z.strictObject({
    decision_id: z.string(),
    revision: z.string(),
    cacheable: z.literal(false),
    job_id: z.number().int(),
    action: JobAction,
    rule: z.string().nullable(),
    run: z.boolean(),
    state: z.enum(["queued", "running", "cancelled", "finished", "expired"]),
    lease: Lease.optional(),
    trace: JobfilterTrace.optional().describe(
      "with ?explain=true: every rule in evaluation order, each predicate's value, what became of the rule and why, and the job's ad-hoc buckets",
    ),
  });

  /** A job's status without the decision envelope (heartbeat and finish answer it). */
  const JobStatusJson = JobVerdict.omit({ decision_id: true, revision: true, cacheable: true });

  /** The body of POST /v1/queues/{queue}/schedule: held job ids in priority order. */
  const ScheduleRequest = z.strictObject({
    queued: z.array(z.number().int().positive()).max(10_000),
  });

  const JobIds = (description: string) => z.array(z.number().int()).describe(description);

  /** The answer of a scheduling pass: every id named is in exactly one of the id lists. */
  const ScheduleVerdict = z.strictObject({
    decision_id: z.string(),
    revision: z.string(),
    cacheable: z.literal(false),
    jobs: z
      .array(JobVerdict.omit({ decision_id: true, revision: true, cacheable: true }))
      .describe("the status of every known job named, once each, in the order named"),
    started: JobIds(
      "held jobs this pass moved to running (each took a slot under a lease): launch exactly these",
    ),
    rejected: JobIds("held jobs this pass cancelled (a REJECT rule applies)"),
    held: JobIds("held jobs that stay held (paused, rate-limited)"),
    not_held: z
      .strictObject({
        running: JobIds("already running before the pass"),
        finished: JobIds("finished"),
        cancelled: JobIds("cancelled before the pass"),
        expired: JobIds("their lease ran out"),
      })
      .describe("jobs that were not held when the pass began, by state: reported, never decided again"),
    unknown: JobIds("ids the queue does not know (never submitted, or forgotten 7 days after they ended)"),
  });

  /** The optional body of a heartbeat: the lease being renewed. */
  const HeartbeatRequest = z.strictObject({ lease_id: z.string().optional() });

  /** A filter rule's priority: Ganeti's `NonNegative Int`, 0 to 2^63-1 (lower runs first). */
  const FilterPriority = filterShapes().NonNegativeInt64.meta({
    description: "0 to 9223372036854775807 (2^63-1, Ganeti's 64-bit Int); lower is evaluated first",
  });

  /** A RAPI filter body, for the OpenAPI document (the route checks it with Ganeti's own texts). */
  const FilterBody = z.object({
    priority: FilterPriority.optional(),
    predicates: z.array(filterShapes().FilterPredicateShape).optional(),
    action: filterShapes().FilterActionShape.optional(),
    reason: z.array(ReasonEntry).optional(),
  });

  /** A stored filter rule as the RAPI answers it. */
  const FilterRuleJson = z.object({
    uuid: z.string(),
    watermark: filterShapes().NonNegativeInt64.meta({
      description:
        "the highest job id when the rule was added (0 to 2^63-1; a seed rule of filters.json may set it)",
    }),
    priority: FilterPriority,
    predicates: z.array(z.tuple([z.string(), z.unknown()])),
    action: z.unknown(),
    reason_trail: z.array(ReasonEntry),
  });

  const QueueInput = z.strictObject({
    running: z.array(JobInput).optional(),
    queued: z.array(JobInput).optional(),
  });

  /**
   * The pure decision's input, as `arbiter eval jobfilter` reads it:
   * `{filters?, job, queue?: {running?, queued?}}` (the spec's `running` and
   * `queuedAhead` are accepted too). `filters`, when given, replaces the policy.
   */
  const JobfilterDecisionRequest = z
    .strictObject({
      filters: z.array(z.unknown()).optional(),
      job: JobInput,
      queue: QueueInput.optional(),
      running: z.array(JobInput).optional(),
      queuedAhead: z.array(JobInput).optional(),
    })
    .superRefine((v, ctx) => {
      if (v.filters === undefined) return;
      const checked = validateRules(v.filters);
      if (!checked.ok) {
        for (const e of checked.error)
          ctx.addIssue({
            code: "custom",
            message: `${e.message} (${e.code})`,
            path: ["filters", ...pointerPath(e.at)],
          });
      }
    });
  return {
    NanoTimestamp,
    ReasonEntry,
    Opcode,
    JobSubmission,
    JobInput,
    Lease,
    JobfilterTrace,
    JobVerdict,
    JobStatusJson,
    ScheduleRequest,
    ScheduleVerdict,
    HeartbeatRequest,
    FilterPriority,
    FilterBody,
    FilterRuleJson,
    JobfilterDecisionRequest,
  };
}

/** The job and RAPI filter routes' schemas, made on the first call and kept. */
export const jobSchemas = lazily(jobSchemasBuild);

/** See `jobSchemas().ReasonEntry`. */
export type ReasonEntry = z.infer<ReturnType<typeof jobSchemas>["ReasonEntry"]>;
/** See `jobSchemas().Opcode`. */
export type Opcode = z.infer<ReturnType<typeof jobSchemas>["Opcode"]>;
/** See `jobSchemas().JobSubmission`. */
export type JobSubmission = z.infer<ReturnType<typeof jobSchemas>["JobSubmission"]>;
/** See `jobSchemas().JobInput`. */
export type JobInput = z.infer<ReturnType<typeof jobSchemas>["JobInput"]>;
/** See `jobSchemas().JobfilterDecisionRequest`. */
export type JobfilterDecisionRequest = z.infer<ReturnType<typeof jobSchemas>["JobfilterDecisionRequest"]>;

/** Turns an engine error's JSON pointer into a zod path (numbers for list indexes). */
function pointerPath(at: string): (string | number)[] {
  return at
    .split("/")
    .filter((p) => p !== "")
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

/** A queue name: letters, digits, `.`, `_`, `-`. */
export const QUEUE_NAME = /^[A-Za-z0-9._-]{1,64}$/;
