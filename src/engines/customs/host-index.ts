/**
 * The pool laid out for selection: what decides whether a host can win —
 * network number, architecture, rating, report time, check interval, access
 * level 3 — in typed arrays scanned in order without touching the host
 * objects, and a name → position map for the requester. Only a host whose
 * rating could beat the best so far (or that must be audited) is looked at
 * further, so 100,000 hosts select in well under a millisecond.
 */
import { selectHost, type Selection, type SelectOptions, admits } from "./select.js";
import { attrsHold } from "./attrs.js";
import { permits } from "./acl.js";
import type { PreparedHost, PreparedRequest } from "./prepare.js";
import type { AccessDenial } from "./types.js";

/** A rating that never wins: unavailable hosts get it. */
const NONE = -Infinity;

/** The pool in scan order with its selection arrays, kept in step as hosts report and take jobs. */
export class HostIndex {
  private readonly hosts: PreparedHost[] = [];
  private readonly byName = new Map<string, number>();
  private net = new Int32Array(16);
  private arch = new Int32Array(16);
  private rating = new Float64Array(16);
  /** Epoch ms of the last report, NaN when unknown (never down). */
  private reportedAt = new Float64Array(16);
  private checkMs = new Float64Array(16);
  private level3 = new Uint8Array(16);
  /** How many hosts have access level 3 (their refusals are audited, so they are never passed over). */
  private level3Count = 0;

  /** Builds the index of a pool in scan order (names are unique). */
  static of(pool: readonly PreparedHost[]): HostIndex {
    const index = new HostIndex();
    for (const p of pool) index.put(p);
    return index;
  }

  /** Number of hosts. */
  get length(): number {
    return this.hosts.length;
  }

  /** The host at scan position i. */
  at(i: number): PreparedHost {
    return this.hosts[i];
  }

  /** The scan position of a host, or -1. */
  indexOf(name: string): number {
    return this.byName.get(name) ?? -1;
  }

  /** Replaces the host of the same name in place (its scan position kept), or appends a new one. */
  put(p: PreparedHost): number {
    let i = this.byName.get(p.host.name);
    if (i === undefined) {
      i = this.hosts.length;
      this.grow(i + 1);
      this.byName.set(p.host.name, i);
      this.hosts.push(p);
    } else this.hosts[i] = p;
    const h = p.host;
    this.net[i] = h.net;
    this.arch[i] = h.arch;
    this.rating[i] = p.avail.available && p.avail.rating !== null ? p.avail.rating : NONE;
    this.reportedAt[i] = h.reportedAt ?? NaN;
    this.checkMs[i] = h.checkSeconds * 1000;
    const l3 = h.access === 3 ? 1 : 0;
    this.level3Count += l3 - this.level3[i];
    this.level3[i] = l3;
    return i;
  }

  private grow(n: number): void {
    if (n <= this.net.length) return;
    const size = Math.max(n, this.net.length * 2);
    const more = <T extends Int32Array | Float64Array | Uint8Array>(a: T, make: (k: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.net = more(this.net, (k) => new Int32Array(k));
    this.arch = more(this.arch, (k) => new Int32Array(k));
    this.rating = more(this.rating, (k) => new Float64Array(k));
    this.reportedAt = more(this.reportedAt, (k) => new Float64Array(k));
    this.checkMs = more(this.checkMs, (k) => new Float64Array(k));
    this.level3 = more(this.level3, (k) => new Uint8Array(k));
  }

  /**
   * The same choice as selectHost over the same pool (the host, the audit of
   * access level 3 refusals), scanning the arrays; with `ratings` asked for it
   * is selectHost itself, which rates every host.
   */
  select(req: PreparedRequest, opts: SelectOptions): Selection {
    if (opts.ratings) return selectHost(this.hosts, req, opts);
    const r = req.request;
    const n = this.hosts.length;
    const audit: AccessDenial[] = [];
    const requesterIndex = this.indexOf(r.client);
    if (requesterIndex < 0 || this.net[requesterIndex] !== r.net) return { index: -1, audit };
    const requester = this.hosts[requesterIndex];
    const now = opts.now;
    const downMs = opts.downFactor;
    const isDown = (i: number) => now !== undefined && now - this.reportedAt[i] > downMs * this.checkMs[i];
    if (r.uselocal && requester.avail.available && !isDown(requesterIndex) && requester.host.localJobs !== 0)
      return { index: requesterIndex, audit };
    const arch = r.same ? (r.arch ?? requester.host.arch) : -1;
    const start = opts.last >= 0 && n > 0 ? (opts.last + 1) % n : 0;
    let best = -1;
    let bestRating = 0;
    const audited = this.level3Count;
    for (let k = 0; k < n; k++) {
      const i = start + k < n ? start + k : start + k - n;
      // cheap tests first, the rating before all: a host that cannot win and need not be audited is passed over
      const rating = this.rating[i];
      if (rating <= bestRating && (rating === NONE || audited === 0 || this.level3[i] === 0)) continue;
      if (this.net[i] !== r.net || i === requesterIndex) continue;
      if (arch >= 0 && this.arch[i] !== arch) continue;
      if (isDown(i)) continue;
      const p = this.hosts[i];
      if (p.clientSet !== null && !p.clientSet.has(r.client)) continue;
      if (!attrsHold(req.attrs, p.attrSet)) continue;
      if (r.exclusive && p.host.jobs > 0) continue;
      if (!permits(p.acl, req.from)) continue;
      if (!admits(p, r.user)) {
        if (this.level3[i] === 1) audit.push({ user: r.user, host: p.host.name, client: r.client });
        continue;
      }
      if (rating > bestRating) {
        best = i;
        bestRating = rating;
      }
    }
    return { index: best, audit };
  }
}
