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
 *
 * The prober keeps one connection open (the thread's `fetch` reuses it), as an
 * outside monitor would. The bench's own requests are counted too
 * ({@link HealthProbe.countRequests}), so that each probe knows whether a
 * request the bench sent after it was answered before it (the probe was
 * "passed"): local workerd reads the next request of a kept-alive connection
 * as soon as it has written an answer, without looking at its other
 * connections, which it only polls when it has nothing else queued; so the
 * bench's back-to-back requests go ahead of a probe that arrived earlier
 * (docs/performance.md, "Why `/healthz` waits behind later requests"). The
 * worst latency is kept both over every probe and over the probes no later
 * request passed (what a prober sees when requests are served in the order
 * they arrive).
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Worker } from "node:worker_threads";

/** Milliseconds between the starts of two probes. */
export const INTERVAL_MS = 20;

// The thread: plain JavaScript (evaluated, not loaded through tsx). Counters:
// [0] stop flag, [1] probes answered, [2] worst latency in µs since reset, [3] failures,
// [4] the worst lateness of the thread's own timer in µs since reset, [5] the bench's
// requests sent, [6] the bench's requests answered (both written by the bench's thread),
// [7] the worst latency in µs since reset of the probes no later request passed,
// [8] the probes since reset that a later request passed.
const THREAD = `
const { workerData } = require("node:worker_threads");
const dc = require("node:diagnostics_channel");
const c = new Int32Array(workerData.shared);
// the bench's requests sent when this probe's head was written to its connection
let sent = 0;
dc.subscribe("undici:client:sendHeaders", () => { sent = Atomics.load(c, 5); });
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
(async () => {
  while (Atomics.load(c, 0) === 0) {
    sent = Infinity;
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
    // a request the bench wrote after this probe's head has been answered: it passed the probe
    if (ok && Atomics.load(c, 6) > sent) Atomics.add(c, 8, 1);
    else
      for (let seen = Atomics.load(c, 7); us > seen; seen = Atomics.load(c, 7))
        if (Atomics.compareExchange(c, 7, seen, us) === seen) break;
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
  /** The worst latency in ms since the last reset over the probes that no later bench request passed. */
  worstInOrder(): number;
  /** How many probes since the last reset a bench request sent after them was answered before. */
  passed(): number;
  /**
   * Counts this thread's `fetch` requests from now on (sent when their head is
   * written to the connection, answered when their answer's head is read), for
   * {@link passed}; with `fresh`, every one goes on a connection of its own
   * (`Connection: close`). Returns the undo.
   */
  countRequests(fresh?: boolean): () => void;
  /** Starts a new window for {@link worst}. */
  reset(): void;
  /** Stops probing and ends the thread. */
  stop(): Promise<void>;
}

/** Starts probing `${base}/healthz` every INTERVAL_MS from a thread of its own. */
export function startHealthProbe(base: string): HealthProbe {
  const shared = new SharedArrayBuffer(9 * Int32Array.BYTES_PER_ELEMENT);
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
    worstInOrder: () => Atomics.load(c, 7) / 1000,
    passed: () => Atomics.load(c, 8),
    reset: () => {
      Atomics.store(c, 2, 0);
      Atomics.store(c, 4, 0);
      Atomics.store(c, 7, 0);
      Atomics.store(c, 8, 0);
    },
    countRequests(fresh = false) {
      const real = globalThis.fetch;
      // undici's channels of this thread: a head written to its connection, an answer's head read
      const wrote = (): void => void Atomics.add(c, 5, 1);
      const read = (): void => void Atomics.add(c, 6, 1);
      subscribe("undici:client:sendHeaders", wrote);
      subscribe("undici:request:headers", read);
      if (fresh)
        globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
          const headers = new Headers(init?.headers);
          headers.set("connection", "close");
          return real(input, { ...init, headers });
        }) as typeof fetch;
      return () => {
        unsubscribe("undici:client:sendHeaders", wrote);
        unsubscribe("undici:request:headers", read);
        globalThis.fetch = real;
      };
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
