/**
 * `npm run bench:http`: the Worker bundled as `wrangler deploy` bundles it
 * (its [build] step compiles policies/, so a fresh clone works) and served by
 * workerd through Miniflare, driven from this second process over loopback
 * with autocannon. Beside it runs the no-op Hono Worker of bench/noop/ with
 * the same Miniflare options; each decision route is compared with that
 * Worker answering the same POST body (the floor: transport, reading the
 * body, a JSON answer), in interleaved rounds of the same run, each round on
 * freshly started workerd processes, once with the verdict cache off and once
 * with it warm. Goal: every decision route within
 * 1.2× of its floor with the cache off. With the cache off a third Worker, the
 * contract floor (the no-op answering as a decision route must: log line,
 * decision id, the two headers, an answer as long as the route's), splits each
 * ratio into what the contract's own parts cost and what is above them.
 * A last table prices the decision log line alone: the no-op Worker writing one such
 * line, against the plain no-op. With BENCH_METRICS=1 a further table (BENCH_METRICS=only:
 * that table alone) prices the deployment-wide counters: the Worker with its METRICS_SHARD
 * binding against the same Worker without it. Ports: BENCH_PORT (and the next five) when set, else
 * free ports found on loopback.
 */
import autocannon from "autocannon";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { median } from "./scale/series.js";
import { benchPort, bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Requests each Worker answers, per route, before a timed run: a fresh workerd has V8 still compiling and its heap still growing. */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2000);
const GOAL = 1.2;
const PIN = { pin: true };
/** The no-op Worker exports no Durable Object classes. */
const NOOP = { pin: true, objects: false };

interface Target {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

const TARGETS: Target[] = [
  { name: "GET /healthz", method: "GET", path: "/healthz" },
  // a requester on the hackers list, denied before any jq runs; then an allowed task (rewrite + jq limits)
  { name: "POST /v1/limits/decide", method: "POST", ...DECISION_REQUESTS.limits },
  { name: "POST /v1/limits allowed", method: "POST", ...DECISION_REQUESTS["limits-allowed"] },
  { name: "POST /v1/place", method: "POST", ...DECISION_REQUESTS.place },
  { name: "POST /v1/match", method: "POST", ...DECISION_REQUESTS.match },
];

interface Sample {
  rps: number;
  /** The serving workerd's CPU time per request in the timed run (µs), from /proc; NaN without it. */
  cpuUs: number;
  p50: number;
  errors: number;
}

let logBytes = 0;

/** Drives one route with autocannon after a warm-up; throughput is timed from the responses themselves. */
async function drive(
  worker: RunningWorker,
  t: Target,
  body: string | undefined,
  extra: Record<string, string> = {},
): Promise<Sample> {
  const opts = {
    url: `${worker.url}${t.path}`,
    method: t.method,
    headers: { ...(body ? { "content-type": "application/json" } : {}), ...extra },
    body,
    connections: CONNECTIONS,
    amount: REQUESTS,
  };
  await autocannon({ ...opts, amount: WARMUP });
  // autocannon's own start/finish are only as fine as its 1 s sampling tick
  let first = 0;
  let last = 0;
  const cpu0 = worker.cpuSeconds();
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(opts, (error, res) => (error ? fail(error) : done(res)));
    instance.on("response", () => {
      last = performance.now();
      if (first === 0) first = last;
    });
  });
  const cpuUs = ((worker.cpuSeconds() - cpu0) * 1e6) / result.requests.total;
  return {
    rps: result.requests.total / ((last - first) / 1000),
    cpuUs,
    p50: result.latency.p50,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

interface Row {
  name: string;
  rps: number;
  floorRps: number;
  /** The contract floor's req/s (the no-op answering as a decision route must), when measured. */
  contractRps?: number;
  /** Workerd CPU µs per request: the route's and the no-op's. */
  cpuUs: number;
  floorCpuUs: number;
  p50: number;
  errors: number;
}

/** The length of a route's answer to its bench request, which the contract floor then matches. */
async function answerBytes(worker: RunningWorker, t: Target, body: string | undefined): Promise<number> {
  const res = await fetch(`${worker.url}${t.path}`, {
    method: t.method,
    body,
    headers: body ? { "content-type": "application/json" } : {},
  });
  return (await res.arrayBuffer()).byteLength;
}

/** The Workers one round drives: the route's, the no-op and, for the cache-off table, the contract floor. */
interface RoundWorkers {
  worker: RunningWorker;
  noop: RunningWorker;
  contract?: RunningWorker;
}

/**
 * Each route and the no-op answering the same request (and, with a contract
 * Worker, the no-op answering it as a decision route must), in interleaved
 * rounds; medians. Every round starts its Workers afresh: one workerd process
 * differs from another serving the same bundle by as much as 15% in CPU per
 * request (where V8 happened to optimise, when it collects), so a median over
 * one process per Worker would carry that process's luck.
 */
async function measure(start: () => Promise<RoundWorkers>, targets: Target[] = TARGETS): Promise<Row[]> {
  const samples = targets.map(() => ({
    route: [] as Sample[],
    floor: [] as Sample[],
    contracted: [] as Sample[],
  }));
  for (let r = 0; r < ROUNDS; r++) {
    const { worker, noop, contract } = await start();
    try {
      for (const [i, t] of targets.entries()) {
        const body = t.body === undefined ? undefined : JSON.stringify(t.body);
        const withContract = contract !== undefined && t.method === "POST";
        // every worker gets the same request, the answer length header included
        const extra: Record<string, string> = withContract
          ? { "x-bench-answer-bytes": String(await answerBytes(worker, t, body)) }
          : {};
        samples[i].floor.push(await drive(noop, t, body, extra));
        if (withContract) samples[i].contracted.push(await drive(contract, t, body, extra));
        samples[i].route.push(await drive(worker, t, body, extra));
      }
    } finally {
      await Promise.all([worker, noop, contract].map((w) => w?.stop()));
    }
  }
  return targets.map((t, i) => {
    const { route, floor, contracted } = samples[i];
    const all = [...route, ...floor, ...contracted];
    return {
      name: t.name,
      rps: median(route.map((s) => s.rps)),
      floorRps: median(floor.map((s) => s.rps)),
      ...(contracted.length > 0 ? { contractRps: median(contracted.map((s) => s.rps)) } : {}),
      cpuUs: median(route.map((s) => s.cpuUs)),
      floorCpuUs: median(floor.map((s) => s.cpuUs)),
      p50: median(route.map((s) => s.p50)),
      errors: all.reduce((n, s) => n + s.errors, 0),
    };
  });
}

function print(title: string, rows: Row[]): boolean {
  const contract = rows.some((r) => r.contractRps !== undefined);
  console.log(
    `\n${title} (${REQUESTS} requests × ${ROUNDS} interleaved rounds, ${CONNECTIONS} connections; medians)`,
  );
  const extraHead = contract ? ` ${"contract floor".padStart(14)} ${"above contract".padStart(14)}` : "";
  console.log(
    `${"route".padEnd(24)} ${"req/s".padStart(8)} ${"no-op req/s".padStart(12)} ${"cost ratio".padStart(10)}${extraHead} ${"CPU µs".padStart(7)} ${"no-op CPU".padStart(9)} ${"CPU ratio".padStart(9)} ${"p50 ms".padStart(7)} ${"errors".padStart(6)}`,
  );
  let met = true;
  for (const r of rows) {
    const ratio = r.floorRps / r.rps;
    if (r.name.startsWith("POST") && ratio > GOAL) met = false;
    const extra = !contract
      ? ""
      : r.contractRps === undefined
        ? ` ${"".padStart(14)} ${"".padStart(14)}`
        : ` ${`${(r.floorRps / r.contractRps).toFixed(2)}×`.padStart(14)} ${`${(r.contractRps / r.rps).toFixed(2)}×`.padStart(14)}`;
    console.log(
      `${r.name.padEnd(24)} ${r.rps.toFixed(0).padStart(8)} ${r.floorRps.toFixed(0).padStart(12)} ${`${ratio.toFixed(2)}×`.padStart(10)}${extra} ${r.cpuUs.toFixed(0).padStart(7)} ${r.floorCpuUs.toFixed(0).padStart(9)} ${`${(r.cpuUs / r.floorCpuUs).toFixed(2)}×`.padStart(9)} ${r.p50.toFixed(1).padStart(7)} ${String(r.errors).padStart(6)}`,
    );
  }
  if (contract) {
    console.log(
      "contract floor: the no-op answering as a decision route must (log line, decision id, X-Request-Id and X-Arbiter-Cache, an answer as long as the route's), as a ratio to the plain no-op",
    );
    console.log(
      "above contract: the route's cost ratio to that contract floor (the pipeline's own work and the decision)",
    );
    console.log(
      "CPU µs: the serving workerd process's CPU time per request (all its threads, from /proc), route and no-op; CPU ratio: their quotient",
    );
  }
  return met;
}

/**
 * What the deployment-wide counters cost per request: the same bundle served
 * with the METRICS_SHARD binding (each isolate flushes its counts to a
 * MetricsShard every 1,000 requests or METRICS_FLUSH_SECONDS, after the answer)
 * and without it (counts stay in the isolate), cache off. Both Workers are
 * started afresh every round and driven one after the other per route, the
 * order alternating between rounds; medians. Returns whether any request failed.
 */
async function metricsOnOff(script: string, countLog: (chunk: Buffer) => void): Promise<boolean> {
  const on = TARGETS.map(() => [] as Sample[]);
  const off = TARGETS.map(() => [] as Sample[]);
  for (let r = 0; r < ROUNDS; r++) {
    const withShards = await startWorker(script, await benchPort(1), 0, countLog, {}, undefined, PIN);
    const without = await startWorker(script, await benchPort(4), 0, countLog, {}, undefined, {
      ...PIN,
      shards: false,
    });
    try {
      for (const [i, t] of TARGETS.entries()) {
        const body = t.body === undefined ? undefined : JSON.stringify(t.body);
        const pair: [RunningWorker, Sample[]][] = [
          [withShards, on[i]],
          [without, off[i]],
        ];
        if (r % 2 === 1) pair.reverse();
        for (const [worker, samples] of pair) samples.push(await drive(worker, t, body));
      }
    } finally {
      await Promise.all([withShards.stop(), without.stop()]);
    }
  }
  console.log(
    `\ndeployment-wide metrics: the Worker with METRICS_SHARD bound (on) and without (off), cache off (${REQUESTS} requests × ${ROUNDS} interleaved rounds, ${CONNECTIONS} connections; medians)`,
  );
  console.log(
    `${"route".padEnd(24)} ${"on req/s".padStart(9)} ${"off req/s".padStart(9)} ${"on CPU µs".padStart(9)} ${"off CPU µs".padStart(10)} ${"Δ CPU µs".padStart(8)} ${"CPU ratio".padStart(9)} ${"errors".padStart(6)}`,
  );
  let errors = 0;
  for (const [i, t] of TARGETS.entries()) {
    const cpuOn = median(on[i].map((s) => s.cpuUs));
    const cpuOff = median(off[i].map((s) => s.cpuUs));
    const n = [...on[i], ...off[i]].reduce((sum, s) => sum + s.errors, 0);
    errors += n;
    console.log(
      `${t.name.padEnd(24)} ${median(on[i].map((s) => s.rps))
        .toFixed(0)
        .padStart(9)} ${median(off[i].map((s) => s.rps))
        .toFixed(0)
        .padStart(
          9,
        )} ${cpuOn.toFixed(0).padStart(9)} ${cpuOff.toFixed(0).padStart(10)} ${(cpuOn - cpuOff).toFixed(0).padStart(8)} ${`${(cpuOn / cpuOff).toFixed(2)}×`.padStart(9)} ${String(n).padStart(6)}`,
    );
  }
  console.log("per-round CPU µs, on / off:");
  for (const [i, t] of TARGETS.entries())
    console.log(
      `  ${t.name.padEnd(24)} ${on[i].map((s, r) => `${s.cpuUs.toFixed(0)}/${off[i][r].cpuUs.toFixed(0)}`).join("  ")}`,
    );
  return errors > 0;
}

async function main(): Promise<void> {
  let failed = false;
  const script = bundleWorker();
  if (process.env.BENCH_METRICS === "only") {
    if (await metricsOnOff(script, (chunk) => (logBytes += chunk.length))) process.exitCode = 1;
    return;
  }
  const noopScript = bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)));
  console.log(
    "cost ratio = the no-op Hono Worker's req/s answering the same request ÷ the route's req/s (1.00× = no cost above the floor)",
  );
  // the Workers write their decision log lines, as in production; the bench counts them instead of printing them
  const countLog = (chunk: Buffer) => (logBytes += chunk.length);
  const noop = async () => startWorker(noopScript, await benchPort(0), 0, () => {}, {}, undefined, NOOP);
  let pinned: boolean | undefined;
  for (const [title, cache, offset] of [
    ["cache off", 0, 1],
    ["cache warm", 60, 2],
  ] as const) {
    const rows = await measure(async () => {
      const round: RoundWorkers = {
        noop: await noop(),
        worker: await startWorker(script, await benchPort(offset), cache, countLog, {}, undefined, PIN),
        ...(cache === 0
          ? {
              contract: await startWorker(
                noopScript,
                await benchPort(5),
                0,
                countLog,
                { NOOP_CONTRACT: "1" },
                undefined,
                NOOP,
              ),
            }
          : {}),
      };
      if (pinned === undefined) {
        pinned = round.noop.pinned && round.worker.pinned;
        console.log(
          pinned
            ? "every workerd on the last CPU, the load generator on the others (BENCH_PIN=0 to turn off)"
            : "not pinned to CPUs (BENCH_PIN=0, no taskset, or one CPU)",
        );
        console.log(`every round starts its Workers afresh (${ROUNDS} rounds: BENCH_ROUNDS)`);
      }
      return round;
    });
    const met = print(title, rows);
    if (cache === 0)
      console.log(
        met
          ? `every decision route within ${GOAL}× of its floor`
          : `goal not met: a decision route above ${GOAL}× of its floor`,
      );
    failed ||= rows.some((r) => r.errors > 0);
  }
  // The one part of a decision's pipeline that cannot go: its log line, priced alone on the floor itself.
  const limits = TARGETS.find((t) => t.path === "/v1/limits/decide") as Target; // the first: the hackers request
  const rows = await measure(
    async () => ({
      noop: await noop(),
      worker: await startWorker(
        noopScript,
        await benchPort(3),
        0,
        countLog,
        { NOOP_LOG_LINE: "1" },
        undefined,
        NOOP,
      ),
    }),
    [{ ...limits, name: "no-op + log line" }],
  );
  print("the decision log line alone: the no-op Worker also writing one decision log line", rows);
  failed ||= rows.some((r) => r.errors > 0);
  if (process.env.BENCH_METRICS === "1") failed = (await metricsOnOff(script, countLog)) || failed;
  console.log(`\nthe Worker wrote ${(logBytes / 1024).toFixed(0)} KiB of decision log lines`);
  if (failed) process.exitCode = 1;
}

await main();
