import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env.js";
import type { CountEntry } from "../metrics/counts.js";
import { writeLog } from "../log-line.js";

/** Distinct counter keys one shard keeps; a batch's new keys past it are dropped (and logged), never the known ones. */
export const SHARD_MAX_KEYS = 20_000;

/** Entries of one batch a shard applies; the rest are dropped (and logged). */
export const SHARD_MAX_BATCH = SHARD_MAX_KEYS;

/** How long a shard remembers an isolate's last batch number after its last batch (a day). */
export const SENDER_MEMORY_MS = 24 * 3600 * 1000;

/** What a shard answers a batch: whether it was applied (false: a batch number it had already applied). */
export interface ShardAnswer {
  applied: boolean;
  dropped: number;
}

/**
 * One shard of the deployment's counters as a Durable Object: the running
 * total of every counter key that the isolates sending here have counted, in
 * SQLite, so totals survive restarts and only grow. A batch is a set of
 * increments numbered per isolate; one numbered at or below the last one
 * applied from that isolate is a resend (its answer was lost) and is ignored,
 * so a retried flush never counts twice. Applying a batch is one synchronous
 * transaction.
 */
export class MetricsShard extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private keys: number;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS totals (key TEXT PRIMARY KEY, value REAL NOT NULL);
       CREATE TABLE IF NOT EXISTS senders (isolate TEXT PRIMARY KEY, seq INTEGER NOT NULL, seen INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS senders_seen ON senders (seen);`,
    );
    this.keys = this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM totals").one().n;
  }

  /** Adds one isolate's batch `seq` of increments (each a positive finite number), once. */
  add(isolate: string, seq: number, entries: CountEntry[], now: number): ShardAnswer {
    if (typeof isolate !== "string" || !Number.isSafeInteger(seq) || !Array.isArray(entries))
      throw new TypeError("add(isolate, seq, entries, now): bad arguments");
    const last = this.sql
      .exec<{ seq: number }>("SELECT seq FROM senders WHERE isolate = ?", isolate)
      .toArray()[0];
    if (last !== undefined && seq <= last.seq) return { applied: false, dropped: 0 };
    let dropped = Math.max(0, entries.length - SHARD_MAX_BATCH);
    this.ctx.storage.transactionSync(() => {
      for (const [key, n] of entries.slice(0, SHARD_MAX_BATCH)) {
        if (typeof key !== "string" || typeof n !== "number" || !(Number.isFinite(n) && n > 0)) continue;
        const known =
          this.sql.exec("UPDATE totals SET value = value + ? WHERE key = ?", n, key).rowsWritten > 0;
        if (known) continue;
        if (this.keys >= SHARD_MAX_KEYS) {
          dropped++;
          continue;
        }
        this.sql.exec("INSERT INTO totals (key, value) VALUES (?, ?)", key, n);
        this.keys++;
      }
      this.sql.exec(
        "INSERT INTO senders (isolate, seq, seen) VALUES (?, ?, ?) ON CONFLICT (isolate) DO UPDATE SET seq = excluded.seq, seen = excluded.seen",
        isolate,
        seq,
        now,
      );
      this.sql.exec("DELETE FROM senders WHERE seen < ?", now - SENDER_MEMORY_MS);
    });
    if (dropped > 0)
      writeLog(
        { ts: new Date(now).toISOString(), event: "metrics_keys_dropped", dropped, kept: SHARD_MAX_KEYS },
        "error",
      );
    return { applied: true, dropped };
  }

  /** Every counter key's total. */
  read(): CountEntry[] {
    return this.sql
      .exec<{ key: string; value: number }>("SELECT key, value FROM totals")
      .toArray()
      .map((r): CountEntry => [r.key, r.value]);
  }
}
