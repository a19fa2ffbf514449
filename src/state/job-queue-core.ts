import type { FilterRule, FilterSet, Job, RuleBody } from "../engines/jobfilter/index.js";
import {
  RunningCounts,
  buildFilterSet,
  decideCounted,
  schedulePass,
  traceJob,
} from "../engines/jobfilter/index.js";
import { BudgetExceeded, type Budget } from "../engines/common/budget.js";
import type { JobRow, QueueStore } from "./job-queue-store.js";
import type {
  JobListing,
  JobState,
  JobStatus,
  JobSubmission,
  QueueFailure,
  QueueSummary,
  SchedulePass,
} from "./job-queue-types.js";

/** Nanoseconds since the epoch, as Ganeti's reason trails stamp them: exact, so a bigint (past 2^53). */
function nowNs(now: number): bigint {
  return BigInt(now) * 1_000_000n;
}

/** A stored time (ms) as RFC 3339, or null when not recorded. */
function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

/** The states of a job that has ended (its row's last write is when it ended). */
const ENDED: ReadonlySet<JobState> = new Set(["finished", "cancelled", "expired"]);

function failure(
  status: 400 | 404 | 409 | 422,
  code: QueueFailure["error"]["code"],
  message: string,
): QueueFailure {
  return { error: { status, code, message } };
}

/** A scheduling pass's log outcome: how many of the held jobs it decided it started (`started_N_of_M`). */
export function scheduleOutcome(pass: SchedulePass): string {
  return `started_${pass.started.length}_of_${pass.started.length + pass.rejected.length + pass.held.length}`;
}

/** What the queue logic needs from where it runs: the lease length, new ids, and where lease expiries are logged. */
export interface QueueSettings {
  leaseMs(): number;
  /** A fresh work budget for one decision (DECISION_BUDGET). */
  budget(): Budget;
  newId(): string;
  /** Writes one log line of these fields (one JSON object). */
  log(fields: Record<string, unknown>): void;
}

/** Something told, in order, of each decision and each job that starts or ends (a candidate policy's shadow). */
export interface QueueObserver {
  /** A job was decided, before it starts if it does; `running` lists the running jobs the decision was made against. */
  decided(
    job: Job,
    decision: { action: JobRow["action"]; rule: string | null },
    request: unknown,
    running: () => Job[],
  ): void;
  started(job: Job): void;
  ended(id: number): void;
}

/** A call's answer and whether it started a job (so the Durable Object sets its alarm). */
export interface Started<T> {
  result: T;
  started: boolean;
}

/** The meta key of the queue's count of expired leases. */
const LEASE_EXPIRIES = "lease_expiries";

/**
 * One job queue over a store: its filter rules, the highest job id it has
 * seen, its running jobs with their leases, and the jobs it held or
 * cancelled. Every method is synchronous from reading slot counts to taking a
 * slot, so in a Durable Object (whose input gate serialises calls) two
 * submissions never both take the last slot; the deciding is the pure engine's.
 * The Durable Object `JobQueue` runs it over SQLite; `arbiter test` over memory.
 */
export class JobQueueCore {
  private set: FilterSet | undefined;
  /**
   * The running jobs' slots per rule and per ad-hoc bucket, so a decision costs
   * the same whatever the queue's length. Kept in the store with the jobs
   * (`tables.shares`), each change written in the same step as the job's row
   * (after it, so a failed write leaves the counts as the rows are): restored
   * from there on first use after the object starts (counted from the running
   * rows only when the store holds none, as in a queue stored before counts
   * were kept), carried to the new rules when they change (matching again only
   * the jobs the change can move, see `RunningCounts.rebase`), and kept in
   * step as jobs start and end.
   */
  private counts: RunningCounts | undefined;
  /** Told of decisions, starts and ends as they happen (see QueueObserver); nothing when no candidate is staged. */
  observer: QueueObserver | undefined;

  constructor(
    readonly tables: QueueStore,
    private readonly settings: QueueSettings,
  ) {}

  /** Stores the seed rules of a new queue once; later calls (a restarted object) change nothing. */
  seed(rules: readonly FilterRule[], revision: string): void {
    if (this.tables.meta("seeded") !== undefined) return;
    for (const rule of rules) this.tables.putRule(rule);
    this.tables.setMeta("seeded", revision);
  }

  private filterSet(): FilterSet {
    this.set ??= buildFilterSet(this.tables.rules());
    return this.set;
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

  /** Adds (uuid undefined: a new one) or replaces a rule, stamping the watermark and the luxid trail entry. */
  putFilter(queue: string, body: RuleBody, uuid: string | undefined, now: number): string {
    this.noteQueue(queue);
    const id = uuid ?? this.settings.newId();
    const rule: FilterRule = {
      uuid: id,
      watermark: this.tables.highestJobId(),
      priority: body.priority,
      predicates: body.predicates,
      action: body.action,
      reason_trail: [...body.reason, ["luxid", "", nowNs(now)]],
    };
    this.tables.putRule(rule);
    this.set = undefined;
    return id;
  }

  /** Deletes a rule; false when it does not exist. */
  deleteFilter(uuid: string): boolean {
    const deleted = this.tables.deleteRule(uuid);
    if (deleted) this.set = undefined;
    return deleted;
  }

  // ---- jobs ----

  private runningJobs(): Job[] {
    return this.tables.running().map((r) => r.job);
  }

  /** The running counts for the current rules, checked against the table (see `counts`). */
  private runningCounts(): RunningCounts {
    const set = this.filterSet();
    const shares = this.tables.shares;
    if (this.counts === undefined)
      this.counts =
        RunningCounts.restore(set, shares) ?? RunningCounts.rebuild(set, shares, this.runningJobs());
    else if (this.counts.set !== set) this.counts.rebase(set);
    return this.counts;
  }

  /** The per-rule counts as the queue holds them now, for tests and status. */
  runningSnapshot(): { rules: Record<string, number>; buckets: Record<string, number> } {
    return this.runningCounts().snapshot();
  }

  /** A job took its slot: counted for the rules, and told to the observer. */
  private jobStarted(job: Job): void {
    this.runningCounts().start(job);
    this.observer?.started(job);
  }

  /** A job gave its slot back. */
  private jobEnded(id: number): void {
    this.runningCounts().end(id);
    this.observer?.ended(id);
  }

  /** Applies a decision to a job row: takes a slot under a lease, cancels, or holds it. */
  private apply(
    row: JobRow,
    decision: { action: JobRow["action"]; rule: string | null },
    now: number,
  ): boolean {
    row.action = decision.action;
    row.rule = decision.rule;
    if (decision.action === "ACCEPT") {
      row.state = "running";
      row.started_at ??= now;
      row.lease_id = this.settings.newId();
      row.lease_expires = now + this.settings.leaseMs();
    } else if (decision.action === "REJECT") {
      row.state = "cancelled";
    } else {
      row.state = "queued";
    }
    return row.state === "running";
  }

  private status(row: JobRow): JobStatus {
    const out: JobStatus = {
      job_id: row.id,
      action: row.action,
      rule: row.rule,
      run: row.state === "running",
      state: row.state,
    };
    if (row.state === "running" && row.lease_id !== null && row.lease_expires !== null) {
      out.lease = { id: row.lease_id, expires_at: new Date(row.lease_expires).toISOString() };
    }
    return out;
  }

  /** Runs one decision under its work budget (`DECISION_BUDGET`); a spent budget is the 422 `budget_exceeded`. */
  private withinBudget<T extends object>(decide: () => T): T | QueueFailure {
    try {
      return this.settings.budget().run(decide);
    } catch (e) {
      if (e instanceof BudgetExceeded) return failure(422, "budget_exceeded", e.message);
      throw e;
    }
  }

  private explained(status: JobStatus, job: Job, explain: boolean): JobStatus {
    return explain ? { ...status, trace: traceJob(this.filterSet(), job) } : status;
  }

  /** Takes a job in and decides it at once against the running jobs; a slot is taken under a lease when it may run. */
  submit(
    queue: string,
    submission: JobSubmission,
    explain: boolean,
    now: number,
  ): Started<JobStatus | QueueFailure> {
    this.noteQueue(queue);
    this.expireDue(now);
    const id = submission.id ?? this.tables.highestJobId() + 1;
    if (this.tables.job(id) !== undefined)
      return {
        result: failure(409, "conflict", `job \`${id}\` already exists in queue \`${queue}\``),
        started: false,
      };
    const job: Job = { id, opcodes: submission.opcodes as Job["opcodes"] };
    const counts = this.runningCounts();
    // nothing is written when the decision fails (a spent work budget)
    const decision = this.withinBudget(() => decideCounted(counts, job));
    if ("error" in decision) return { result: decision, started: false };
    this.tables.seeJobId(id);
    this.observer?.decided(job, decision, submission, () => this.runningJobs());
    const row: JobRow = {
      id,
      job,
      priority: submission.priority ?? 0,
      state: "queued",
      action: "PAUSE",
      rule: null,
      lease_id: null,
      lease_expires: null,
      submitted_at: now,
      started_at: null,
    };
    const started = this.apply(row, decision, now);
    this.tables.insertJob(row, now);
    if (started) this.jobStarted(job);
    return { result: this.explained(this.status(row), job, explain), started };
  }

  /** Reports a job; a held job is decided again (it may run now, or be cancelled by a REJECT rule). */
  check(id: number, explain: boolean, now: number): Started<JobStatus | QueueFailure> {
    this.expireDue(now);
    const row = this.tables.job(id);
    if (row === undefined)
      return { result: failure(404, "not_found", `job \`${id}\` does not exist`), started: false };
    if (row.state !== "queued")
      return { result: this.explained(this.status(row), row.job, explain), started: false };
    const counts = this.runningCounts();
    const decision = this.withinBudget(() => decideCounted(counts, row.job));
    if ("error" in decision) return { result: decision, started: false };
    this.observer?.decided(
      row.job,
      decision,
      { id: row.id, opcodes: row.job.opcodes, priority: row.priority },
      () => this.runningJobs(),
    );
    const started = this.apply(row, decision, now);
    this.tables.updateJob(row, now);
    if (started) this.jobStarted(row.job);
    return { result: this.explained(this.status(row), row.job, explain), started };
  }

  /**
   * Runs one scheduling pass over the held jobs among `ids`, in that order
   * (an id named twice counts once, at its first place). Only a job that was
   * held (`queued`) when the pass began is decided; the answer says, by id,
   * which jobs this pass started, cancelled or left held, which were not held
   * (running, finished, cancelled, expired: reported, never decided again)
   * and which the queue does not know, so a caller launches exactly `started`.
   */
  schedule(ids: readonly number[], now: number): Started<SchedulePass | QueueFailure> {
    this.expireDue(now);
    const rows: JobRow[] = [];
    const unknown: number[] = [];
    const seen = new Set<number>();
    for (const id of ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      const row = this.tables.job(id);
      if (row === undefined) unknown.push(id);
      else rows.push(row);
    }
    const notHeld: SchedulePass["not_held"] = { running: [], finished: [], cancelled: [], expired: [] };
    for (const row of rows) if (row.state !== "queued") notHeld[row.state].push(row.id);
    const candidates = rows.filter((r) => r.state === "queued");
    const results = this.withinBudget(() =>
      schedulePass(
        this.filterSet(),
        this.runningJobs(),
        candidates.map((r) => r.job),
      ),
    );
    if ("error" in results) return { result: results, started: false };
    const pass: SchedulePass = { jobs: [], started: [], rejected: [], held: [], not_held: notHeld, unknown };
    candidates.forEach((row, i) => {
      const runs = this.apply(row, results[i], now);
      this.tables.updateJob(row, now);
      if (runs) this.jobStarted(row.job);
      (runs ? pass.started : row.state === "cancelled" ? pass.rejected : pass.held).push(row.id);
    });
    pass.jobs = rows.map((r) => this.status(r));
    return { result: pass, started: pass.started.length > 0 };
  }

  /** Renews a running job's lease; repeating it is harmless, renewing a lost lease is a conflict. */
  heartbeat(id: number, leaseId: string | undefined, now: number): JobStatus | QueueFailure {
    this.expireDue(now);
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state !== "running")
      return failure(409, "lease_expired", `job \`${id}\` holds no lease (it is ${row.state})`);
    if (leaseId !== undefined && leaseId !== row.lease_id)
      return failure(409, "conflict", `lease \`${leaseId}\` is not the lease of job \`${id}\``);
    row.lease_expires = now + this.settings.leaseMs();
    this.tables.updateJob(row, now);
    return this.status(row);
  }

  /** Releases a job's slot; finishing a finished (or expired) job again answers the same. */
  finish(id: number, now: number): JobStatus | QueueFailure {
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state === "cancelled" || row.state === "finished") return this.status(row);
    row.state = "finished";
    row.lease_id = null;
    row.lease_expires = null;
    this.tables.updateJob(row, now);
    this.jobEnded(id);
    return this.status(row);
  }

  /**
   * Cancels a job: a held job is dropped and a running one gives its slot
   * back, both marked `cancelled` (logged as `job_cancelled`); a job that has
   * already ended answers its state unchanged.
   */
  cancel(id: number, now: number): JobStatus | QueueFailure {
    this.expireDue(now);
    const row = this.tables.job(id);
    if (row === undefined) return failure(404, "not_found", `job \`${id}\` does not exist`);
    if (row.state !== "queued" && row.state !== "running") return this.status(row);
    const was = row.state;
    row.state = "cancelled";
    row.lease_id = null;
    row.lease_expires = null;
    this.tables.updateJob(row, now);
    if (was === "running") this.jobEnded(id);
    this.settings.log({
      ts: new Date(now).toISOString(),
      event: "job_cancelled",
      queue: this.tables.meta("name") ?? "default",
      job_id: id,
      was,
    });
    return this.status(row);
  }

  /** A page of jobs in `states`, newest first, below the id `before` (null: from the newest). */
  listJobs(states: readonly JobState[], before: number | null, limit: number, now: number): JobListing {
    this.expireDue(now);
    const rows = this.tables.listJobs(states, before, limit);
    const jobs = rows.map((r) => ({
      id: r.id,
      state: r.state,
      action: r.action,
      rule: r.rule,
      priority: r.priority,
      submitted_at: isoOrNull(r.submitted_at),
      started_at: isoOrNull(r.started_at),
      ended_at: ENDED.has(r.state) ? isoOrNull(r.updated_at) : null,
      lease_expires_at: isoOrNull(r.lease_expires),
    }));
    return { jobs, cursor: rows.length === limit ? String(rows[rows.length - 1].id) : null };
  }

  /** The queue's job counts (finished includes cancelled and expired) and its watermark (the highest job id seen). */
  summary(now: number): QueueSummary {
    this.expireDue(now);
    const n = this.tables.countJobs();
    return {
      running: n.running,
      queued: n.queued,
      finished: n.finished + n.cancelled + n.expired,
      watermark: this.tables.highestJobId(),
    };
  }

  /**
   * Frees the slots of leases that ran out by `now` and logs each; returns the
   * expired job ids. Called by the alarm and, synchronously, before any slot is
   * counted, so a late alarm never leaves a dead holder's slot taken.
   */
  expireDue(now: number): number[] {
    const queue = this.tables.meta("name") ?? "default";
    const expired: number[] = [];
    for (const row of this.tables.expiredLeases(now)) {
      const lease = row.lease_id;
      row.state = "expired";
      row.lease_id = null;
      row.lease_expires = null;
      this.tables.updateJob(row, now);
      this.jobEnded(row.id);
      expired.push(row.id);
      this.settings.log({
        ts: new Date(now).toISOString(),
        event: "lease_expired",
        queue,
        job_id: row.id,
        lease_id: lease,
      });
    }
    if (expired.length > 0)
      this.tables.setMeta(LEASE_EXPIRIES, String(this.leaseExpiries() + expired.length));
    return expired;
  }

  /** Leases that ran out in this queue since it was created (kept with the jobs, so it survives restarts and only grows). */
  leaseExpiries(): number {
    return Number(this.tables.meta(LEASE_EXPIRIES) ?? 0);
  }

  /** The earliest lease expiry among running jobs, for the next alarm. */
  nextExpiry(): number | null {
    return this.tables.nextExpiry();
  }

  /** Whether a field path new to the running counts' index, the `op` presence key added to counts indexed before it, or the whole index of counts saved before it existed, is still filling, or a regex's kept matches no longer kept still being deleted, or a group's split not yet written to its jobs' rows (see `fillIndex`). */
  indexFilling(): boolean {
    const shares = this.tables.shares;
    return (
      shares.fillingPaths().length > 0 ||
      shares.presenceFilling?.() === true ||
      shares.factsFilling?.() === true ||
      shares.memosDropping?.() === true
    );
  }

  /**
   * Indexes at most `jobs` more running jobs at the field paths a rule change
   * added to the counts' index (a new path is indexed as jobs start; the
   * jobs running before are read here, by the alarm, a slice at a time);
   * returns whether a path is still filling. Counts do not change.
   */
  fillIndex(jobs: number): boolean {
    this.tables.shares.fillIndex(jobs);
    return this.indexFilling();
  }
}
