/**
 * `npm run bench:ladder`: where a decision request's CPU goes in workerd, and issue 31 goal 8's
 * figure (the route's CPU per request above a no-op, the decision log line's write left out).
 * The ladder Worker of bench/ladder/ answers each bench request with the no-op's work plus the
 * first N parts of the decision route (reading the body, the route's own validation, the
 * decision, the log line's text, its write, the answer), each taken from the route's module and
 * src/http/decision.ts, and the real Worker answers it through the whole API; each rung's
 * workerd CPU per request, less the rung below it, is what that part costs in a served request.
 * The real Worker is also served with its METRICS_SHARD binding left out, printed under it: the
 * difference is the metrics flush (every 1,000 requests, or METRICS_FLUSH_SECONDS), which in
 * local workerd includes the shard object's RPC, SQLite statements and commit, run in the same
 * process (in production the object's side runs where the object lives).
 *
 * The paired method (the default): each rung and both Workers get a workerd process of their own,
 * all started together and pinned to the same (last) CPU, this process on the others. After a
 * warm-up, each cycle sends every process a block of BENCH_BLOCK requests AT THE SAME TIME,
 * interleaved in bursts: BENCH_CONNECTIONS kept-alive connections send BENCH_BURST (25) requests
 * to one process, then to the next (the order rotated each turn), so each process gets the same
 * requests at the same rate, the processes take turns every few milliseconds, and all finish
 * together (one by one, every request would follow another process's on a cold cache: the no-op
 * read 390-440 µs instead of about 230). It reads each process's CPU (all threads,
 * user + system, to the nanosecond from /proc/<pid>/task/<tid>/schedstat) over the cycle, a short
 * settle included so a block's deferred work (the metrics flush after the answer, background GC)
 * counts in it. Every difference (a rung less the one below, goal 8's route − no-op − the line's
 * write) is taken within each cycle, between processes that shared the CPU, the caches and the
 * other tenants' load in the same seconds, and printed as the median over cycles with its p10–p90
 * spread: the drift that moved single rungs by ±40 µs between the rounds method's fresh processes
 * (run one after another) is common to a cycle's processes and cancels out of a pair.
 * BENCH_BLOCK (1000: one metrics flush a route block), BENCH_CYCLES (20), BENCH_WARMUP (2000 each),
 * BENCH_CONNECTIONS (4), BENCH_BURST (25), BENCH_RUNGS (all; `0,4,5,route,unbound` is enough for goal 8's
 * figure, and fewer processes share the CPU).
 *
 * BENCH_METHOD=rounds: the earlier method, each rung a fresh workerd process driven in turn,
 * BENCH_REQUESTS (4000) a run, medians over BENCH_ROUNDS (3) rounds.
 *
 * BENCH_ROUTES (limits,limits-allowed,place,match: the keys of bench/http-requests.ts; `limits`
 * is denied early, `limits-allowed` runs the rewriter and the jq limits), BENCH_PORT.
 */
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { median, quantile } from "./scale/series.js";
import { Agent, request } from "node:http";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import {
  benchDir,
  benchPort,
  bundleWorker,
  startWorker,
  startWorkers,
  type RunningWorker,
  type SharedWorker,
  type SharedWorkers,
} from "./workerd.js";

const ROUTES = (process.env.BENCH_ROUTES ?? "limits,limits-allowed,place,match").split(
  ",",
) as (keyof typeof DECISION_REQUESTS)[];
const METHOD = process.env.BENCH_METHOD ?? "paired";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BLOCK = Number(process.env.BENCH_BLOCK ?? 1000);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 25);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
/** Connections per Worker: 16 in the rounds method; in the paired one each rung's process gets BENCH_CONNECTIONS (4). */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? (METHOD === "rounds" ? 16 : 4));

const RUNGS = [
  "the no-op (bench/noop's work)",
  "+ read the body, active bundle, shape check",
  "+ validate (the route's compiled schema)",
  "+ decide",
  "+ decision id and log line's text",
  "+ the log line written",
  "+ the answer as the route writes it",
] as const;

/** workerd CPU µs per request over one timed run, after a warm-up, and the kernel's part of it. */
async function cpuPerRequest(
  worker: RunningWorker,
  path: string,
  body: string,
): Promise<{ cpu: number; kernel: number }> {
  const opts = {
    url: `${worker.url}${path}`,
    method: "POST" as const,
    headers: { "content-type": "application/json" },
    body,
    connections: CONNECTIONS,
  };
  await autocannon({ ...opts, amount: WARMUP });
  const before = worker.cpuSeconds();
  const kernelBefore = worker.kernelSeconds();
  const result = await autocannon({ ...opts, amount: REQUESTS });
  if (result.errors + result.non2xx + result.timeouts > 0)
    throw new Error(`${path}: ${result.errors + result.non2xx + result.timeouts} failed requests`);
  const n = result.requests.total;
  return {
    cpu: ((worker.cpuSeconds() - before) * 1e6) / n,
    kernel: ((worker.kernelSeconds() - kernelBefore) * 1e6) / n,
  };
}

async function mainRounds(): Promise<void> {
  const script = bundleWorker();
  const ladder = bundleWorker(
    fileURLToPath(new URL("./ladder/wrangler.toml", import.meta.url)),
    benchDir("ladder"),
  );
  // the last row: the Worker without its METRICS_SHARD binding, so the flush's share of the route shows
  const ROUTE = RUNGS.length;
  const UNBOUND = ROUTE + 1;
  const names = [...RUNGS, "the route (the Worker)", "  the same, METRICS_SHARD unbound"];
  console.log(
    `workerd CPU µs per request (all threads, from /proc), ${REQUESTS} requests × ${ROUNDS} rounds of fresh processes, ${CONNECTIONS} connections; medians`,
  );
  for (const route of ROUTES) {
    const { path, body } = DECISION_REQUESTS[route];
    const text = JSON.stringify(body);
    const samples: number[][] = names.map(() => []);
    const kernel: number[][] = names.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < names.length; i++) {
        const worker =
          i < RUNGS.length
            ? await startWorker(
                ladder,
                await benchPort(i),
                0,
                () => {},
                { LADDER_STEP: String(i) },
                undefined,
                { pin: true, objects: false },
              )
            : await startWorker(script, await benchPort(i), 0, () => {}, {}, undefined, {
                pin: true,
                shards: i !== UNBOUND,
              });
        try {
          const measured = await cpuPerRequest(worker, path, text);
          samples[i].push(measured.cpu);
          kernel[i].push(measured.kernel);
        } finally {
          await worker.stop();
        }
      }
    }
    const cpu = samples.map(median);
    const sys = kernel.map(median);
    console.log(`\nPOST ${path} (${route})`);
    console.log(
      `${"rung".padEnd(46)} ${"CPU µs".padStart(7)} ${"added".padStart(6)} ${"× no-op".padStart(8)} ${"kernel µs".padStart(9)}`,
    );
    for (const [i, name] of names.entries()) {
      // the unbound Worker is compared with the bound one, not with the rung above it
      const below = i === UNBOUND ? ROUTE : i - 1;
      const added =
        i === 0 ? "" : `${cpu[i] - cpu[below] >= 0 ? "+" : ""}${(cpu[i] - cpu[below]).toFixed(0)}`;
      console.log(
        `${name.padEnd(46)} ${cpu[i].toFixed(0).padStart(7)} ${added.padStart(6)} ${`${(cpu[i] / cpu[0]).toFixed(2)}×`.padStart(8)} ${sys[i].toFixed(0).padStart(9)}`,
      );
    }
    // issue 31 goal 8: the route above the no-op, the log line's write left out (its text is counted)
    const written = RUNGS.indexOf("+ the log line written");
    const aboveNoop = cpu[ROUTE] - cpu[0] - (cpu[written] - cpu[written - 1]);
    console.log(
      `${"the route above the no-op, less the line's write".padEnd(46)} ${aboveNoop.toFixed(0).padStart(7)}`,
    );
    // not the goal's figure: it leaves out the isolate's own side of the flush as well as the shard's
    const unbound = cpu[UNBOUND] - cpu[0] - (cpu[written] - cpu[written - 1]);
    console.log(`${"  the same, METRICS_SHARD unbound".padEnd(46)} ${unbound.toFixed(0).padStart(7)}`);
  }
  console.log(
    "\nadded: the rung's CPU less the rung above it (the unbound Worker: less the bound one; noise on this VM is about ±15 µs a figure); the route's line adds Hono's dispatch over the whole API, request ids, metrics, the verdict memo and, every 1,000 requests, the metrics flush: the isolate's walk and call and, in this one workerd process, the MetricsShard object's RPC, SQLite statements and commit (its fsync is kernel time). Goal 8's row is the route with the shard bound (µs, then as a share of the same cycle's no-op, which a load slowing every process alike does not move): the whole flush counted, though in production the object's side runs where the object lives",
  );
}

const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

const signed = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(0)}`;
const spread = (xs: readonly number[]): string =>
  `${signed(quantile(xs, 0.1))}..${signed(quantile(xs, 0.9))}`;

/** One POST of `body` to `url` over `agent`'s kept-alive connections; the answer must be 200. */
function post(url: URL, agent: Agent, body: string): Promise<void> {
  const headers = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
  return new Promise((done, fail) => {
    const req = request(
      { host: url.hostname, port: url.port, path: url.pathname, method: "POST", agent, headers },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode === 200 ? done() : fail(new Error(`${url.pathname}: status ${res.statusCode}`)),
        );
      },
    );
    req.on("error", fail);
    req.end(body);
  });
}

/**
 * Sends `n` requests to each target, interleaved in bursts: all `lanes` connections send a burst of
 * `burst` requests to one target, then to the next (the order rotated each turn), so that every
 * target is sent the same requests at the same rate, all finish together, and the targets take
 * turns on the CPU every few milliseconds while each burst runs with its process's caches warm.
 */
async function interleaved(
  targets: { url: URL; agent: Agent }[],
  body: string,
  n: number,
  lanes: number,
  burst: number,
): Promise<void> {
  for (let sent = 0, turn = 0; sent < n; sent += burst, turn++) {
    const size = Math.min(burst, n - sent);
    for (let j = 0; j < targets.length; j++) {
      const t = targets[(turn + j) % targets.length];
      let left = size;
      await Promise.all(
        Array.from({ length: Math.min(lanes, size) }, async () => {
          while (left > 0) {
            left--;
            await post(t.url, t.agent, body);
          }
        }),
      );
    }
  }
}

async function mainPaired(): Promise<void> {
  const script = bundleWorker();
  const ladder = bundleWorker(
    fileURLToPath(new URL("./ladder/wrangler.toml", import.meta.url)),
    benchDir("ladder"),
  );
  // rung i is worker `rung<i>`; then the Worker, and the Worker without METRICS_SHARD
  const all: (SharedWorker & { label: string })[] = [
    ...RUNGS.map((label, i) => ({
      name: `rung${i}`,
      label,
      script: ladder,
      bindings: { LADDER_STEP: String(i) },
      objects: false,
    })),
    { name: "route", label: "the route (the Worker)", script },
    { name: "unbound", label: "  the same, METRICS_SHARD unbound", script, shards: false },
  ];
  const wanted = (process.env.BENCH_RUNGS ?? "").split(",").filter((x) => x !== "");
  const workers = wanted.length === 0 ? all : all.filter((w) => wanted.includes(w.name.replace(/^rung/, "")));
  const index = new Map(workers.map((w, i) => [w.name, i]));
  console.log(
    `workerd CPU µs per request (all threads, user + system, from /proc/<pid>/task/*/schedstat); one workerd process a rung, all started together, pinned to one CPU and sent the same requests interleaved in bursts of ${BURST} over ${CONNECTIONS} connections, ${CYCLES} cycles of ${BLOCK} requests each; a figure is the median over cycles, a difference is taken within each cycle (median, p10..p90)`,
  );
  for (const route of ROUTES) {
    const { path, body } = DECISION_REQUESTS[route];
    const text = JSON.stringify(body);
    const loadBefore = load();
    const served: SharedWorkers[] = [];
    // µs per request, by worker, by cycle; kernel seconds summed
    const cpu: number[][] = workers.map(() => []);
    const kernel: number[] = workers.map(() => 0);
    try {
      for (const [i, w] of workers.entries())
        served.push(await startWorkers([w], await benchPort(i), () => {}, { pin: true }));
      const agents = workers.map(() => new Agent({ keepAlive: true, maxSockets: CONNECTIONS }));
      const targets = served.map((s, i) => ({ url: new URL(`${s.url}${path}`), agent: agents[i] }));
      const drive = (n: number) => interleaved(targets, text, n, CONNECTIONS, BURST);
      await drive(WARMUP);
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const before = served.map((s) => s.cpuNanoseconds());
        const kernelBefore = served.map((s) => s.kernelSeconds());
        await drive(BLOCK);
        // let each block's deferred work (the flush after the answer, background GC) land in it
        await sleep(30);
        for (const [i, s] of served.entries()) {
          cpu[i].push((s.cpuNanoseconds() - before[i]) / 1e3 / BLOCK);
          kernel[i] += s.kernelSeconds() - kernelBefore[i];
        }
      }
      for (const agent of agents) agent.destroy();
    } finally {
      for (const s of served) await s.stop();
    }
    const at = (name: string): number[] | undefined => {
      const i = index.get(name);
      return i === undefined ? undefined : cpu[i];
    };
    /** The sum of the signed series, cycle by cycle; undefined when one was not run. */
    const paired = (...terms: [sign: number, name: string][]): number[] | undefined => {
      const series = terms.map(([sign, name]) => [sign, at(name)] as const);
      if (series.some(([, xs]) => xs === undefined)) return undefined;
      return Array.from({ length: CYCLES }, (_, c) =>
        series.reduce((sum, [sign, xs]) => sum + sign * (xs as number[])[c], 0),
      );
    };
    console.log(`\nPOST ${path} (${route}), load average ${loadBefore} before, ${load()} after`);
    console.log(
      `${"rung".padEnd(46)} ${"CPU µs".padStart(7)} ${"added".padStart(6)} ${"p10..p90".padStart(10)} ${"× no-op".padStart(8)} ${"kernel µs".padStart(9)}`,
    );
    const noop = at("rung0");
    for (const [i, w] of workers.entries()) {
      // the unbound Worker is compared with the bound one, the others with the worker listed above
      const below =
        w.name === "unbound" && index.has("route") ? "route" : i > 0 ? workers[i - 1].name : undefined;
      const diff = below === undefined ? undefined : paired([1, w.name], [-1, below]);
      const ratio = noop === undefined ? "" : `${(median(cpu[i]) / median(noop)).toFixed(2)}×`;
      console.log(
        `${w.label.padEnd(46)} ${median(cpu[i]).toFixed(0).padStart(7)} ${(diff === undefined ? "" : signed(median(diff))).padStart(6)} ${(diff === undefined ? "" : spread(diff)).padStart(10)} ${ratio.padStart(8)} ${((kernel[i] * 1e6) / (BLOCK * CYCLES)).toFixed(0).padStart(9)}`,
      );
    }
    // issue 31 goal 8: the route above the no-op, the log line's write left out (its text is counted)
    for (const [name, label] of [
      ["route", "the route above the no-op, less the line's write"],
      ["unbound", "  the same, METRICS_SHARD unbound"],
    ]) {
      const goal = paired([1, name], [-1, "rung0"], [-1, "rung5"], [1, "rung4"]);
      if (goal === undefined || noop === undefined) continue;
      // the same per cycle as a share of that cycle's no-op: a load that slows every process alike scales both
      const share = goal.map((g, c) => g / noop[c]);
      console.log(
        `${label.padEnd(46)} ${median(goal).toFixed(0).padStart(7)} ${"".padStart(6)} ${spread(goal).padStart(10)}  ${(100 * median(share)).toFixed(1)}% of the no-op (${(100 * quantile(share, 0.1)).toFixed(1)}..${(100 * quantile(share, 0.9)).toFixed(1)}%)`,
      );
    }
  }
  console.log(
    "\nadded: the rung's CPU less the rung listed above it, cycle by cycle (the unbound Worker: less the bound one), median over cycles and its p10..p90; the route's line adds Hono's dispatch over the whole API, request ids, metrics, the verdict memo and, every 1,000 requests, the metrics flush: the isolate's walk and call and, in the Worker's workerd process, the MetricsShard object's RPC, SQLite statements and commit (its fsync is kernel time). Goal 8's row is the route with the shard bound (µs, then as a share of the same cycle's no-op, which a load slowing every process alike does not move): the whole flush counted, though in production the object's side runs where the object lives. kernel: system time over all cycles (10 ms ticks) per request",
  );
}

await (METHOD === "rounds" ? mainRounds() : mainPaired());
