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

/** How often a shard forgets senders silent for SENDER_MEMORY_MS (at most once an hour: a batch does not pay for it). */
export const SENDER_PRUNE_MS = 3600 * 1000;

/*
 * A batch's entries added in one statement: SQLite reads the batch as JSON text
 * (`json_each`), keeps the entries that are a text key and a positive number
 * (JSON has no NaN or infinity: `JSON.stringify` writes them as null), and adds
 * each to its key's total, making the key at the first sight of it. Rows are
 * taken in order, so a key twice in a batch gets both.
 */
const ADD_BATCH = `INSERT INTO totals (key, value)
  SELECT value ->> 0, value ->> 1 FROM json_each(?)
  WHERE json_type(value, '$[0]') = 'text' AND json_type(value, '$[1]') IN ('integer', 'real') AND value ->> 1 > 0
  ON CONFLICT (key) DO UPDATE SET value = value + excluded.value`;

/* The sender's batch number, written only when it is above the one remembered: no row written is a resend. */
const NOTE_SENDER = `INSERT INTO senders (isolate, seq, seen) VALUES (?, ?, ?)
  ON CONFLICT (isolate) DO UPDATE SET seq = excluded.seq, seen = excluded.seen WHERE excluded.seq > senders.seq`;

/**
 * One shard of the deployment's counters as a Durable Object: the running
 * total of every counter key that the isolates sending here have counted, in
 * SQLite, so totals survive restarts and only grow. A batch is a set of
 * increments numbered per isolate; one numbered at or below the last one
 * applied from that isolate is a resend (its answer was lost) and is ignored,
 * so a retried flush never counts twice. Applying a batch is one synchronous
 * transaction of two statements (the sender's number, then every entry at
 * once); only a batch that could carry the shard past SHARD_MAX_KEYS keys is
 * applied entry by entry, to drop exactly the new keys past the bound.
 */
export class MetricsShard extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  /** At least the number of keys in `totals` (each batch adds its length; recounted when the bound comes near). */
  private keys: number;
  private prunedAt = 0;
  /** The batch being applied, for `apply` (a method, so applying makes no closure). */
  private isolate = "";
  private seq = 0;
  private entries: CountEntry[] = [];
  private now = 0;
  private applied = false;
  private dropped = 0;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS totals (key TEXT PRIMARY KEY, value REAL NOT NULL);
       CREATE TABLE IF NOT EXISTS senders (isolate TEXT PRIMARY KEY, seq INTEGER NOT NULL, seen INTEGER NOT NULL);
       CREATE INDEX IF NOT EXISTS senders_seen ON senders (seen);`,
    );
    this.keys = this.countKeys();
    this.apply = this.apply.bind(this);
  }

  private countKeys(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM totals").one().n;
  }

  /** Adds one isolate's batch `seq` of increments (each a positive finite number), once. */
  add(isolate: string, seq: number, entries: CountEntry[], now: number): ShardAnswer {
    if (typeof isolate !== "string" || !Number.isSafeInteger(seq) || !Array.isArray(entries))
      throw new TypeError("add(isolate, seq, entries, now): bad arguments");
    this.isolate = isolate;
    this.seq = seq;
    this.entries = entries;
    this.now = now;
    this.applied = false;
    this.dropped = Math.max(0, entries.length - SHARD_MAX_BATCH);
    try {
      this.ctx.storage.transactionSync(this.apply);
    } finally {
      this.entries = [];
    }
    const dropped = this.dropped;
    if (dropped > 0)
      writeLog(
        { ts: new Date(now).toISOString(), event: "metrics_keys_dropped", dropped, kept: SHARD_MAX_KEYS },
        "error",
      );
    return { applied: this.applied, dropped };
  }

  /** Applies the batch `add` holds, inside its transaction. */
  private apply(): void {
    if (this.sql.exec(NOTE_SENDER, this.isolate, this.seq, this.now).rowsWritten === 0) {
      this.dropped = 0;
      return;
    }
    this.applied = true;
    const entries = this.entries;
    const n = Math.min(entries.length, SHARD_MAX_BATCH);
    if (this.keys + n > SHARD_MAX_KEYS) this.keys = this.countKeys();
    if (this.keys + n <= SHARD_MAX_KEYS) {
      // even if every key is new the bound holds: all at once
      this.sql.exec(ADD_BATCH, JSON.stringify(n === entries.length ? entries : entries.slice(0, n)));
      this.keys += n;
    } else this.addEach(entries, n);
    if (this.now - this.prunedAt >= SENDER_PRUNE_MS) {
      this.sql.exec("DELETE FROM senders WHERE seen < ?", this.now - SENDER_MEMORY_MS);
      this.prunedAt = this.now;
    }
  }

  /** Near the key bound: each entry on its own, new keys past the bound dropped and counted. */
  private addEach(entries: CountEntry[], n: number): void {
    for (let i = 0; i < n; i++) {
      const [key, v] = entries[i];
      if (typeof key !== "string" || typeof v !== "number" || !(Number.isFinite(v) && v > 0)) continue;
      if (this.sql.exec("UPDATE totals SET value = value + ? WHERE key = ?", v, key).rowsWritten > 0)
        continue;
      if (this.keys >= SHARD_MAX_KEYS) {
        this.dropped++;
        continue;
      }
      this.sql.exec("INSERT INTO totals (key, value) VALUES (?, ?)", key, v);
      this.keys++;
    }
  }

  /** Every counter key's total. */
  read(): CountEntry[] {
    return this.sql
      .exec<{ key: string; value: number }>("SELECT key, value FROM totals")
      .toArray()
      .map((r): CountEntry => [r.key, r.value]);
  }
}
