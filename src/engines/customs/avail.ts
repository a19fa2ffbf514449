import type { Availability, Host } from "./types.js";

const IDLE_BITS = [1, 2, 4, 8] as const;

/**
 * The host's idle time under its idlecrit: the smallest reported idle time of
 * the selected sources (several bits are a disjunction of activities), or
 * undefined when none of them is measurable. A plain `idleSeconds` is taken as is.
 */
export function idleTime(h: Host): number | undefined {
  if (h.idleSeconds !== undefined) return Math.floor(h.idleSeconds);
  if (!h.idle) return undefined;
  let min: number | undefined;
  for (const bit of IDLE_BITS) {
    if ((h.idleCrit & bit) === 0) continue;
    const s = h.idle[String(bit) as "1"];
    if (s !== undefined && (min === undefined || s < min)) min = s;
  }
  return min === undefined ? undefined : Math.floor(min);
}

/**
 * Evaluates the customs criteria in their fixed order (idle, swap, load,
 * imports, procs) and the rating, with loads in 1/256 fixed point as the
 * kernel reports them; `jobs` lets an allocation count the job it just placed.
 */
export function availability(h: Host, jobs: number = h.jobs): Availability {
  let rating = h.bias;
  const idle = h.minIdleSeconds > 0 ? idleTime(h) : undefined;
  if (idle !== undefined) {
    if (idle < h.minIdleSeconds)
      return { available: false, rating: null, reason: "AVAIL_IDLE", idleFails: true };
    rating += idle - h.minIdleSeconds;
  }
  if (h.minSwapPct > 0) {
    const swap = Math.floor(h.swapFreePct);
    if (swap < h.minSwapPct)
      return { available: false, rating: null, reason: "AVAIL_SWAP", idleFails: false };
    rating += swap - h.minSwapPct;
  }
  if (h.maxLoad > 0) {
    const l = Math.floor(h.load * 256);
    const m = Math.floor(h.maxLoad * 256);
    if (l > m) return { available: false, rating: null, reason: "AVAIL_LOAD", idleFails: false };
    rating += m - l;
  }
  if (h.maxJobs > 0 && jobs >= h.maxJobs)
    return { available: false, rating: null, reason: "AVAIL_IMPORTS", idleFails: false };
  if (h.minFreeProcs > 0 && h.freeProcs !== undefined && h.freeProcs < h.minFreeProcs) {
    return { available: false, rating: null, reason: "AVAIL_PROC", idleFails: false };
  }
  rating -= 200 * jobs;
  return { available: true, rating, idleFails: false };
}

/** Whether a host has been silent too long: longer than `downFactor` times its reporting interval. */
export function isDown(h: Host, now: number | undefined, downFactor: number): boolean {
  if (now === undefined || h.reportedAt === undefined) return false;
  return now - h.reportedAt > downFactor * h.checkSeconds * 1000;
}
