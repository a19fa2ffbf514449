/**
 * `npm run bench:ladder`: where a decision request's CPU goes in workerd. The
 * ladder Worker of bench/ladder/ answers each bench request with the no-op's
 * work plus the first N parts of the decision route (reading the body, the
 * route's own validation, the decision, the log line's text, its write, the answer), each
 * taken from the route's module and src/http/decision.ts, and the real Worker answers it
 * through the whole API; each rung's workerd CPU per request, less the rung
 * below it, is what that part costs in a served request. The real Worker is also
 * served with its METRICS_SHARD binding left out, printed under it: the difference
 * is the metrics flush (every 1,000 requests, or METRICS_FLUSH_SECONDS), which in local workerd includes the
 * shard object's RPC, SQLite statements and commit, run in the same process (in
 * production the object's side runs where the object lives). The kernel column
 * is workerd's system time (sockets, writes, page faults, the commit's fsync). Every round starts
 * every Worker afresh and drives them in turn (workerd pinned to the last CPU,
 * as in bench:http), so a slow moment or a lucky process does not land on one
 * rung only; medians over rounds. BENCH_ROUTES (limits,limits-allowed,place,match:
 * the keys of bench/http-requests.ts; `limits` is denied early, `limits-allowed`
 * runs the rewriter and the jq limits),
 * BENCH_ROUNDS (3), BENCH_REQUESTS (4000), BENCH_WARMUP (2000), BENCH_PORT.
 */
import autocannon from "autocannon";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { median } from "./scale/series.js";
import { benchPort, bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const ROUTES = (process.env.BENCH_ROUTES ?? "limits,limits-allowed,place,match").split(
  ",",
) as (keyof typeof DECISION_REQUESTS)[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const CONNECTIONS = 16;

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

async function main(): Promise<void> {
  const script = bundleWorker();
  const ladder = bundleWorker(
    fileURLToPath(new URL("./ladder/wrangler.toml", import.meta.url)),
    resolve(".bench/ladder"),
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
    "\nadded: the rung's CPU less the rung above it (the unbound Worker: less the bound one; noise on this VM is about ±15 µs a figure); the route's line adds Hono's dispatch over the whole API, request ids, metrics, the verdict memo and, every 1,000 requests, the metrics flush: the isolate's walk and call and, in this one workerd process, the MetricsShard object's RPC, SQLite statements and commit (its fsync is kernel time). Goal 8's row is the route with the shard bound: the whole flush counted, though in production the object's side runs where the object lives",
  );
}

await main();
