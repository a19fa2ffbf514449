import { permits } from "./acl.js";
import { attrsHold } from "./attrs.js";
import { isDown } from "./avail.js";
import type { PreparedHost, PreparedRequest } from "./prepare.js";
import type { AccessDenial, ExclusionReason } from "./types.js";

/** How one selection runs: the clock, the down factor and the round-robin position. */
export interface SelectOptions {
  /** Epoch ms; undefined skips down detection (every host counts as just reported). */
  readonly now?: number;
  readonly downFactor: number;
  /** Index in the pool of the host allocated last, or -1 when none was. */
  readonly last: number;
  /** Build the per-host ratings map (for `eval` and listings; the DO's hot path skips it). */
  readonly ratings: boolean;
}

/** The outcome of one selection. */
export interface Selection {
  /** Index of the chosen host in the pool, or -1: also the new round-robin position. */
  readonly index: number;
  readonly ratings?: Record<string, number | string>;
  /** Refusals by access level 3 hosts, to be logged by the caller. */
  readonly audit: readonly AccessDenial[];
}

/** Whether a host's access level admits a user (levels 1-3 check the local users and shells). */
export function admits(p: PreparedHost, user: string): boolean {
  const level = p.host.access;
  if (level === 0) return true;
  const users = p.host.users;
  if (!users || !Object.hasOwn(users, user)) return false;
  return level === 1 || p.shellSet.has(users[user]);
}

function exclusion(p: PreparedHost, req: PreparedRequest, requester: PreparedHost): ExclusionReason | null {
  const h = p.host;
  const r = req.request;
  if (p === requester) return "self";
  if (h.net !== r.net) return "net";
  if (r.same && h.arch !== (r.arch ?? requester.host.arch)) return "arch";
  if (p.clientSet !== null && !p.clientSet.has(r.client)) return "clients";
  if (!attrsHold(req.attrs, p.attrSet)) return "attrs";
  if (r.exclusive && h.jobs > 0) return "exclusive";
  if (!permits(p.acl, req.from)) return "acl";
  if (!admits(p, r.user)) return "access";
  return null;
}

/**
 * Picks the host for a request the customs way: the candidate with the highest
 * rating above 0, ties going to the first in circular scan order after the
 * host allocated last, so equal hosts take turns.
 */
export function selectHost(
  pool: readonly PreparedHost[],
  req: PreparedRequest,
  opts: SelectOptions,
): Selection {
  const r = req.request;
  const n = pool.length;
  const ratings: Record<string, number | string> | undefined = opts.ratings ? {} : undefined;
  const audit: AccessDenial[] = [];
  let requesterIndex = -1;
  for (let i = 0; i < n; i++) {
    if (pool[i].host.name === r.client) {
      requesterIndex = i;
      break;
    }
  }
  const requester =
    requesterIndex >= 0 && pool[requesterIndex].host.net === r.net ? pool[requesterIndex] : undefined;
  const down = (p: PreparedHost) => isDown(p.host, opts.now, opts.downFactor);
  if (requester === undefined) {
    if (ratings)
      for (const p of pool) ratings[p.host.name] = unavailableOr(p, down(p), "excluded:unknown-client");
    return { index: -1, ratings, audit };
  }
  if (r.uselocal && requester.avail.available && !down(requester) && requester.host.localJobs !== 0) {
    if (ratings)
      for (const p of pool)
        ratings[p.host.name] = unavailableOr(
          p,
          down(p),
          p === requester ? requester.avail.rating! : "excluded:uselocal",
        );
    return { index: requesterIndex, ratings, audit };
  }
  const start = opts.last >= 0 && n > 0 ? (opts.last + 1) % n : 0;
  let best = -1;
  let bestRating = 0;
  for (let k = 0; k < n; k++) {
    const i = start + k < n ? start + k : start + k - n;
    const p = pool[i];
    if (!p.avail.available || down(p)) {
      if (ratings) ratings[p.host.name] = unavailableOr(p, down(p), 0);
      continue;
    }
    const why = exclusion(p, req, requester);
    if (why !== null) {
      if (why === "access" && p.host.access === 3)
        audit.push({ user: r.user, host: p.host.name, client: r.client });
      if (ratings) ratings[p.host.name] = `excluded:${why}`;
      continue;
    }
    const rating = p.avail.rating!;
    if (ratings) ratings[p.host.name] = rating;
    if (rating > bestRating) {
      best = i;
      bestRating = rating;
    }
  }
  return { index: best, ratings: ratings && inPoolOrder(pool, ratings), audit };
}

function unavailableOr(p: PreparedHost, down: boolean, otherwise: number | string): number | string {
  if (down) return "unavailable:AVAIL_DOWN";
  if (!p.avail.available) return `unavailable:${p.avail.reason}`;
  return otherwise;
}

function inPoolOrder(
  pool: readonly PreparedHost[],
  ratings: Record<string, number | string>,
): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const p of pool) out[p.host.name] = ratings[p.host.name];
  return out;
}
