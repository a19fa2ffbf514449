import { DurableObject } from "cloudflare:workers";
import type { FilterRule, FilterSet, Job, JobfilterPolicy, RuleBody } from "../engines/jobfilter/index.js";
import { RunningCounts, buildFilterSet, decideCounted, schedulePass, traceJob } from "../engines/jobfilter/index.js";
import { BudgetExceeded, decisionBudget } from "../engines/common/budget.js";
import { numberVar, type Env } from "../env.js";
import { IdempotencyTable, type IdempotencyRequest, type StoredAnswer } from "./idempotency.js";
import { getActiveBundle } from "./policy-store.js";
import { QueueTables, type JobRow } from "./job-queue-sql.js";
import { isFailure, type Envelope, type JobStatus, type JobSubmission, type Once, type QueueFailure } from "./job-queue-types.js";

/** How long a finished, expired or cancelled job stays reportable before the alarm forgets it. */
export const ENDED_JOB_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** Nanoseconds since the epoch, as Ganeti's reason trails stamp them: exact, so a bigint (past 2^53). */
function nowNs(now: number): bigint {
  return BigInt(now) * 1_000_000n;
}

function failure(status: 400 | 404 | 409 | 422, code: QueueFailure["error"]["code"], message: string): QueueFailure {
  return { error: { status, code, message } };
}

/**
 * One job queue (one per queue name): its filter rules, the highest job id it
 * has seen, its running jobs with their leases, and the jobs it held or
 * cancelled. Methods are thin and synchronous between reading slot counts and
 * taking a slot, so concurrent requests (serialised by the object's input
 * gate) can never both take the last slot; the deciding is the pure engine's.
 */
export class JobQueue extends DurableObject<Env> {
  private readonly tables: QueueTables;
  private readonly idempotency: IdempotencyTable;
  private set: FilterSet | undefined;
  /**
   * The running jobs' slots per rule and per ad-hoc bucket, so a decision costs
   * the same whatever the queue's length. Never stored, so never trusted from
   * storage: built from the running rows on first use after the object starts
   * or the rules change, and kept in step as jobs start and end (each change
   * after its row is written, so a failed write leaves the counts as the rows are).
   */
  private counts: RunningCounts | undefined;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.tables = new QueueTables(ctx.storage.sql);
    this.idempotency = new IdempotencyTable(ctx.storage.sql);
    void ctx.blockConcurrencyWhile(async () => {
      if (this.tables.meta("seeded") !== undefined) return;
      const bundle = await getActiveBundle(env);
      const policy = bundle.policy<JobfilterPolicy>("jobfilter");
      for (const rule of policy?.rules ?? []) this.tables.putRule(rule);
      this.tables.setMeta("seeded", bundle.revision);
    });
  }

  private filterSet(): FilterSet {
    this.set ??= buildFilterSet(this.tables.rules());
    return this.set;
  }

  private leaseMs(): number {
    return numberVar(this.env.LEASE_SECONDS, 600) * 1000;
  }

  private noteQueue(queue: string): void {
    if (this.tables.meta("name") !== queue) this.tables.setMeta("name", queue);
  }

  // ---- filter rules (the /2/filters resource) ----

  /** Every rule, sorted by uuid as the RAPI lists them. */
  listFilters(): FilterRule[] {
    return this.tables.rules().sort((a, b) => (a.uuid < b.uuid ? -1 : a.uuid > b.uuid ? 1 : 0));
  }

  /** One rule, or null. */
  getFilter(uuid: string): FilterRule | null {
    return this.tables.rule(uuid) ?? null;
  }

  /** Adds (uuid undefined: a new v4 uuid) or replaces a rule, stamping the watermark and the luxid trail entry. */
  putFilter(queue: string, body: RuleBody, uuid?: string): string {
    this.noteQueue(queue);
    const id = uuid ?? crypto.randomUUID();
    const rule: FilterRule = {
      uuid: id,
      watermark: this.tables.highestJobId(),
      priority: body.priority,
      predicates: body.predicates,
      action: body.action,
      reason_trail: [...body.reason, ["luxid", "", nowNs(Date.now())]],
    };
    this.tables.putRule(rule);
    this.set = undefined;
    return id;
  }

  /** `putFilter` for a new rule at most once per Idempotency-Key: a retry answers the uuid the first call made. */
  putFilterOnce(queue: string, body: RuleBody, idem: IdempotencyRequest): Once<string> {
    const now = Date.now();
    const seen = this.idempotency.lookup(idem, now);
    if (seen.seen) return "mismatch" in seen ? { mismatch: true } : { replayed: true, status: seen.replay.status, answer: seen.replay.answer as string };
    const uuid = this.putFilter(queue, body);
    this.idempotency.remember(idem, { status: 200, answer: uuid }, now);
    return { replayed: false, status: 200, answer: uuid };
  }

  /** Deletes a rule; false when it does not exist. */
  deleteFilter(uuid: string): boolean {
    const deleted = this.tables.deleteRule(uuid);
    if (deleted) this.set = undefined;
    return deleted;
  }

  /** The highest job id seen, for tests and status. */
  highestJobId(): number {
    return this.tables.highestJobId();
  }

  // ---- jobs ----

  private runningJobs(): Job[] {
    return this.tables.running().map((r) => r.job);
  }

  /** The running counts for the current rules, checked against the table (see `counts`). */
  private runningCounts(): RunningCounts {
    const set = this.filterSet();
    if (this.counts === undefined || this.counts.set !== set) {
      this.counts = RunningCounts.of(set, this.runningJobs());
    }
    return this.counts;
  }

  /** The per-rule counts as the object holds them now, for tests and status. */
  runningSnapshot(): { rules: Record<string, number>; buckets: Record<string, number> } {
    return this.runningCounts().snapshot();
  }

  /** Applies a decision to a job row: takes a slot under a lease, cancels, or holds it. */
  private apply(row: JobRow, decision: { action: JobRow["action"]; rule: string | null }, now: number): boolean {
    row.action = decision.action;
    row.rule = decision.rule;
    if (decision.action === "ACCEPT") {
      row.state = "running";
      row.lease_id = crypto.randomUUID();
      row.lease_expires = now + this.leaseMs();
    } else if (decision.action === "REJECT") {
      row.state = "cancelled";
    } else {
      row.state = "queued";
    }
    return row.state === "running";
  }

  private status(row: JobRow): JobStatus {
    const out: JobStatus = { job_id: row.id, action: row.action, rule: row.rule, run: row.state === "running", state: row.state };
    if (row.state === "running" && row.lease_id !== null && row.lease_expires !== null) {
      out.lease = { id: row.lease_id, expires_at: new Date(row.lease_expires).toISOString() };
    }
    return out;
  }

  private async armAlarm(): Promise<void> {
    const next = this.tables.nextExpiry();
    if (next === null) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }

  /** Takes a job in and decides it at once against the running jobs; a slot is taken under a lease when it may run. */
  async submit(queue: string, submission: JobSubmission, explain = false): Promise<JobStatus | QueueFailure> {
    const { result, started } = this.submitNow(queue, submission, explain, Date.now());
    if (started) await this.armAlarm();
    return result;
  }

  /**
   * `submit` at most once per Idempotency-Key: the key is recorded with the
   * answer (the route's envelope around the job's status) in the same step as
   * the job, so a retry after a lost answer or a crash gets that answer back
   * and never creates a second job.
   */
  async submitOnce(queue: string, submission: JobSubmission, explain: boolean, idem: IdempotencyRequest, envelope: Envelope): Promise<Once<unknown>> {
    const now = Date.now();
    const seen = this.idempotency.lookup(idem, now);
    if (seen.seen) return "mismatch" in seen ? { mismatch: true } : { replayed: true, ...seen.replay };
    const { result, started } = this.submitNow(queue, submission, explain, now);
    const stored: StoredAnswer = isFailure(result)
      ? { status: result.error.status, answer: result }
      : { status: 200, answer: { ...envelope, cacheable: false, ...result } };
    this.idempotency.remember(idem, stored, now);
    if (started) await this.armAlarm();
    return { replayed: false, ...stored };
  }

  /** The synchronous part of a submission: from reading the running jobs to recording the job, with no await between. */
  private submitNow(queue: string, submission: JobSubmission, explain: boolean, now: number): { result: JobStatus | QueueFailure; started: boolean } {
    this.noteQueue(queue);
    this.expireDue(now);
    const id = submission.id ?? this.tables.highestJobId() + 1;
    if (this.tables.job(id) !== undefined) return { result: failure(409, "conflict", `job \`${id}\` already exists in queue \`${queue}\``), started: false };
    const job: Job = { id, opcodes: submission.opcodes as Job["opcodes"] };
    const counts = this.runningCounts();
    // nothing is written when the decision fails (a spent work budget)
    const decision = this.withinBudget(() => decideCounted(counts, job));
    if ("error" in decision) return { result: decision, started: false };
    this.tables.seeJobId(id);
    const row: JobRow = { id, job, priority: submission.priority ?? 0, state: "queued", action: "PAUSE", rule: null, lease_id: null, lease_expires: null };
    const started = this.apply(row, decision, now);
    this.tables.insertJob(row, now);
    if (started) counts.start(job);
    return { result: this.explained(this.status(row), job, explain), started };
  }

  /** Reports a job; a held job is decided again (it may run now, or be cancelled by a REJECT rule). */
  async check(id: number, explain = false): Promise<JobStatus | QueueFailure> {
    const now = Date.now();
    this.expireDue(now);
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state !== "queued") return this.explained(this.status(row), row.job, explain);
    const counts = this.runningCounts();
    const decision = this.withinBudget(() => decideCounted(counts, row.job));
    if ("error" in decision) return decision;
    const started = this.apply(row, decision, now);
    this.tables.updateJob(row, now);
    if (started) counts.start(row.job);
    if (started) await this.armAlarm();
    return this.explained(this.status(row), row.job, explain);
  }

  /** Runs one decision under its work budget (`DECISION_BUDGET`); a spent budget is the 422 `budget_exceeded`. */
  private withinBudget<T extends object>(decide: () => T): T | QueueFailure {
    try {
      return decisionBudget(this.env.DECISION_BUDGET).run(decide);
    } catch (e) {
      if (e instanceof BudgetExceeded) return failure(422, "budget_exceeded", e.message);
      throw e;
    }
  }

  private explained(status: JobStatus, job: Job, explain: boolean): JobStatus {
    return explain ? { ...status, trace: traceJob(this.filterSet(), job) } : status;
  }

  /** Runs one scheduling pass over held jobs in the given order; returns every job's status in that order. */
  async schedule(ids: number[]): Promise<JobStatus[] | QueueFailure> {
    const now = Date.now();
    this.expireDue(now);
    const rows: JobRow[] = [];
    for (const id of ids) {
      const row = this.tables.job(id);
      if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
      rows.push(row);
    }
    const candidates = rows.filter((r) => r.state === "queued");
    const results = this.withinBudget(() => schedulePass(this.filterSet(), this.runningJobs(), candidates.map((r) => r.job)));
    if ("error" in results) return results;
    let started = false;
    candidates.forEach((row, i) => {
      const runs = this.apply(row, results[i], now);
      this.tables.updateJob(row, now);
      if (runs) this.counts?.start(row.job);
      started = runs || started;
    });
    if (started) await this.armAlarm();
    return rows.map((r) => this.status(r));
  }

  /** Renews a running job's lease; repeating it is harmless, renewing a lost lease is a conflict. */
  async heartbeat(id: number, leaseId?: string): Promise<JobStatus | QueueFailure> {
    this.expireDue(Date.now());
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state !== "running") return failure(409, "lease_expired", `job \`${id}\` holds no lease (it is ${row.state})`);
    if (leaseId !== undefined && leaseId !== row.lease_id) return failure(409, "conflict", `lease \`${leaseId}\` is not the lease of job \`${id}\``);
    const now = Date.now();
    row.lease_expires = now + this.leaseMs();
    this.tables.updateJob(row, now);
    return this.status(row);
  }

  /** Releases a job's slot; finishing a finished (or expired) job again answers the same. */
  finish(id: number): JobStatus | QueueFailure {
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state === "cancelled" || row.state === "finished") return this.status(row);
    row.state = "finished";
    row.lease_id = null;
    row.lease_expires = null;
    this.tables.updateJob(row, Date.now());
    this.counts?.end(id);
    return this.status(row);
  }

  /**
   * Frees the slots of leases that ran out by `now` and logs each. Called by
   * the alarm and, synchronously, before any slot is counted, so a late alarm
   * never leaves a dead holder's slot taken.
   */
  private expireDue(now: number): void {
    const queue = this.tables.meta("name") ?? "default";
    for (const row of this.tables.expiredLeases(now)) {
      const lease = row.lease_id;
      row.state = "expired";
      row.lease_id = null;
      row.lease_expires = null;
      this.tables.updateJob(row, now);
      this.counts?.end(row.id);
      console.log(JSON.stringify({ ts: new Date(now).toISOString(), event: "lease_expired", queue, job_id: row.id, lease_id: lease }));
    }
  }

  /** Frees the slots of leases that ran out, forgets long-ended jobs, and sets the next alarm. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    this.expireDue(now);
    this.tables.pruneEnded(now - ENDED_JOB_RETENTION_MS);
    const next = this.tables.nextExpiry();
    if (next !== null) await this.ctx.storage.setAlarm(next);
  }
}
