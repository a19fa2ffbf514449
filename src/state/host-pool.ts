import { DurableObject } from "cloudflare:workers";
import type { Host, HostRequest } from "../engines/customs/index.js";
import type { Env } from "../env.js";
import {
  allocationAnswer,
  HostPoolCore,
  type AllocateResult,
  type HostListing,
  type OnceAllocation,
  type PoolPolicy,
  type ReportResult,
} from "./host-pool-core.js";
import { PoolTables } from "./host-pool-sql.js";
import { POOL_REGISTRY_PREFIX } from "./pool-registry.js";
import { IdempotencyTable, type IdempotencyRequest } from "./idempotency.js";
import type { Envelope } from "./job-queue-types.js";

export { allocationAnswer, listingAnswer, reportAnswer } from "./host-pool-core.js";
export type {
  AllocateResult,
  HostListing,
  OnceAllocation,
  PoolPolicy,
  ReportResult,
} from "./host-pool-core.js";

/**
 * The host pool of one network number as a Durable Object: the pool logic
 * (`HostPoolCore`) over SQLite, the idempotency table, and the alarm that
 * wakes the pool at its next eviction or permit deadline. Methods stay
 * synchronous from reading the pool to writing the allocation.
 */
export class HostPool extends DurableObject<Env> {
  private readonly core: HostPoolCore;
  private readonly idempotency: IdempotencyTable;
  private readonly tables: PoolTables;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.tables = new PoolTables(ctx.storage.sql);
    this.core = new HostPoolCore(this.tables);
    this.idempotency = new IdempotencyTable(ctx.storage.sql);
  }

  private async schedule(now: number): Promise<void> {
    const next = this.core.nextDeadline(now);
    if (next === null) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(Math.max(next, now));
  }

  /** A host agent's report: see `HostPoolCore.report`. */
  async report(p: PoolPolicy, host: Host, now: number): Promise<ReportResult> {
    this.ctx.waitUntil(this.register(host.net));
    const result = this.core.report(p, host, now);
    await this.schedule(now);
    return result;
  }

  /** Picks a host for a request and issues its permit; the host counts one more imported job until it reports. */
  async allocate(p: PoolPolicy, request: HostRequest, now: number, explain = false): Promise<AllocateResult> {
    const result = this.core.allocate(p, request, now, explain);
    await this.schedule(now);
    return result;
  }

  /**
   * `allocate` at most once per Idempotency-Key: the key and the answer are
   * recorded in the same step as the permit, so a retried allocation gets the
   * first permit back instead of taking a second one.
   */
  async allocateOnce(
    p: PoolPolicy,
    request: HostRequest,
    now: number,
    idem: IdempotencyRequest,
    envelope: Envelope,
    explain = false,
  ): Promise<OnceAllocation> {
    const seen = this.idempotency.lookup(idem, now);
    if (seen.seen) return "mismatch" in seen ? { mismatch: true } : { replayed: true, ...seen.replay };
    const result = this.core.allocate(p, request, now, explain);
    const answer = allocationAnswer(result, envelope, explain);
    this.idempotency.remember(idem, { status: 200, answer }, now);
    await this.schedule(now);
    return { replayed: false, status: 200, answer, accessDenied: result.accessDenied };
  }

  /** Releases a permit when its job ends; false when the pool does not know it on that host. */
  async finish(hostName: string, permitId: number, now: number): Promise<boolean> {
    const released = this.core.finish(hostName, permitId);
    if (released) await this.schedule(now);
    return released;
  }

  /** Every host with its availability, rating and whether it is down. */
  list(p: PoolPolicy, now: number): HostListing[] {
    return this.core.list(p, now);
  }

  /** A page of the listing in registration order: see `HostPoolCore.listPage`. */
  listPage(
    p: PoolPolicy,
    now: number,
    after: number,
    limit: number,
  ): { hosts: HostListing[]; next: number | null } {
    return this.core.listPage(p, now, after, limit);
  }

  /** Removes a host and revokes its permits: see `HostPoolCore.remove`. */
  async remove(name: string, now: number): Promise<{ revoked: number[] } | null> {
    const removed = this.core.remove(name);
    await this.schedule(now);
    return removed;
  }

  /** The effective access list of a host (customs' `acl(host)` debugging call), or null when unknown. */
  acl(name: string): string[] | null {
    return this.core.acl(name);
  }

  /**
   * Advances the pool's deadlines to `now`: jobs whose SIGKILL time has come are
   * gone (their permits released) and lapsed permits are dropped. The alarm
   * calls it with the clock; tests may call it with any time.
   */
  async tick(now: number): Promise<{ killed: number[]; lapsed: number[] }> {
    const result = this.core.tick(now);
    await this.schedule(now);
    return result;
  }

  /** Every host's availability counted, for `GET /metrics`: see `list`. */
  hostCounts(p: PoolPolicy, now: number): { available: number; unavailable: number } {
    let available = 0;
    const hosts = this.core.list(p, now);
    for (const h of hosts) if (h.available) available++;
    return { available, unavailable: hosts.length - available };
  }

  /** Records the pool's network number in the registry (KV `pool:NET`, for `GET /metrics`) the first time a host reports to it. */
  private async register(net: number): Promise<void> {
    const tables = this.tables;
    if (tables.meta("registered") !== undefined) return;
    await this.env.POLICIES.put(POOL_REGISTRY_PREFIX + String(net), "");
    tables.setMeta("registered", String(net));
  }

  /** The alarm: eviction and lease deadlines. */
  override async alarm(): Promise<void> {
    await this.tick(Date.now());
  }
}
