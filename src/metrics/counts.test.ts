/**
 * The flusher's delta walk against the plain count: after any mix of recordings,
 * each walk reports exactly `countDelta(registryCounts(r), what was sent)`, and
 * the walks' entries summed per key give exactly `registryCounts(r)`, the fresh
 * count, however the recordings fell between walks.
 */
import { describe, expect, it } from "vitest";
import { countDelta, DeltaWalk, registryCounts, type CountEntry } from "./counts.js";
import { MetricsRegistry } from "./registry.js";

/** A seeded mix of everything a registry counts. */
function record(r: MetricsRegistry, seed: number, n: number): number {
  let x = seed;
  const rnd = (k: number) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x % k;
  };
  const engines = ["limits", "placement", "match", "customs", "jobfilter"];
  const caches = ["hit", "miss", "bypass", undefined] as const;
  for (let i = 0; i < n; i++) {
    const e = engines[rnd(5)];
    switch (rnd(6)) {
      case 0:
      case 1:
        r.decision(
          e,
          ["allowed", "placed", "matched", "made_up", "budget_exceeded"][rnd(5)],
          caches[rnd(4)],
          [0, 1, 3, 40, 20000][rnd(5)],
          rnd(7) === 0,
        );
        break;
      case 2:
        r.objectCall(["JobQueue", "HostPool"][rnd(2)], ["submit", "status"][rnd(2)], rnd(300), rnd(5) !== 0);
        break;
      case 3:
        r.httpAnswer(
          r.httpSeries(["GET", "POST"][rnd(2)], ["/v1/place", "/v1/limits"][rnd(2)]),
          [200, 404, 503, 302, 700][rnd(5)],
        );
        break;
      case 4:
        r.shadowComparison(e, rnd(3) !== 0);
        break;
      default:
        if (rnd(2) === 0) r.replay(["/v1/queues/{queue}/jobs", "/v1/hosts/{name}"][rnd(2)]);
        else r.analyticsErrors++;
    }
  }
  return x;
}

const sorted = (entries: Iterable<CountEntry>) => [...entries].sort((a, b) => (a[0] < b[0] ? -1 : 1));

describe("DeltaWalk", () => {
  it("reports what moved since the last walk, and sums to the fresh count", () => {
    const r = new MetricsRegistry();
    const walk = new DeltaWalk(r);
    let sent = new Map<string, number>();
    const summed = new Map<string, number>();
    let seed = 7;
    for (const n of [0, 1, 40, 0, 3, 200, 17, 1, 500]) {
      seed = record(r, seed, n);
      const now = registryCounts(r);
      const entries = walk.next();
      expect(sorted(entries)).toEqual(sorted(countDelta(now, sent)));
      for (const [k, d] of entries) summed.set(k, (summed.get(k) ?? 0) + d);
      sent = now;
    }
    expect(sorted(summed)).toEqual(sorted(registryCounts(r)));
    expect(summed.size).toBeGreaterThan(60);
    expect(walk.next()).toEqual([]);
  });
});
