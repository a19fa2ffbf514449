/**
 * `npm run bench:http`: the Worker bundled as `wrangler deploy` bundles it and
 * served by workerd through Miniflare (embedded policies), driven from this
 * second process over loopback with autocannon.
 * Each decision route is compared with the no-op route `GET /healthz` measured
 * in the same run, once with the verdict cache off and once with it warm.
 */
import autocannon from "autocannon";
import { bundleWorker, startWorker } from "./workerd.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

interface Target {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

const TARGETS: Target[] = [
  { name: "GET /healthz (no-op)", method: "GET", path: "/healthz" },
  {
    name: "POST /v1/limits/decide",
    method: "POST",
    path: "/v1/limits/decide",
    body: {
      requester: "198.51.100.7",
      task: { schema: 1, test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } } },
    },
  },
  {
    name: "POST /v1/place",
    method: "POST",
    path: "/v1/place",
    body: { user: "sarah", groups: ["sarah", "dev_app"], tags: { namespace: "newapp" } },
  },
  {
    name: "POST /v1/match",
    method: "POST",
    path: "/v1/match",
    body: {
      job: '[ Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64"; RequestMemory = 1024; Rank = TARGET.Memory; Owner = "alice" ]',
      machines: Array.from({ length: 8 }, (_, i) => `[ Name = "slot${i}"; Arch = "X86_64"; Memory = ${512 * (i + 1)}; Requirements = true ]`),
    },
  },
];

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

let logBytes = 0;

async function drive(base: string, t: Target): Promise<Row> {
  const body = t.body === undefined ? undefined : JSON.stringify(t.body);
  const opts = {
    url: `${base}${t.path}`,
    method: t.method,
    headers: body ? { "content-type": "application/json" } : {},
    body,
    connections: CONNECTIONS,
    amount: REQUESTS,
  };
  // Warm the isolate (and, with the cache on, the cache entry) before measuring.
  await autocannon({ ...opts, amount: 200 });
  // Timed from the responses themselves: autocannon's own start/finish, and the moment its
  // promise settles, are only as fine as its 1 s sampling tick.
  let first = 0;
  let last = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(opts, (error, res) => (error ? fail(error) : done(res)));
    instance.on("response", () => {
      last = performance.now();
      if (first === 0) first = last;
    });
  });
  const seconds = (last - first) / 1000;
  return {
    name: t.name,
    rps: result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

function print(title: string, rows: Row[]): void {
  const base = rows[0];
  console.log(`\n${title} (${REQUESTS} requests, ${CONNECTIONS} connections)`);
  console.log(`${"route".padEnd(26)} ${"req/s".padStart(9)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"errors".padStart(6)}  no-op/route`);
  for (const r of rows) {
    console.log(
      `${r.name.padEnd(26)} ${r.rps.toFixed(0).padStart(9)} ${r.p50.toFixed(1).padStart(7)} ${r.p99.toFixed(1).padStart(7)} ${String(r.errors).padStart(6)}  ${(base.rps / r.rps).toFixed(2)}×`,
    );
  }
}

async function main(): Promise<void> {
  let failed = false;
  const script = bundleWorker();
  for (const [title, cache] of [
    ["cache off", 0],
    ["cache warm", 60],
  ] as const) {
    // The decision log lines still are written by the Worker, as in production; the bench
    // only counts them instead of printing thousands of lines to its own terminal.
    const worker = await startWorker(script, 8790 + (cache % 7), cache, (chunk) => (logBytes += chunk.length));
    try {
      const rows: Row[] = [];
      for (const t of TARGETS) rows.push(await drive(worker.url, t));
      print(title, rows);
      failed ||= rows.some((r) => r.errors > 0);
    } finally {
      await worker.stop();
    }
  }
  console.log(`\nthe Worker wrote ${(logBytes / 1024).toFixed(0)} KiB of decision log lines`);
  console.log("\ngoal: decision routes within 1.3× of the no-op with the cache off, 1.1× with it warm; zero errors");
  if (failed) process.exitCode = 1;
}

await main();
