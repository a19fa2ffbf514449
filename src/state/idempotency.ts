import { parseExactJson, stringifyExactJson } from "../engines/common/exact-json.js";

/** How long a Durable Object remembers an `Idempotency-Key` and the answer it gave. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** How many expired keys one write forgets, so pruning never makes a request slow. */
const PRUNE_BATCH = 64;

/** What a route asks of an idempotent call: the client's key and a fingerprint of the request it came with. */
export interface IdempotencyRequest {
  key: string;
  /** A hash of the operation and the request body: the same key with another fingerprint is refused. */
  fingerprint: string;
}

/** An answer as stored with its key: the HTTP status and the body the route built. */
export interface StoredAnswer {
  status: number;
  answer: unknown;
}

/** Looking a key up: not seen (or expired), seen with this request (its answer), or seen with another request. */
export type IdempotencyLookup =
  { seen: false } | { seen: true; replay: StoredAnswer } | { seen: true; mismatch: true };

/**
 * The keys one Durable Object has answered, with their answers, in its SQLite
 * storage. A key is recorded in the same synchronous step as the write it
 * answers for, so both are committed together or not at all: a retry after a
 * crash either finds the key and the write, or neither.
 */
export class IdempotencyTable {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, answer TEXT NOT NULL, expires INTEGER NOT NULL)",
    );
    sql.exec("CREATE INDEX IF NOT EXISTS idempotency_expires ON idempotency (expires)");
  }

  /** The stored answer of a live key, or why there is none. */
  lookup(request: IdempotencyRequest, now: number): IdempotencyLookup {
    const row = this.sql
      .exec<{ fingerprint: string; answer: string; expires: number }>(
        "SELECT fingerprint, answer, expires FROM idempotency WHERE key = ?",
        request.key,
      )
      .toArray()[0];
    if (row === undefined || row.expires <= now) return { seen: false };
    if (row.fingerprint !== request.fingerprint) return { seen: true, mismatch: true };
    return { seen: true, replay: parseExactJson(row.answer) as unknown as StoredAnswer };
  }

  /** Records a key with its answer until the TTL runs out, and forgets a few expired keys. */
  remember(request: IdempotencyRequest, answer: StoredAnswer, now: number): void {
    this.sql.exec(
      "INSERT INTO idempotency (key, fingerprint, answer, expires) VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, answer = excluded.answer, expires = excluded.expires",
      request.key,
      request.fingerprint,
      stringifyExactJson(answer),
      now + IDEMPOTENCY_TTL_MS,
    );
    this.sql.exec(
      "DELETE FROM idempotency WHERE key IN (SELECT key FROM idempotency WHERE expires <= ? LIMIT ?)",
      now,
      PRUNE_BATCH,
    );
  }

  /** How many keys are remembered (expired ones not yet forgotten included), for tests. */
  size(): number {
    return this.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM idempotency").one().n;
  }
}
