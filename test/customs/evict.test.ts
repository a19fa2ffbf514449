import { describe, expect, it } from "vitest";
import {
  availability,
  BUILTIN_DEFAULTS,
  finishedEvictions,
  instructionsFor,
  nextEvictionDeadline,
  normalizeHost,
  planEvictions,
  type Host,
} from "../../src/engines/customs/index.js";

function host(extra: Record<string, unknown>): Host {
  const h = normalizeHost(
    { name: "a", address: "10.0.0.1", load: 0, swapFreePct: 50, jobs: 1, ...extra },
    BUILTIN_DEFAULTS,
  );
  if (!h.ok) throw new Error(JSON.stringify(h.error));
  return h.value;
}

const T = 1_000_000;
const permits = [
  { id: 1, issuedAt: T - 50_000 },
  { id: 2, issuedAt: T + 1 },
];

describe("eviction planning", () => {
  it("starts an eviction for each job issued by the report when the idle criterion fails", () => {
    const h = host({ idleSeconds: 10 });
    const plan = planEvictions(h, availability(h), permits, [], T, 15);
    expect(plan.started).toEqual([
      { permit: 1, startedAt: T, termAt: T + 120_000, killAt: T + 135_000, signal: "SIGTERM" },
    ]);
    expect(instructionsFor(plan.active, plan.cancelled).map((i) => i.signal)).toEqual([
      "SIGUSR2",
      "SIGTERM",
      "SIGKILL",
    ]);
  });

  it("ignores other criteria: a loaded but idle host is not evicted", () => {
    const h = host({ idleSeconds: 5000, load: 9 });
    expect(availability(h).reason).toBe("AVAIL_LOAD");
    expect(planEvictions(h, availability(h), permits, [], T, 15).started).toEqual([]);
  });

  it("cancels only the evictions whose termination is still ahead", () => {
    const h = host({ idleSeconds: 5000 });
    const early = {
      permit: 1,
      startedAt: T - 10_000,
      termAt: T + 110_000,
      killAt: T + 125_000,
      signal: "SIGTERM" as const,
    };
    const late = {
      permit: 3,
      startedAt: T - 130_000,
      termAt: T - 10_000,
      killAt: T + 5_000,
      signal: "SIGXCPU" as const,
    };
    const plan = planEvictions(h, availability(h), permits, [early, late], T, 15);
    expect(plan.cancelled).toEqual([early]);
    expect(plan.active).toEqual([late]);
    expect(instructionsFor([], plan.cancelled).every((i) => i.cancel === true)).toBe(true);
  });

  it("uses SIGXCPU when the host has it and the policy's kill delay", () => {
    const h = host({ idleSeconds: 1, sigxcpu: true, evictSeconds: 60 });
    const [e] = planEvictions(h, availability(h), permits, [], T, 30).started;
    expect(e).toMatchObject({ signal: "SIGXCPU", termAt: T + 60_000, killAt: T + 90_000 });
  });

  it("finds the next deadline and the jobs whose SIGKILL is due", () => {
    const e = {
      permit: 1,
      startedAt: T,
      termAt: T + 120_000,
      killAt: T + 135_000,
      signal: "SIGTERM" as const,
    };
    expect(nextEvictionDeadline([e], T)).toBe(T + 120_000);
    expect(nextEvictionDeadline([e], T + 120_000)).toBe(T + 135_000);
    expect(nextEvictionDeadline([e], T + 135_000)).toBeNull();
    expect(finishedEvictions([e], T + 134_999).killed).toEqual([]);
    expect(finishedEvictions([e], T + 135_000).killed).toEqual([e]);
  });
});
