import type { FilterRule, Job, JobAction, ShareStore } from "../engines/jobfilter/index.js";
import { MemoryShares } from "../engines/jobfilter/index.js";
import type { JobState } from "./job-queue-types.js";

/** One row of the jobs table. */
export interface JobRow {
  id: number;
  job: Job;
  priority: number;
  state: JobState;
  action: JobAction;
  rule: string | null;
  lease_id: string | null;
  lease_expires: number | null;
  /** When the job was submitted (ms); null for a job stored before submission times were recorded. */
  submitted_at?: number | null;
  /** When the job first took a slot (ms); null while it has not, and for a job stored before start times were recorded. */
  started_at?: number | null;
  /** When the row was last written (ms), as read back; for an ended job, when it ended. */
  updated_at?: number;
}

/**
 * What a job queue keeps: settings, filter rules, and every job with its
 * lease. The Durable Object keeps it in SQLite (`QueueTables`); `arbiter test`
 * keeps it in memory (`MemoryQueueTables`), so both run the same queue logic.
 */
export interface QueueStore {
  /** The running counts kept with the jobs (see `RunningCounts`), restored with them when the queue starts again. */
  readonly shares: ShareStore;
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  /** The highest job id seen so far (0 before any). */
  highestJobId(): number;
  /** Raises the highest job id seen, never lowers it. */
  seeJobId(id: number): void;
  rules(): FilterRule[];
  rule(uuid: string): FilterRule | undefined;
  putRule(rule: FilterRule): void;
  deleteRule(uuid: string): boolean;
  job(id: number): JobRow | undefined;
  /** Jobs holding slots, by id. */
  running(): JobRow[];
  insertJob(row: JobRow, now: number): void;
  updateJob(row: JobRow, now: number): void;
  /** Running jobs whose lease ran out by `now`, earliest first. */
  expiredLeases(now: number): JobRow[];
  /** Forgets ended jobs last touched before `before`; returns how many. */
  pruneEnded(before: number): number;
  nextExpiry(): number | null;
  /** Up to `limit` jobs in one of `states` with an id below `before` (null: any), newest (highest id) first. */
  listJobs(states: readonly JobState[], before: number | null, limit: number): JobRow[];
  /** How many jobs the queue holds in each state. */
  countJobs(): Record<JobState, number>;
}

const ENDED: readonly JobState[] = ["finished", "expired", "cancelled"];

/**
 * The queue's tables in memory, answering as the SQLite ones do (same orders,
 * copies rather than shared objects), for running queue steps outside a
 * Durable Object.
 */
export class MemoryQueueTables implements QueueStore {
  readonly shares = new MemoryShares();
  private readonly settings = new Map<string, string>();
  private readonly filters = new Map<string, FilterRule>();
  private readonly jobs = new Map<number, { row: JobRow; updated: number }>();

  /** A setting, or undefined. */
  meta(key: string): string | undefined {
    return this.settings.get(key);
  }

  /** Stores a setting. */
  setMeta(key: string, value: string): void {
    this.settings.set(key, value);
  }

  /** The highest job id seen so far (0 before any). */
  highestJobId(): number {
    return Number(this.meta("highest_job_id") ?? "0");
  }

  /** Raises the highest job id seen, never lowers it. */
  seeJobId(id: number): void {
    if (id > this.highestJobId()) this.setMeta("highest_job_id", String(id));
  }

  /** All filter rules (unordered; the engine orders them). */
  rules(): FilterRule[] {
    return [...this.filters.values()].map((r) => structuredClone(r));
  }

  /** One rule by uuid. */
  rule(uuid: string): FilterRule | undefined {
    const r = this.filters.get(uuid);
    return r === undefined ? undefined : structuredClone(r);
  }

  /** Creates or replaces a rule. */
  putRule(rule: FilterRule): void {
    this.filters.set(rule.uuid, structuredClone(rule));
  }

  /** Deletes a rule; false when there was none. */
  deleteRule(uuid: string): boolean {
    return this.filters.delete(uuid);
  }

  /** One job, or undefined. */
  job(id: number): JobRow | undefined {
    const j = this.jobs.get(id);
    return j === undefined ? undefined : { ...structuredClone(j.row), updated_at: j.updated };
  }

  /** Jobs holding slots, by id. */
  running(): JobRow[] {
    return this.rows((r) => r.state === "running").sort((a, b) => a.id - b.id);
  }

  /** Records a new job. */
  insertJob(row: JobRow, now: number): void {
    if (this.jobs.has(row.id)) throw new Error(`job ${row.id} already exists`);
    this.jobs.set(row.id, {
      row: {
        ...structuredClone(row),
        submitted_at: row.submitted_at ?? now,
        started_at: row.started_at ?? null,
      },
      updated: now,
    });
  }

  /** Updates a job's state, decision and lease. */
  updateJob(row: JobRow, now: number): void {
    const j = this.jobs.get(row.id);
    if (j === undefined) return;
    j.row = {
      ...j.row,
      state: row.state,
      action: row.action,
      rule: row.rule,
      lease_id: row.lease_id,
      lease_expires: row.lease_expires,
      started_at: j.row.started_at ?? row.started_at ?? null,
    };
    j.updated = now;
  }

  /** Running jobs whose lease ran out by `now`, earliest first. */
  expiredLeases(now: number): JobRow[] {
    return this.rows((r) => r.state === "running" && r.lease_expires !== null && r.lease_expires <= now).sort(
      (a, b) => (a.lease_expires ?? 0) - (b.lease_expires ?? 0),
    );
  }

  /** Forgets ended jobs last touched before `before`; returns how many. */
  pruneEnded(before: number): number {
    let n = 0;
    for (const [id, j] of this.jobs) {
      if (ENDED.includes(j.row.state) && j.updated < before) {
        this.jobs.delete(id);
        n++;
      }
    }
    return n;
  }

  /** The earliest lease expiry among running jobs. */
  nextExpiry(): number | null {
    let min: number | null = null;
    for (const { row } of this.jobs.values()) {
      if (row.state === "running" && row.lease_expires !== null && (min === null || row.lease_expires < min))
        min = row.lease_expires;
    }
    return min;
  }

  /** Up to `limit` jobs in one of `states` with an id below `before` (null: any), newest first. */
  listJobs(states: readonly JobState[], before: number | null, limit: number): JobRow[] {
    return this.rows((r) => states.includes(r.state) && (before === null || r.id < before))
      .sort((a, b) => b.id - a.id)
      .slice(0, limit);
  }

  /** How many jobs the queue holds in each state. */
  countJobs(): Record<JobState, number> {
    const out: Record<JobState, number> = { queued: 0, running: 0, finished: 0, cancelled: 0, expired: 0 };
    for (const { row } of this.jobs.values()) out[row.state]++;
    return out;
  }

  private rows(keep: (r: JobRow) => boolean): JobRow[] {
    return [...this.jobs.values()]
      .filter((j) => keep(j.row))
      .map((j) => ({ ...structuredClone(j.row), updated_at: j.updated }));
  }
}
