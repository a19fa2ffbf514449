import type { EngineName } from "../engines/common/engine.js";

/** How many history records the coordinator keeps; a bundle no kept record names is deleted from KV. */
export const HISTORY_KEPT = 100;

/** What moved the pointer. */
export type HistoryAction = "publish" | "promote" | "rollback";

/** One engine a change touched: its source digest after the change, and before (null when it had none). */
export interface EngineChange {
  engine: EngineName;
  source_sha256: string | null;
  previous_sha256: string | null;
}

/** One change of the active revision, as `GET /v1/policies/history` lists it. */
export interface HistoryRecord {
  /** Increases by one per change; the newest record has the highest. */
  sequence: number;
  revision: string;
  previous: string;
  action: HistoryAction;
  engines: EngineChange[];
  at: string;
  /** The role of the token that made the change (`admin`), or `open` when auth is off. */
  role: string;
  /** The `X-Arbiter-Change-Note` header, when one was sent. */
  note?: string;
}

/** What a new record says; the sequence number is the table's. */
export type NewHistoryRecord = Omit<HistoryRecord, "sequence">;

interface Row extends Record<string, SqlStorageValue> {
  seq: number;
  revision: string;
  previous: string;
  action: string;
  engines: string;
  at: string;
  role: string;
  note: string | null;
}

/**
 * The coordinator's table of policy changes: one row per publish, promotion and
 * rollback, the newest HISTORY_KEPT kept. Written in the same object that moves
 * the pointer, so the history and the pointer never disagree about order.
 */
export class PolicyHistory {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT, revision TEXT NOT NULL, previous TEXT NOT NULL, action TEXT NOT NULL, engines TEXT NOT NULL, at TEXT NOT NULL, role TEXT NOT NULL, note TEXT)",
    );
  }

  /** Adds a record and drops the oldest past the bound; answers the revisions the dropped records named. */
  add(record: NewHistoryRecord): string[] {
    this.sql.exec(
      "INSERT INTO history (revision, previous, action, engines, at, role, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
      record.revision,
      record.previous,
      record.action,
      JSON.stringify(record.engines),
      record.at,
      record.role,
      record.note ?? null,
    );
    const old = this.sql
      .exec<{ revision: string; previous: string }>(
        "SELECT revision, previous FROM history WHERE seq <= (SELECT MAX(seq) FROM history) - ?",
        HISTORY_KEPT,
      )
      .toArray();
    if (old.length === 0) return [];
    this.sql.exec("DELETE FROM history WHERE seq <= (SELECT MAX(seq) FROM history) - ?", HISTORY_KEPT);
    return old.flatMap((r) => [r.revision, r.previous]);
  }

  /** The newest records first, at most `limit`. */
  list(limit: number): HistoryRecord[] {
    return this.sql
      .exec<Row>(
        "SELECT seq, revision, previous, action, engines, at, role, note FROM history ORDER BY seq DESC LIMIT ?",
        limit,
      )
      .toArray()
      .map(fromRow);
  }

  /** Whether a kept record names the revision (as the one it made active, or the one it replaced). */
  keeps(revision: string): boolean {
    return (
      this.sql
        .exec("SELECT 1 FROM history WHERE revision = ? OR previous = ? LIMIT 1", revision, revision)
        .toArray().length > 0
    );
  }
}

function fromRow(row: Row): HistoryRecord {
  const record: HistoryRecord = {
    sequence: row.seq,
    revision: row.revision,
    previous: row.previous,
    action: row.action as HistoryAction,
    engines: JSON.parse(row.engines) as EngineChange[],
    at: row.at,
    role: row.role,
  };
  if (row.note !== null) record.note = row.note;
  return record;
}
