import type { Eviction } from "../engines/customs/index.js";
import type { Host } from "../engines/customs/index.js";
import type { HostRow, PermitRow, PoolStore } from "./host-pool-store.js";

export type { HostRow, PermitRow } from "./host-pool-store.js";

/** The pool's tables: settings, hosts in registration order, permits (imported jobs) and evictions. */
export const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS hosts (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     name TEXT NOT NULL UNIQUE,
     host TEXT NOT NULL,
     reported_at INTEGER NOT NULL,
     pending INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE IF NOT EXISTS permits (
     id INTEGER PRIMARY KEY,
     host TEXT NOT NULL,
     client TEXT NOT NULL,
     user TEXT NOT NULL,
     issued_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL,
     counted INTEGER NOT NULL)`,
  "CREATE INDEX IF NOT EXISTS permits_host ON permits (host)",
  `CREATE TABLE IF NOT EXISTS evictions (
     permit INTEGER PRIMARY KEY,
     host TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     term_at INTEGER NOT NULL,
     kill_at INTEGER NOT NULL,
     signal TEXT NOT NULL)`,
];

type Raw = Record<string, SqlStorageValue>;

const toHost = (r: Raw): HostRow => ({
  seq: r.seq as number,
  host: JSON.parse(r.host as string) as Host,
  reportedAt: r.reported_at as number,
  pending: r.pending as number,
});

const toPermit = (r: Raw): PermitRow => ({
  id: r.id as number,
  host: r.host as string,
  client: r.client as string,
  user: r.user as string,
  issuedAt: r.issued_at as number,
  expiresAt: r.expires_at as number,
  counted: (r.counted as number) === 1,
});

const toEviction = (r: Raw): Eviction => ({
  permit: r.permit as number,
  startedAt: r.started_at as number,
  termAt: r.term_at as number,
  killAt: r.kill_at as number,
  signal: r.signal as Eviction["signal"],
});

/**
 * Synchronous accessors over the pool's SQLite tables. Every method returns
 * before another request can enter the object, which is what keeps a slot from
 * being handed out twice.
 */
export class PoolTables implements PoolStore {
  constructor(private readonly sql: SqlStorage) {
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /** A setting, or undefined. */
  meta(key: string): string | undefined {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value;
  }

  /** Stores a setting. */
  setMeta(key: string, value: string): void {
    this.sql.exec(
      "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      key,
      value,
    );
  }

  /** Every host in registration order. */
  hosts(): HostRow[] {
    return this.sql
      .exec<Raw>("SELECT seq, host, reported_at, pending FROM hosts ORDER BY seq")
      .toArray()
      .map(toHost);
  }

  /** One host, or undefined. */
  host(name: string): HostRow | undefined {
    const r = this.sql
      .exec<Raw>("SELECT seq, host, reported_at, pending FROM hosts WHERE name = ?", name)
      .toArray()[0];
    return r ? toHost(r) : undefined;
  }

  /** Records a report: the first one fixes the host's position; every one clears the allocations counted since. */
  saveReport(host: Host, now: number): void {
    this.sql.exec(
      `INSERT INTO hosts (name, host, reported_at, pending) VALUES (?, ?, ?, 0)
       ON CONFLICT (name) DO UPDATE SET host = excluded.host, reported_at = excluded.reported_at, pending = 0`,
      host.name,
      JSON.stringify(host),
      now,
    );
    this.sql.exec("UPDATE permits SET counted = 0 WHERE host = ?", host.name);
  }

  /** Sets the number of allocations a host has had since its last report. */
  setPending(name: string, pending: number): void {
    this.sql.exec("UPDATE hosts SET pending = ? WHERE name = ?", pending, name);
  }

  /** Stores a new permit. */
  addPermit(p: PermitRow): void {
    this.sql.exec(
      "INSERT INTO permits (id, host, client, user, issued_at, expires_at, counted) VALUES (?, ?, ?, ?, ?, ?, ?)",
      p.id,
      p.host,
      p.client,
      p.user,
      p.issuedAt,
      p.expiresAt,
      p.counted ? 1 : 0,
    );
  }

  /** One permit, or undefined. */
  permit(id: number): PermitRow | undefined {
    const row = this.sql.exec<Raw>("SELECT * FROM permits WHERE id = ?", id).toArray()[0];
    return row ? toPermit(row) : undefined;
  }

  /** The live permits of a host. */
  permitsOf(host: string): PermitRow[] {
    return this.sql
      .exec<Raw>("SELECT * FROM permits WHERE host = ? ORDER BY id", host)
      .toArray()
      .map(toPermit);
  }

  /** Permits whose lease ran out by `now`. */
  expiredPermits(now: number): PermitRow[] {
    return this.sql
      .exec<Raw>("SELECT * FROM permits WHERE expires_at <= ? ORDER BY id", now)
      .toArray()
      .map(toPermit);
  }

  /** Drops a permit and any eviction of it. */
  removePermit(id: number): void {
    this.sql.exec("DELETE FROM permits WHERE id = ?", id);
    this.sql.exec("DELETE FROM evictions WHERE permit = ?", id);
  }

  /** Forgets a host. */
  removeHost(name: string): void {
    this.sql.exec("DELETE FROM hosts WHERE name = ?", name);
  }

  /** The evictions in progress on a host. */
  evictionsOf(host: string): Eviction[] {
    return this.sql
      .exec<Raw>("SELECT * FROM evictions WHERE host = ? ORDER BY permit", host)
      .toArray()
      .map(toEviction);
  }

  /** Every eviction in progress. */
  allEvictions(): Eviction[] {
    return this.sql.exec<Raw>("SELECT * FROM evictions ORDER BY permit").toArray().map(toEviction);
  }

  /** Stores a new eviction. */
  addEviction(host: string, e: Eviction): void {
    this.sql.exec(
      "INSERT INTO evictions (permit, host, started_at, term_at, kill_at, signal) VALUES (?, ?, ?, ?, ?, ?)",
      e.permit,
      host,
      e.startedAt,
      e.termAt,
      e.killAt,
      e.signal,
    );
  }

  /** Drops a cancelled eviction (the permit stays). */
  removeEviction(permit: number): void {
    this.sql.exec("DELETE FROM evictions WHERE permit = ?", permit);
  }

  /** The earliest permit expiry, for the alarm. */
  nextPermitExpiry(): number | null {
    return (
      this.sql.exec<{ t: number | null }>("SELECT MIN(expires_at) AS t FROM permits").toArray()[0]?.t ?? null
    );
  }
}
