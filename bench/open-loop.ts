/**
 * An open-loop load generator: requests sent at evenly spaced times whatever
 * the server does, each request's latency counted from the moment it was due
 * (so a server that stops answering for 200 ms shows 200 ms in every request
 * due in that time, instead of the generator waiting with it, as a closed
 * loop does). autocannon's rate mode cannot do this: it sends each second's
 * requests in a burst at the start of the second.
 */
import { spawn } from "node:child_process";
import { renameSync } from "node:fs";
import { Agent, request } from "node:http";
import { resolve } from "node:path";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";

/** What one open-loop run gives: every request's latency in ms, in the order they were due. */
export interface OpenLoopResult {
  latencies: Float64Array;
  errors: number;
  /**
   * The errors by kind: `status <code>` for an answer other than 200, the socket error's code for a
   * request that got no answer, `<code> mid-answer` for an answer cut off after its head.
   */
  errorKinds: Record<string, number>;
  /** The largest lag of a send behind its due time (ms): the generator's own precision. */
  sendLag: number;
  /** The generator's own longest stall (ms): the most its event loop was late for a 1 ms timer. */
  loopStall: number;
  /** The generator's longest garbage-collection pause (ms). */
  gcPause: number;
}

/** One request to send, again and again. */
export interface OpenLoopTarget {
  url: string;
  method: "GET" | "POST";
  body?: string;
}

/**
 * How long the generator keeps an idle keep-alive connection (ms) before closing it itself:
 * well below workerd's own 5 s (it closes a connection 5 s after its last answer, sending no
 * `Keep-Alive` hint, and drops a request that reached it then unread). Without it, the sockets a
 * stall made the generator open sat idle at the bottom of the agent's pool until the next stall's
 * burst took them again, and a request written on one near the 5-s mark failed with ECONNRESET
 * (wt/openerr: 114 in one 12-s window; 40 of 40 in a scratch reproduction). workerd still drops a
 * request written within this bound if its thread reaches it only 5 s after that connection's
 * previous answer: a Worker answering seconds late (far past its capacity) shows ECONNRESET.
 */
export const IDLE_SOCKET_MS = 1000;

/**
 * Sends `rate` requests a second for `seconds`, evenly spaced (the timer
 * fires at least once a millisecond and sends every request then due), over
 * keep-alive connections opened as needed and closed after `idleMs` unused
 * (0: kept until the server closes them, as before wt/openerr).
 * Every request is counted once: answered, failed before its answer, or cut
 * off during it.
 */
export async function openLoop(
  target: OpenLoopTarget,
  rate: number,
  seconds: number,
  idleMs = IDLE_SOCKET_MS,
): Promise<OpenLoopResult> {
  // `timeout` closes a free socket idle that long; on a socket in use it only emits `timeout`,
  // which nothing here handles, so a request outlasting it is still waited for
  const agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: idleMs });
  const url = new URL(target.url);
  const body = target.body === undefined ? undefined : Buffer.from(target.body);
  // one options object for every request: the loop allocates only what node:http does per request
  const options = {
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: target.method,
    agent,
    headers: body === undefined ? {} : { "content-type": "application/json", "content-length": body.length },
  };
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let gcPause = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcPause = Math.max(gcPause, e.duration);
  });
  gc.observe({ entryTypes: ["gc"] });
  loop.enable();
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  const interval = 1000 / rate;
  let errors = 0;
  const errorKinds: Record<string, number> = {};
  const failed = (kind: string) => {
    errors++;
    errorKinds[kind] = (errorKinds[kind] ?? 0) + 1;
  };
  let answered = 0;
  let sendLag = 0;
  const start = performance.now() + 5;
  const dueAt = (i: number) => start + i * interval;
  return new Promise((done) => {
    const finish = () => {
      if (++answered === total) {
        agent.destroy();
        loop.disable();
        gc.disconnect();
        done({ latencies, errors, errorKinds, sendLag, loopStall: loop.max / 1e6, gcPause });
      }
    };
    const fire = (i: number) => {
      let settled = false;
      // the one place a request is counted: its latency, its error if any, and once only
      const settle = (kind: string | undefined) => {
        if (settled) return;
        settled = true;
        latencies[i] = performance.now() - dueAt(i);
        if (kind !== undefined) failed(kind);
        finish();
      };
      const req = request(options, (res) => {
        res.resume();
        res.on("end", () => settle(res.statusCode === 200 ? undefined : `status ${res.statusCode}`));
        // an answer cut off after its head (node:http then emits no `end`, and `error` only to a listener)
        res.on("error", (e: NodeJS.ErrnoException) => settle(`${e.code ?? e.message} mid-answer`));
        res.on("close", () => settle("closed mid-answer"));
      });
      req.on("error", (e: NodeJS.ErrnoException) => settle(e.code ?? e.message));
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

/**
 * `openLoop` in a child process of its own (plain Node running the bundled
 * bench/open-loop-child.ts, a heap of a few MB), so that the generator's timing
 * is not the bench process's: that process holds Miniflare, wrangler's modules
 * and autocannon's leftovers (70 to 240 MB of heap), and each of its full
 * collections (measured at 47 to 217 ms with --trace-gc) stops the generator,
 * and with it the recording of every answer's arrival.
 */
export async function openLoopInChild(
  target: OpenLoopTarget,
  rate: number,
  seconds: number,
  idleMs = IDLE_SOCKET_MS,
): Promise<OpenLoopResult> {
  const script = await childScript();
  const child = spawn(process.execPath, [script, JSON.stringify({ target, rate, seconds, idleMs })], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  // "close", not "exit": the child's whole answer has then been read
  const code = await new Promise<number | null>((done) => child.on("close", done));
  if (code !== 0) throw new Error(`the open-loop generator exited with ${code}`);
  const got = JSON.parse(Buffer.concat(chunks).toString()) as Omit<OpenLoopResult, "latencies"> & {
    latencies: number[];
  };
  return { ...got, latencies: Float64Array.from(got.latencies) };
}

let bundled: Promise<string> | undefined;

/**
 * bench/open-loop-child.ts bundled once to .bench/, for plain `node` (no TypeScript loader in the
 * child): written under a name of this process's own, then renamed into place, so two benches or
 * tests starting at once never run a half-written file.
 */
function childScript(): Promise<string> {
  bundled ??= (async () => {
    const { build } = (await import("esbuild")) as { build(o: object): Promise<unknown> };
    const outfile = resolve(".bench/open-loop-child.mjs");
    const own = resolve(`.bench/open-loop-child.${process.pid}.mjs`);
    await build({
      entryPoints: [fileURLToPath(new URL("./open-loop-child.ts", import.meta.url))],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: own,
      logLevel: "error",
    });
    renameSync(own, outfile);
    return outfile;
  })();
  return bundled;
}

/** The value at quantile `q` (0..1) of the latencies, nearest rank. */
export function quantile(latencies: Float64Array, q: number): number {
  const sorted = Float64Array.from(latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/**
 * The value at quantile `q` of several runs' latencies taken together (nearest rank): bench:open's
 * statistic over all of a route's rounds. A 6-s window's p99 is the tail of about one full collection
 * (wt/stall4), so one window's figure is one sample of it; the rounds pooled weigh every collection.
 */
export function pooledQuantile(runs: readonly Float64Array[], q: number): number {
  const all = new Float64Array(runs.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r, at);
    at += r.length;
  }
  return quantile(all, q);
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

/**
 * `items` rotated left by `round` places: bench:open's order of processes in a round, so that
 * over `items.length` rounds each is driven in each position once.
 */
export function rotate<T>(items: readonly T[], round: number): T[] {
  const k = items.length === 0 ? 0 : round % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}
