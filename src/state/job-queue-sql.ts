import { parseExactJson, stringifyExactJson } from "../engines/common/exact-json.js";
import type { FilterRule, Job, JobAction } from "../engines/jobfilter/index.js";
import { SqlShares } from "./running-shares-sql.js";
import type { JobState } from "./job-queue-types.js";
import type { JobRow, QueueStore } from "./job-queue-store.js";

export type { JobRow } from "./job-queue-store.js";

/** The queue's tables: settings, filter rules, and every job it has seen with its lease. */
export const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  "CREATE TABLE IF NOT EXISTS filters (uuid TEXT PRIMARY KEY, rule TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS jobs (
     id INTEGER PRIMARY KEY,
     job TEXT NOT NULL,
     priority INTEGER NOT NULL,
     state TEXT NOT NULL,
     action TEXT NOT NULL,
     rule TEXT,
     lease_id TEXT,
     lease_expires INTEGER,
     updated_at INTEGER NOT NULL,
     submitted_at INTEGER,
     started_at INTEGER)`,
  "CREATE INDEX IF NOT EXISTS jobs_state ON jobs (state, lease_expires)",
  "CREATE INDEX IF NOT EXISTS jobs_updated ON jobs (state, updated_at)",
];

/**
 * Columns added after the first release, each nullable so that rows stored
 * before it still load (their value reads as null). A table created by an
 * older release gets them with `ALTER TABLE`, once per object (the meta key
 * `jobs_columns` records it was done).
 */
const ADDED_COLUMNS = ["submitted_at INTEGER", "started_at INTEGER"];
const COLUMNS_VERSION = "2";

type Raw = Record<string, SqlStorageValue>;

function toRow(r: Raw): JobRow {
  return {
    id: r.id as number,
    job: parseExactJson(r.job as string) as unknown as Job,
    priority: r.priority as number,
    state: r.state as JobState,
    action: r.action as JobAction,
    rule: (r.rule as string | null) ?? null,
    lease_id: (r.lease_id as string | null) ?? null,
    lease_expires: (r.lease_expires as number | null) ?? null,
    submitted_at: (r.submitted_at as number | null | undefined) ?? null,
    started_at: (r.started_at as number | null | undefined) ?? null,
    updated_at: r.updated_at as number,
  };
}

/**
 * Synchronous accessors over the queue's SQLite tables. Every call returns
 * before any other request can run in the object, which is what keeps slot
 * counting exact under concurrent submissions.
 */
export class QueueTables implements QueueStore {
  readonly shares: SqlShares;

  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCHEMA) sql.exec(statement);
    this.shares = new SqlShares(sql);
    if (this.meta("jobs_columns") !== COLUMNS_VERSION) {
      const have = new Set(
        sql
          .exec<{ name: string }>("PRAGMA table_info(jobs)")
          .toArray()
          .map((c) => c.name),
      );
      for (const column of ADDED_COLUMNS) {
        if (!have.has(column.split(" ")[0])) sql.exec(`ALTER TABLE jobs ADD COLUMN ${column}`);
      }
      this.setMeta("jobs_columns", COLUMNS_VERSION);
    }
  }

  /** A setting, or undefined. */
  meta(key: string): string | undefined {
    const rows = this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray();
    return rows[0]?.value;
  }

  /** Stores a setting. */
  setMeta(key: string, value: string): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
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
    return this.sql
      .exec<{ rule: string }>("SELECT rule FROM filters")
      .toArray()
      .map((r) => parseExactJson(r.rule) as unknown as FilterRule);
  }

  /** One rule by uuid. */
  rule(uuid: string): FilterRule | undefined {
    const rows = this.sql.exec<{ rule: string }>("SELECT rule FROM filters WHERE uuid = ?", uuid).toArray();
    return rows[0] ? (parseExactJson(rows[0].rule) as unknown as FilterRule) : undefined;
  }

  /** Creates or replaces a rule. */
  putRule(rule: FilterRule): void {
    this.sql.exec(
      "INSERT INTO filters (uuid, rule) VALUES (?, ?) ON CONFLICT (uuid) DO UPDATE SET rule = excluded.rule",
      rule.uuid,
      stringifyExactJson(rule),
    );
  }

  /** Deletes a rule; false when there was none. */
  deleteRule(uuid: string): boolean {
    return this.sql.exec("DELETE FROM filters WHERE uuid = ?", uuid).rowsWritten > 0;
  }

  /** One job, or undefined. */
  job(id: number): JobRow | undefined {
    const rows = this.sql.exec<Raw>("SELECT * FROM jobs WHERE id = ?", id).toArray();
    return rows[0] ? toRow(rows[0]) : undefined;
  }

  /** Jobs holding slots. */
  running(): JobRow[] {
    return this.sql.exec<Raw>("SELECT * FROM jobs WHERE state = 'running' ORDER BY id").toArray().map(toRow);
  }

  /** Records a new job. */
  insertJob(row: JobRow, now: number): void {
    this.sql.exec(
      "INSERT INTO jobs (id, job, priority, state, action, rule, lease_id, lease_expires, updated_at, submitted_at, started_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      row.id,
      stringifyExactJson(row.job),
      row.priority,
      row.state,
      row.action,
      row.rule,
      row.lease_id,
      row.lease_expires,
      now,
      row.submitted_at ?? now,
      row.started_at ?? null,
    );
  }

  /** Updates a job's state, decision and lease. */
  updateJob(row: JobRow, now: number): void {
    this.sql.exec(
      "UPDATE jobs SET state = ?, action = ?, rule = ?, lease_id = ?, lease_expires = ?, updated_at = ?, started_at = COALESCE(started_at, ?) WHERE id = ?",
      row.state,
      row.action,
      row.rule,
      row.lease_id,
      row.lease_expires,
      now,
      row.started_at ?? null,
      row.id,
    );
  }

  /** Running jobs whose lease ran out by `now`. */
  expiredLeases(now: number): JobRow[] {
    return this.sql
      .exec<Raw>(
        "SELECT * FROM jobs WHERE state = 'running' AND lease_expires <= ? ORDER BY lease_expires",
        now,
      )
      .toArray()
      .map(toRow);
  }

  /** Forgets finished, expired and cancelled jobs last touched before `before`; returns how many. */
  pruneEnded(before: number): number {
    return this.sql.exec(
      "DELETE FROM jobs WHERE state IN ('finished', 'expired', 'cancelled') AND updated_at < ?",
      before,
    ).rowsWritten;
  }

  /** The earliest lease expiry among running jobs, for the next alarm. */
  nextExpiry(): number | null {
    const rows = this.sql
      .exec<{ t: number | null }>("SELECT MIN(lease_expires) AS t FROM jobs WHERE state = 'running'")
      .toArray();
    return rows[0]?.t ?? null;
  }

  /** Up to `limit` jobs in one of `states` with an id below `before` (null: any), newest first (the primary key walks it). */
  listJobs(states: readonly JobState[], before: number | null, limit: number): JobRow[] {
    const marks = states.map(() => "?").join(", ");
    return this.sql
      .exec<Raw>(
        `SELECT * FROM jobs WHERE state IN (${marks}) AND id < ? ORDER BY id DESC LIMIT ?`,
        ...states,
        before ?? Number.MAX_SAFE_INTEGER,
        limit,
      )
      .toArray()
      .map(toRow);
  }

  /** How many jobs the queue holds in each state. */
  countJobs(): Record<JobState, number> {
    const out: Record<JobState, number> = { queued: 0, running: 0, finished: 0, cancelled: 0, expired: 0 };
    for (const r of this.sql.exec<{ state: JobState; n: number }>(
      "SELECT state, COUNT(*) AS n FROM jobs GROUP BY state",
    ))
      out[r.state] = r.n;
    return out;
  }
}
