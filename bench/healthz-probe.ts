/**
 * A `/healthz` prober for `npm run bench:hostile` (issue 24, "How we know":
 * `/healthz` answers within 100 ms throughout the hostile rows). It runs in a
 * worker thread of its own, so the bench's main thread building a 1 MB request
 * never delays a probe, and sends one `GET /healthz` every INTERVAL_MS (one at
 * a time: a probe that waits behind a long decision is the next one's delay).
 * The thread and the bench share a few counters (probes answered, failures,
 * the worst latency since the last reset), read without messages.
 * It also keeps how late its own timer woke it (the worst since the last
 * reset): a thread that itself waited that long for a CPU measures that wait
 * too, in whichever probe it was sending or reading, so a latency near that
 * lateness is the machine's, not the Worker's.
 * The thread's `fetch` keeps one connection open and sends every probe on it,
 * as an outside monitor would; a probe on a new connection each time waits the
 * same (docs/performance.md, "Why `/healthz` waits behind later requests").
 */
import { Worker } from "node:worker_threads";

/** Milliseconds between the starts of two probes. */
export const INTERVAL_MS = 20;

// The thread: plain JavaScript (evaluated, not loaded through tsx). Counters:
// [0] stop flag, [1] probes answered, [2] worst latency in µs since reset, [3] failures,
// [4] the worst lateness of the thread's own timer in µs since reset.
const THREAD = `
const { workerData } = require("node:worker_threads");
const c = new Int32Array(workerData.shared);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
(async () => {
  while (Atomics.load(c, 0) === 0) {
    const t0 = performance.now();
    let ok = false;
    try {
      const res = await fetch(workerData.url);
      await res.arrayBuffer();
      ok = res.status === 200;
    } catch {}
    const us = Math.min(2147483647, Math.round((performance.now() - t0) * 1000));
    for (let seen = Atomics.load(c, 2); us > seen; seen = Atomics.load(c, 2))
      if (Atomics.compareExchange(c, 2, seen, us) === seen) break;
    if (!ok) Atomics.add(c, 3, 1);
    Atomics.add(c, 1, 1);
    const wait = t0 + workerData.interval - performance.now();
    if (wait > 0) {
      const due = performance.now() + wait;
      await sleep(wait);
      const late = Math.min(2147483647, Math.round((performance.now() - due) * 1000));
      for (let seen = Atomics.load(c, 4); late > seen; seen = Atomics.load(c, 4))
        if (Atomics.compareExchange(c, 4, seen, late) === seen) break;
    }
  }
})();
`;

/** A running prober. */
export interface HealthProbe {
  /** Probes answered so far (successful or not). */
  count(): number;
  /** Probes that failed (an error or a status other than 200) so far. */
  failures(): number;
  /** The worst latency in ms since the last reset (0 when none answered). */
  worst(): number;
  /** How late, at worst, the probing thread's own timer fired since the last reset, in ms (its wait for a CPU). */
  late(): number;
  /** Starts a new window for {@link worst}. */
  reset(): void;
  /** Stops probing and ends the thread. */
  stop(): Promise<void>;
}

/** Starts probing `${base}/healthz` every INTERVAL_MS from a thread of its own. */
export function startHealthProbe(base: string): HealthProbe {
  const shared = new SharedArrayBuffer(5 * Int32Array.BYTES_PER_ELEMENT);
  const c = new Int32Array(shared);
  const thread = new Worker(THREAD, {
    eval: true,
    workerData: { url: `${base}/healthz`, shared, interval: INTERVAL_MS },
  });
  const exited = new Promise<void>((done) => thread.once("exit", () => done()));
  return {
    count: () => Atomics.load(c, 1),
    failures: () => Atomics.load(c, 3),
    worst: () => Atomics.load(c, 2) / 1000,
    late: () => Atomics.load(c, 4) / 1000,
    reset: () => {
      Atomics.store(c, 2, 0);
      Atomics.store(c, 4, 0);
    },
    async stop() {
      Atomics.store(c, 0, 1);
      // the probe in flight ends within one healthz answer; a thread stuck longer is ended
      const timer = setTimeout(() => void thread.terminate(), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
