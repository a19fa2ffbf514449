import {
  finishedEvictions,
  instructionsFor,
  isDown,
  loadCustomsPolicy,
  nextEvictionDeadline,
  planEvictions,
  prepareHost,
  prepareRequest,
  withJobs,
  HostIndex,
  type AccessDenial,
  type AvailReason,
  type CustomsPolicy,
  type CustomsPolicyData,
  type Host,
  type HostRequest,
  type Instruction,
  type JobLimits,
  type PreparedHost,
} from "../engines/customs/index.js";
import type { HostRow, PoolStore } from "./host-pool-store.js";
import type { Envelope, Once } from "./job-queue-types.js";

/** The policy a call runs under: the compiled data and the revision it came with. */
export interface PoolPolicy {
  readonly revision: string;
  readonly data: CustomsPolicyData;
}

/** The answer to a host agent's report. */
export interface ReportResult {
  available: boolean;
  rating: number | null;
  reason?: AvailReason;
  interval: number;
  limits: JobLimits;
  instructions: Instruction[];
}

/** The answer to an allocation. */
export interface AllocateResult {
  host: string | null;
  address: string | null;
  permit: { id: number; expiresAt: number } | null;
  limits: JobLimits | null;
  accessDenied: AccessDenial[];
  /** With `explain`: every host's customs rating, or why it was unavailable or excluded. */
  ratings?: Record<string, number | string>;
}

/** One host as the listing shows it. */
export interface HostListing {
  name: string;
  address: string;
  available: boolean;
  rating: number | null;
  reason?: AvailReason;
  down: boolean;
  jobs: number;
  pending: number;
  reportedAt: number;
  permits: number[];
}

interface Slot {
  row: HostRow;
  /** The host as last reported, prepared. */
  reported: PreparedHost;
  /** The host with the allocations since its report counted. */
  current: PreparedHost;
}

/** An idempotent allocation's result; a new one also names the access refusals to log. */
export type OnceAllocation = Once<unknown> & { accessDenied?: AccessDenial[] };

/**
 * The allocation answer the API gives: the route's envelope, the host, the
 * permit and the limits. Built here so an idempotent allocation can store the
 * very answer the route sends.
 */
export function allocationAnswer(result: AllocateResult, envelope: Envelope, explain = false) {
  return {
    ...envelope,
    cacheable: false as const,
    host: result.host,
    address: result.address,
    permit: result.permit
      ? { id: result.permit.id, expires_at: new Date(result.permit.expiresAt).toISOString() }
      : null,
    limits: result.limits,
    ...(result.host === null ? { reason: "no host available" } : {}),
    ...(explain ? { trace: { ratings: result.ratings ?? {} } } : {}),
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A report's answer as the API sends it: instruction times as ISO 8601. */
export function reportAnswer(result: ReportResult) {
  return {
    ...result,
    instructions: result.instructions.map((i: Instruction) => ({
      permit: i.permit,
      signal: i.signal,
      at: iso(i.at),
      ...(i.cancel ? { cancel: true as const } : {}),
    })),
  };
}

/** A network's listing as the API sends it: each host naming its network, report times as ISO 8601. */
export function listingAnswer(net: number, hosts: HostListing[]) {
  return { net, hosts: hosts.map(({ reportedAt, ...h }) => ({ net, ...h, reported_at: iso(reportedAt) })) };
}

const limitsOf = (h: Host): JobLimits => ({
  cpuSeconds: h.cpuSeconds,
  memoryKb: h.memoryKb,
  nice: h.nice,
  npri: h.npri,
});

/**
 * The host pool of one network number, playing customs' master agent, over a
 * store: host reports, allocations with permits, evictions and their deadlines.
 * Every method is synchronous from reading the pool to writing the allocation,
 * so in a Durable Object (whose input gate serialises calls) one slot is never
 * handed out twice; rating and selection are the pure engine's. The Durable
 * Object `HostPool` runs it over SQLite and sets its alarm; `arbiter test` runs
 * it over memory.
 */
export class HostPoolCore {
  private slots: Slot[] | undefined;
  private byName = new Map<string, number>();
  /** The hosts as selection scans them (each slot's current form), rebuilt from the stored rows on load. */
  private index = new HostIndex();
  private policyCache: { revision: string; policy: CustomsPolicy } | undefined;

  constructor(readonly tables: PoolStore) {}

  private policy(p: PoolPolicy): CustomsPolicy {
    if (this.policyCache?.revision !== p.revision)
      this.policyCache = { revision: p.revision, policy: loadCustomsPolicy(p.data) };
    return this.policyCache.policy;
  }

  private slotOf(row: HostRow): Slot {
    const prepared = prepareHost({ ...row.host, reportedAt: row.reportedAt });
    if (!prepared.ok)
      throw new Error(`stored host ${row.host.name} no longer prepares: ${prepared.error[0]?.message}`);
    return { row, reported: prepared.value, current: withJobs(prepared.value, row.host.jobs + row.pending) };
  }

  private pool(): Slot[] {
    if (this.slots === undefined) {
      this.slots = this.tables.hosts().map((row) => this.slotOf(row));
      this.byName = new Map(this.slots.map((s, i) => [s.row.host.name, i]));
      this.index = HostIndex.of(this.slots.map((s) => s.current));
    }
    return this.slots;
  }

  private setPending(name: string, pending: number): void {
    this.tables.setPending(name, pending);
    const i = this.byName.get(name);
    const slots = this.pool();
    if (i === undefined) return;
    const slot = slots[i];
    slot.row = { ...slot.row, pending };
    slot.current = withJobs(slot.reported, slot.reported.host.jobs + pending);
    this.index.put(slot.current);
  }

  /** Forgets a permit: finished, killed or lapsed; an allocation still counted is uncounted. */
  private release(id: number): boolean {
    const permit = this.tables.permit(id);
    if (!permit) return false;
    this.tables.removePermit(id);
    if (permit.counted) {
      const i = this.byName.get(permit.host);
      if (i !== undefined) this.setPending(permit.host, Math.max(0, this.pool()[i].row.pending - 1));
    }
    return true;
  }

  /** The next deadline the alarm must wake for (an eviction signal or a permit's lapse), or null. */
  nextDeadline(now: number): number | null {
    return [nextEvictionDeadline(this.tables.allEvictions(), now), this.tables.nextPermitExpiry()]
      .filter((t): t is number => t !== null)
      .reduce<number | null>((a, b) => (a === null || b < a ? b : a), null);
  }

  /**
   * A host agent's report (register and report in one): stores the host, clears
   * the allocations counted since its last report, starts or cancels evictions
   * and answers the agent's instructions.
   */
  report(p: PoolPolicy, host: Host, now: number): ReportResult {
    const policy = this.policy(p);
    this.pool();
    this.tables.saveReport(host, now);
    const row = this.tables.host(host.name)!;
    const slot = this.slotOf(row);
    const i = this.byName.get(host.name);
    if (i === undefined) {
      this.byName.set(host.name, this.slots!.length);
      this.slots!.push(slot);
    } else this.slots![i] = slot;
    this.index.put(slot.current);
    const avail = slot.reported.avail;
    const permits = this.tables.permitsOf(host.name).map((q) => ({ id: q.id, issuedAt: q.issuedAt }));
    const plan = planEvictions(
      slot.reported.host,
      avail,
      permits,
      this.tables.evictionsOf(host.name),
      now,
      policy.killDelaySeconds,
    );
    for (const e of plan.started) this.tables.addEviction(host.name, e);
    for (const e of plan.cancelled) this.tables.removeEviction(e.permit);
    return {
      available: avail.available,
      rating: avail.rating,
      ...(avail.reason ? { reason: avail.reason } : {}),
      interval: host.checkSeconds,
      limits: limitsOf(host),
      instructions: instructionsFor(plan.active, plan.cancelled),
    };
  }

  /** Picks a host for a request and issues its permit; the host counts one more imported job until it reports. */
  allocate(p: PoolPolicy, request: HostRequest, now: number, explain = false): AllocateResult {
    const policy = this.policy(p);
    const prepared = prepareRequest(request);
    if (!prepared.ok) throw new Error(`unvalidated request reached the pool: ${prepared.error[0]?.message}`);
    const slots = this.pool();
    const lastName = this.tables.meta("last");
    const last = lastName === undefined ? -1 : (this.byName.get(lastName) ?? -1);
    const sel = this.index.select(prepared.value, {
      now,
      downFactor: policy.downFactor,
      last,
      ratings: explain,
    });
    const ratings = sel.ratings ? { ratings: sel.ratings } : {};
    if (sel.index < 0)
      return {
        host: null,
        address: null,
        permit: null,
        limits: null,
        accessDenied: [...sel.audit],
        ...ratings,
      };
    const slot = slots[sel.index];
    const host = slot.reported.host;
    const id = Number(this.tables.meta("permits") ?? "0") + 1;
    this.tables.setMeta("permits", String(id));
    this.tables.setMeta("last", host.name);
    const expiresAt = now + policy.permitSeconds * 1000;
    this.tables.addPermit({
      id,
      host: host.name,
      client: request.client,
      user: request.user,
      issuedAt: now,
      expiresAt,
      counted: true,
    });
    this.setPending(host.name, slot.row.pending + 1);
    return {
      host: host.name,
      address: host.address,
      permit: { id, expiresAt },
      limits: limitsOf(host),
      accessDenied: [...sel.audit],
      ...ratings,
    };
  }

  /** Releases a permit when its job ends; false when the pool does not know it on that host. */
  finish(hostName: string, permitId: number): boolean {
    this.pool();
    const permit = this.tables.permit(permitId);
    if (!permit || permit.host !== hostName) return false;
    this.release(permitId);
    return true;
  }

  /**
   * Removes a host from the pool: its permits are revoked (their evictions with
   * them), and it is no longer selected until it reports again. Null when the
   * pool does not know the host.
   */
  remove(name: string): { revoked: number[] } | null {
    this.pool();
    if (!this.byName.has(name)) return null;
    const revoked = this.tables.permitsOf(name).map((p) => p.id);
    for (const id of revoked) this.tables.removePermit(id);
    this.tables.removeHost(name);
    if (this.tables.meta("last") === name) this.tables.setMeta("last", "");
    // the other hosts keep their prepared forms (access lists and all): only their positions move
    const slots = this.pool();
    slots.splice(this.byName.get(name)!, 1);
    this.byName = new Map(slots.map((s, i) => [s.row.host.name, i]));
    this.index = HostIndex.of(slots.map((s) => s.current));
    return { revoked };
  }

  /** Every host with its availability, rating and whether it is down. */
  list(p: PoolPolicy, now: number): HostListing[] {
    return this.listPage(p, now, 0, Infinity).hosts;
  }

  /**
   * At most `limit` hosts registered after the one numbered `after` (0: from
   * the first), in registration order, as `list` shows them; `next` is the
   * number to pass as `after` for the rest, null when none are left.
   */
  listPage(
    p: PoolPolicy,
    now: number,
    after: number,
    limit: number,
  ): { hosts: HostListing[]; next: number | null } {
    const slots = this.pool();
    // slots are in registration (seq) order: the first one after `after` by bisection
    let from = 0;
    for (let hi = slots.length; from < hi;) {
      const mid = (from + hi) >>> 1;
      if (slots[mid].row.seq <= after) from = mid + 1;
      else hi = mid;
    }
    const page = slots.slice(from, from + limit);
    const next = from + limit < slots.length && page.length > 0 ? page[page.length - 1].row.seq : null;
    return { hosts: this.listed(p, now, page), next };
  }

  private listed(p: PoolPolicy, now: number, slots: Slot[]): HostListing[] {
    const policy = this.policy(p);
    return slots.map((s) => {
      const h = s.current.host;
      const down = isDown(h, now, policy.downFactor);
      const a = s.current.avail;
      return {
        name: h.name,
        address: h.address,
        available: a.available && !down,
        rating: down ? null : a.rating,
        ...(down ? { reason: "AVAIL_DOWN" as const } : a.reason ? { reason: a.reason } : {}),
        down,
        jobs: s.reported.host.jobs,
        pending: s.row.pending,
        reportedAt: s.row.reportedAt,
        permits: this.tables.permitsOf(h.name).map((q) => q.id),
      };
    });
  }

  /** The effective access list of a host (customs' `acl(host)` debugging call), or null when unknown. */
  acl(name: string): string[] | null {
    const slots = this.pool();
    const i = this.byName.get(name);
    return i === undefined ? null : [...slots[i].reported.acl.entries];
  }

  /**
   * Advances the pool's deadlines to `now`: jobs whose SIGKILL time has come are
   * gone (their permits released) and lapsed permits are dropped.
   */
  tick(now: number): { killed: number[]; lapsed: number[] } {
    this.pool();
    const { killed } = finishedEvictions(this.tables.allEvictions(), now);
    for (const e of killed) this.release(e.permit);
    const lapsed = this.tables.expiredPermits(now).map((q) => q.id);
    for (const id of lapsed) this.release(id);
    return { killed: killed.map((e) => e.permit), lapsed };
  }
}
