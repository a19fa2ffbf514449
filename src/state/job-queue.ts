import { DurableObject } from "cloudflare:workers";
import type { FilterRule, JobfilterPolicy, RuleBody } from "../engines/jobfilter/index.js";
import { decisionBudget } from "../engines/common/budget.js";
import { numberVar, type Env } from "../env.js";
import { IdempotencyTable, type IdempotencyRequest, type StoredAnswer } from "./idempotency.js";
import { candidateNow, getActiveBundle } from "./policy-store.js";
import { QueueShadow } from "./queue-shadow.js";
import { isolateFlusher } from "./isolate-metrics.js";
import { JobQueueCore } from "./job-queue-core.js";
import { QueueTables } from "./job-queue-sql.js";
import { QUEUE_REGISTRY_PREFIX } from "./queue-registry.js";
import {
  isFailure,
  type Envelope,
  type JobListing,
  type JobState,
  type QueueSummary,
  type JobStatus,
  type JobSubmission,
  type Once,
  type QueueFailure,
  type SchedulePass,
} from "./job-queue-types.js";
import { writeLog } from "../log-line.js";

/** How many running jobs one alarm indexes at a field path a rule change made new to the counts' index, or for the `op` presence key of counts indexed before it (see `JobQueueCore.fillIndex`). */
export const INDEX_FILL_SLICE = 1000;

/** How long a finished, expired or cancelled job stays reportable before the alarm forgets it. */
export const ENDED_JOB_RETENTION_MS = 7 * 24 * 3600 * 1000;

/**
 * One job queue (one per queue name) as a Durable Object: the queue logic
 * (`JobQueueCore`) over SQLite, seeded with the active bundle's filter rules
 * on first use, the idempotency table, and the alarm that frees the slots of
 * leases that ran out.
 */
export class JobQueue extends DurableObject<Env> {
  private readonly core: JobQueueCore;
  private readonly idempotency: IdempotencyTable;
  /** The staged candidate's filter rules deciding this queue's jobs again, after each answer (none when no candidate stages jobfilter). */
  private shadow: QueueShadow | undefined;
  private draining = false;
  /** Whether this object has set the alarm that fills the counts' index (see `keepFilling`). */
  private filling = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const tables = new QueueTables(ctx.storage.sql);
    this.core = new JobQueueCore(tables, {
      leaseMs: () => numberVar(this.env.LEASE_SECONDS, 600) * 1000,
      budget: () => decisionBudget(this.env.DECISION_BUDGET),
      newId: () => crypto.randomUUID(),
      log: (fields) => writeLog(fields),
    });
    this.idempotency = new IdempotencyTable(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      // a queue that stored jobs or filters before the registry existed registers on its next wake-up, whatever wakes it
      await this.registerStored();
      if (tables.meta("seeded") !== undefined) return;
      const bundle = await getActiveBundle(env);
      this.core.seed(bundle.policy<JobfilterPolicy>("jobfilter")?.rules ?? [], bundle.revision);
    });
  }

  // ---- filter rules (the /2/filters resource) ----

  /** Every rule, sorted by uuid as the RAPI lists them. */
  listFilters(): FilterRule[] {
    return this.core.listFilters();
  }

  /** One rule, or null. */
  getFilter(uuid: string): FilterRule | null {
    return this.core.getFilter(uuid);
  }

  /** Adds (uuid undefined: a new v4 uuid) or replaces a rule, stamping the watermark and the luxid trail entry. */
  putFilter(queue: string, body: RuleBody, uuid?: string): string {
    this.ctx.waitUntil(this.register(queue));
    return this.core.putFilter(queue, body, uuid, Date.now());
  }

  /** `putFilter` for a new rule at most once per Idempotency-Key: a retry answers the uuid the first call made. */
  putFilterOnce(queue: string, body: RuleBody, idem: IdempotencyRequest): Once<string> {
    this.ctx.waitUntil(this.register(queue));
    const now = Date.now();
    const seen = this.idempotency.lookup(idem, now);
    if (seen.seen)
      return "mismatch" in seen
        ? { mismatch: true }
        : { replayed: true, status: seen.replay.status, answer: seen.replay.answer as string };
    const uuid = this.core.putFilter(queue, body, undefined, now);
    this.idempotency.remember(idem, { status: 200, answer: uuid }, now);
    return { replayed: false, status: 200, answer: uuid };
  }

  /** Deletes a rule; false when it does not exist. */
  deleteFilter(uuid: string): boolean {
    return this.core.deleteFilter(uuid);
  }

  /** The highest job id seen, for tests and status. */
  highestJobId(): number {
    return this.core.tables.highestJobId();
  }

  // ---- jobs ----

  /** The per-rule counts as the object holds them now, for tests and status. */
  runningSnapshot(): { rules: Record<string, number>; buckets: Record<string, number> } {
    const snapshot = this.core.runningSnapshot();
    this.keepFilling();
    return snapshot;
  }

  /** Follows the candidate staged now (as this isolate last read the pointer): a shadow observing the queue, or none. */
  private async followCandidate(): Promise<void> {
    await getActiveBundle(this.env);
    const candidate = candidateNow();
    if (candidate === null || !candidate.record.staged.includes("jobfilter")) this.shadow = undefined;
    else if (this.shadow?.candidate.record.id !== candidate.record.id)
      this.shadow = new QueueShadow(candidate);
    this.core.observer = this.shadow;
  }

  /** Replays the shadow's events once the current answer is on its way (a timer, not the call's own turn). */
  private drainShadowLater(): void {
    const shadow = this.shadow;
    if (shadow === undefined || this.draining || !shadow.pending) return;
    this.draining = true;
    const done = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => shadow.drain(this.env))
      .catch((e: unknown) =>
        writeLog(
          {
            ts: new Date().toISOString(),
            event: "shadow_decision_failed",
            kind: "jobfilter",
            error: String(e),
          },
          "error",
        ),
      )
      .finally(() => {
        this.draining = false;
        // The comparisons counted here reach the deployment's metrics shards like a request's counts.
        isolateFlusher.afterRequest(this.env, this.ctx);
        this.drainShadowLater();
      });
    this.ctx.waitUntil(done);
  }

  /**
   * After a call that may have carried the counts to new rules: when that
   * made a field path new to their index, the alarm fills it, a slice each
   * time, from now on (set once per object until the alarm runs).
   */
  private keepFilling(): void {
    if (this.filling || !this.core.indexFilling()) return;
    this.filling = true;
    this.ctx.waitUntil(this.ctx.storage.setAlarm(Date.now()));
  }

  private async armAlarm(): Promise<void> {
    const next = this.core.nextExpiry();
    if (next === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }

  /** Takes a job in and decides it at once against the running jobs; a slot is taken under a lease when it may run. */
  async submit(queue: string, submission: JobSubmission, explain = false): Promise<JobStatus | QueueFailure> {
    await this.register(queue);
    await this.followCandidate();
    const { result, started } = this.core.submit(queue, submission, explain, Date.now());
    this.drainShadowLater();
    this.keepFilling();
    if (started) await this.armAlarm();
    return result;
  }

  /**
   * `submit` at most once per Idempotency-Key: the key is recorded with the
   * answer (the route's envelope around the job's status) in the same step as
   * the job, so a retry after a lost answer or a crash gets that answer back
   * and never creates a second job.
   */
  async submitOnce(
    queue: string,
    submission: JobSubmission,
    explain: boolean,
    idem: IdempotencyRequest,
    envelope: Envelope,
  ): Promise<Once<unknown>> {
    await this.register(queue);
    await this.followCandidate();
    const now = Date.now();
    const seen = this.idempotency.lookup(idem, now);
    if (seen.seen) return "mismatch" in seen ? { mismatch: true } : { replayed: true, ...seen.replay };
    const { result, started } = this.core.submit(queue, submission, explain, now);
    this.drainShadowLater();
    this.keepFilling();
    const stored: StoredAnswer = isFailure(result)
      ? { status: result.error.status, answer: result }
      : { status: 200, answer: { ...envelope, cacheable: false, ...result } };
    this.idempotency.remember(idem, stored, now);
    if (started) await this.armAlarm();
    return { replayed: false, ...stored };
  }

  /** Reports a job; a held job is decided again (it may run now, or be cancelled by a REJECT rule). */
  async check(id: number, explain = false): Promise<JobStatus | QueueFailure> {
    await this.followCandidate();
    const { result, started } = this.core.check(id, explain, Date.now());
    this.drainShadowLater();
    this.keepFilling();
    if (started) await this.armAlarm();
    return result;
  }

  /** Runs one scheduling pass over the held jobs among `ids` in that order; says what it did with each id. */
  async schedule(ids: number[]): Promise<SchedulePass | QueueFailure> {
    const { result, started } = this.core.schedule(ids, Date.now());
    this.keepFilling();
    if (started) await this.armAlarm();
    return result;
  }

  /** Renews a running job's lease; repeating it is harmless, renewing a lost lease is a conflict. */
  async heartbeat(id: number, leaseId?: string): Promise<JobStatus | QueueFailure> {
    return this.core.heartbeat(id, leaseId, Date.now());
  }

  /** Releases a job's slot; finishing a finished (or expired) job again answers the same. */
  finish(id: number): JobStatus | QueueFailure {
    const result = this.core.finish(id, Date.now());
    this.keepFilling();
    return result;
  }

  /** Cancels a job: a held one is dropped, a running one's slot released; an ended one answers its state. */
  cancel(id: number): JobStatus | QueueFailure {
    const result = this.core.cancel(id, Date.now());
    this.keepFilling();
    return result;
  }

  /** A page of jobs in `states`, newest first, below the id `before`. */
  listJobs(states: JobState[], before: number | null, limit: number): JobListing {
    return this.core.listJobs(states, before, limit, Date.now());
  }

  /** The queue's job counts and watermark. */
  summary(): QueueSummary {
    return this.core.summary(Date.now());
  }

  /** The queue's running and queued jobs (as `summary` counts them) and its expired leases, for `GET /metrics`. */
  gauges(): { running: number; queued: number; leaseExpiries: number } {
    const s = this.core.summary(Date.now());
    return { running: s.running, queued: s.queued, leaseExpiries: this.core.leaseExpiries() };
  }

  /** Records the queue's name in the registry (KV `queue:NAME`, for `GET /v1/queues`) the first time it stores a job or filter. */
  private async register(queue: string): Promise<void> {
    if (this.core.tables.meta("registered") !== undefined) return;
    await this.env.POLICIES.put(QUEUE_REGISTRY_PREFIX + queue, "");
    this.core.tables.setMeta("registered", queue);
  }

  /**
   * Registers a queue that has stored a job or filter (so it knows its name)
   * but is not in the registry: one made before the registry existed. Run
   * each time the object starts and at each alarm, so any request that
   * reaches the queue, and the lease alarm of a queue nobody calls, lists it;
   * a failed KV write is logged and retried at the next start or alarm.
   */
  private async registerStored(): Promise<void> {
    const tables = this.core.tables;
    const name = tables.meta("name");
    if (name === undefined || tables.meta("registered") !== undefined) return;
    try {
      await this.register(name);
      writeLog({ ts: new Date().toISOString(), event: "queue_registered", queue: name });
    } catch (e) {
      writeLog(
        { ts: new Date().toISOString(), event: "queue_register_failed", queue: name, error: String(e) },
        "error",
      );
    }
  }

  /**
   * Frees the slots of leases that ran out, forgets long-ended jobs, fills a
   * slice of the counts' index when a path is filling, and sets the next
   * alarm (at once while a path is still filling).
   */
  override async alarm(): Promise<void> {
    await this.registerStored();
    const now = Date.now();
    this.core.expireDue(now);
    this.core.tables.pruneEnded(now - ENDED_JOB_RETENTION_MS);
    this.filling = this.core.indexFilling() && this.core.fillIndex(INDEX_FILL_SLICE);
    const next = this.filling ? Date.now() : this.core.nextExpiry();
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }
}
