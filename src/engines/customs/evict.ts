import type { Availability, EvictSignal, Host } from "./types.js";

/** One imported job's eviction: notice at `startedAt`, termination at `termAt`, SIGKILL at `killAt` (epoch ms). */
export interface Eviction {
  readonly permit: number;
  readonly startedAt: number;
  readonly termAt: number;
  readonly killAt: number;
  readonly signal: "SIGXCPU" | "SIGTERM";
}

/** An imported job the pool knows: its permit and when it was issued. */
export interface PermitRef {
  readonly id: number;
  readonly issuedAt: number;
}

/** A signal for the agent to deliver at an exact time, or the cancellation of one. */
export interface Instruction {
  readonly permit: number;
  readonly signal: EvictSignal;
  readonly at: number;
  readonly cancel?: true;
}

/** What a report does to a host's evictions. */
export interface EvictionPlan {
  /** Every eviction of the host after this report (kept and started). */
  readonly active: readonly Eviction[];
  readonly started: readonly Eviction[];
  readonly cancelled: readonly Eviction[];
}

/**
 * Applies one report to a host's evictions: a host no longer idle (the idle
 * criterion alone decides) starts an eviction for every imported job that has
 * none, unless eviction is disabled; a host idle again cancels every eviction
 * whose termination is still ahead. Jobs issued after `now` are untouched.
 */
export function planEvictions(
  host: Host,
  avail: Availability,
  permits: readonly PermitRef[],
  current: readonly Eviction[],
  now: number,
  killDelaySeconds: number,
): EvictionPlan {
  if (!avail.idleFails) {
    const active = current.filter((e) => now >= e.termAt);
    const cancelled = current.filter((e) => now < e.termAt);
    return { active, started: [], cancelled };
  }
  if (host.evictSeconds === 0) return { active: current, started: [], cancelled: [] };
  const evicted = new Set(current.map((e) => e.permit));
  const started: Eviction[] = [];
  for (const p of permits) {
    if (evicted.has(p.id) || p.issuedAt > now) continue;
    const termAt = now + host.evictSeconds * 1000;
    started.push({
      permit: p.id,
      startedAt: now,
      termAt,
      killAt: termAt + killDelaySeconds * 1000,
      signal: host.sigxcpu ? "SIGXCPU" : "SIGTERM",
    });
  }
  return { active: [...current, ...started], started, cancelled: [] };
}

/** The agent's instructions for a host: every pending delivery of its evictions plus the cancellations. */
export function instructionsFor(active: readonly Eviction[], cancelled: readonly Eviction[]): Instruction[] {
  const out: Instruction[] = [];
  for (const e of active) {
    out.push({ permit: e.permit, signal: "SIGUSR2", at: e.startedAt });
    out.push({ permit: e.permit, signal: e.signal, at: e.termAt });
    out.push({ permit: e.permit, signal: "SIGKILL", at: e.killAt });
  }
  for (const e of cancelled) {
    out.push({ permit: e.permit, signal: e.signal, at: e.termAt, cancel: true });
    out.push({ permit: e.permit, signal: "SIGKILL", at: e.killAt, cancel: true });
  }
  return out;
}

/** Splits evictions at `now` into those still running and those whose SIGKILL is due (the job is gone). */
export function finishedEvictions(
  evictions: readonly Eviction[],
  now: number,
): { running: Eviction[]; killed: Eviction[] } {
  const running: Eviction[] = [];
  const killed: Eviction[] = [];
  for (const e of evictions) (now >= e.killAt ? killed : running).push(e);
  return { running, killed };
}

/** The next time anything in these evictions happens after `now`, for the Durable Object's alarm. */
export function nextEvictionDeadline(evictions: readonly Eviction[], now: number): number | null {
  let next: number | null = null;
  for (const e of evictions) {
    for (const t of [e.termAt, e.killAt]) if (t > now && (next === null || t < next)) next = t;
  }
  return next;
}
