/**
 * An open-loop load generator: requests sent at evenly spaced times whatever
 * the server does, each request's latency counted from the moment it was due
 * (so a server that stops answering for 200 ms shows 200 ms in every request
 * due in that time, instead of the generator waiting with it, as a closed
 * loop does). autocannon's rate mode cannot do this: it sends each second's
 * requests in a burst at the start of the second.
 */
import { Agent, request } from "node:http";

/** What one open-loop run gives: every request's latency in ms, in the order they were due. */
export interface OpenLoopResult {
  latencies: Float64Array;
  errors: number;
  /** The largest lag of a send behind its due time (ms): the generator's own precision. */
  sendLag: number;
}

/** One request to send, again and again. */
export interface OpenLoopTarget {
  url: string;
  method: "GET" | "POST";
  body?: string;
}

/**
 * Sends `rate` requests a second for `seconds`, evenly spaced (the timer
 * fires at least once a millisecond and sends every request then due), over
 * keep-alive connections opened as needed.
 */
export async function openLoop(
  target: OpenLoopTarget,
  rate: number,
  seconds: number,
): Promise<OpenLoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: 512 });
  const url = new URL(target.url);
  const body = target.body === undefined ? undefined : Buffer.from(target.body);
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  const interval = 1000 / rate;
  let errors = 0;
  let answered = 0;
  let sendLag = 0;
  const start = performance.now() + 5;
  const dueAt = (i: number) => start + i * interval;
  return new Promise((done) => {
    const finish = () => {
      if (++answered === total) {
        agent.destroy();
        done({ latencies, errors, sendLag });
      }
    };
    const fire = (i: number) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: target.method,
          agent,
          headers:
            body === undefined ? {} : { "content-type": "application/json", "content-length": body.length },
        },
        (res) => {
          res.on("data", () => {});
          res.on("end", () => {
            latencies[i] = performance.now() - dueAt(i);
            if (res.statusCode !== 200) errors++;
            finish();
          });
        },
      );
      req.on("error", () => {
        latencies[i] = performance.now() - dueAt(i);
        errors++;
        finish();
      });
      req.end(body);
    };
    let sent = 0;
    const tick = () => {
      const now = performance.now();
      while (sent < total && dueAt(sent) <= now) {
        sendLag = Math.max(sendLag, now - dueAt(sent));
        fire(sent++);
      }
      if (sent < total) setTimeout(tick, Math.max(0, Math.floor(dueAt(sent) - performance.now())));
    };
    setTimeout(tick, 5);
  });
}

/** The value at quantile `q` (0..1) of the latencies, nearest rank. */
export function quantile(latencies: Float64Array, q: number): number {
  const sorted = Float64Array.from(latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * The longest time the server answered nothing, as the generator saw it: the
 * longest span between two consecutive answers' arrival times, found from
 * when each was due plus its latency.
 */
export function longestSilence(latencies: Float64Array, rate: number): number {
  const interval = 1000 / rate;
  const arrivals = Float64Array.from(latencies, (l, i) => i * interval + l).sort();
  let longest = 0;
  for (let i = 1; i < arrivals.length; i++) longest = Math.max(longest, arrivals[i] - arrivals[i - 1]);
  return longest;
}
