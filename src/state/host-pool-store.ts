import type { Eviction, Host } from "../engines/customs/index.js";

/** One stored host: its last report (as normalized) and the allocations since. */
export interface HostRow {
  seq: number;
  host: Host;
  reportedAt: number;
  pending: number;
}

/** One permit: an allocation the pool counts as an imported job until it is finished, killed or lapses. */
export interface PermitRow {
  id: number;
  host: string;
  client: string;
  user: string;
  issuedAt: number;
  expiresAt: number;
  /** Whether the permit is still counted in the host's `pending` (issued after its last report). */
  counted: boolean;
}

/**
 * What the host pool keeps: settings, hosts in registration order, permits and
 * evictions. The Durable Object keeps it in SQLite (`PoolTables`); `arbiter
 * test` keeps it in memory (`MemoryPoolTables`), so both run the same pool logic.
 */
export interface PoolStore {
  meta(key: string): string | undefined;
  setMeta(key: string, value: string): void;
  hosts(): HostRow[];
  host(name: string): HostRow | undefined;
  /** Records a report: the first one fixes the host's position; every one clears the allocations counted since. */
  saveReport(host: Host, now: number): void;
  setPending(name: string, pending: number): void;
  addPermit(p: PermitRow): void;
  permit(id: number): PermitRow | undefined;
  permitsOf(host: string): PermitRow[];
  expiredPermits(now: number): PermitRow[];
  /** Drops a permit and any eviction of it. */
  removePermit(id: number): void;
  /** Forgets a host (its permits and evictions must be removed first). */
  removeHost(name: string): void;
  evictionsOf(host: string): Eviction[];
  allEvictions(): Eviction[];
  addEviction(host: string, e: Eviction): void;
  removeEviction(permit: number): void;
  nextPermitExpiry(): number | null;
}

const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
const byPermit = (a: Eviction, b: Eviction) => a.permit - b.permit;

/**
 * The pool's tables in memory, answering as the SQLite ones do (same orders,
 * copies rather than shared objects), for running host pool steps outside a
 * Durable Object.
 */
export class MemoryPoolTables implements PoolStore {
  private readonly settings = new Map<string, string>();
  private readonly hostRows = new Map<string, HostRow>();
  private readonly permits = new Map<number, PermitRow>();
  private readonly evictions = new Map<number, { host: string; eviction: Eviction }>();
  private seq = 0;

  /** A setting, or undefined. */
  meta(key: string): string | undefined {
    return this.settings.get(key);
  }

  /** Stores a setting. */
  setMeta(key: string, value: string): void {
    this.settings.set(key, value);
  }

  /** Every host in registration order. */
  hosts(): HostRow[] {
    return [...this.hostRows.values()].sort((a, b) => a.seq - b.seq).map(copyHost);
  }

  /** One host, or undefined. */
  host(name: string): HostRow | undefined {
    const row = this.hostRows.get(name);
    return row === undefined ? undefined : copyHost(row);
  }

  /** Records a report, keeping the host's position; the permits it had are no longer counted as pending. */
  saveReport(host: Host, now: number): void {
    const seq = this.hostRows.get(host.name)?.seq ?? ++this.seq;
    this.hostRows.set(host.name, { seq, host: structuredClone(host), reportedAt: now, pending: 0 });
    for (const p of this.permits.values()) if (p.host === host.name) p.counted = false;
  }

  /** Sets the number of allocations a host has had since its last report. */
  setPending(name: string, pending: number): void {
    const row = this.hostRows.get(name);
    if (row !== undefined) row.pending = pending;
  }

  /** Stores a new permit. */
  addPermit(p: PermitRow): void {
    this.permits.set(p.id, { ...p });
  }

  /** One permit, or undefined. */
  permit(id: number): PermitRow | undefined {
    const p = this.permits.get(id);
    return p === undefined ? undefined : { ...p };
  }

  /** The live permits of a host. */
  permitsOf(host: string): PermitRow[] {
    return [...this.permits.values()]
      .filter((p) => p.host === host)
      .sort(byId)
      .map((p) => ({ ...p }));
  }

  /** Permits whose lease ran out by `now`. */
  expiredPermits(now: number): PermitRow[] {
    return [...this.permits.values()]
      .filter((p) => p.expiresAt <= now)
      .sort(byId)
      .map((p) => ({ ...p }));
  }

  /** Drops a permit and any eviction of it. */
  removePermit(id: number): void {
    this.permits.delete(id);
    this.evictions.delete(id);
  }

  /** Forgets a host. */
  removeHost(name: string): void {
    this.hostRows.delete(name);
  }

  /** The evictions in progress on a host. */
  evictionsOf(host: string): Eviction[] {
    return [...this.evictions.values()]
      .filter((e) => e.host === host)
      .map((e) => ({ ...e.eviction }))
      .sort(byPermit);
  }

  /** Every eviction in progress. */
  allEvictions(): Eviction[] {
    return [...this.evictions.values()].map((e) => ({ ...e.eviction })).sort(byPermit);
  }

  /** Stores a new eviction. */
  addEviction(host: string, e: Eviction): void {
    this.evictions.set(e.permit, { host, eviction: { ...e } });
  }

  /** Drops a cancelled eviction (the permit stays). */
  removeEviction(permit: number): void {
    this.evictions.delete(permit);
  }

  /** The earliest permit expiry, for the alarm. */
  nextPermitExpiry(): number | null {
    let min: number | null = null;
    for (const p of this.permits.values()) if (min === null || p.expiresAt < min) min = p.expiresAt;
    return min;
  }
}

function copyHost(row: HostRow): HostRow {
  return { ...row, host: structuredClone(row.host) };
}
