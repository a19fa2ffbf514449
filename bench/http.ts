/**
 * `npm run bench:http`: the Worker bundled as `wrangler deploy` bundles it
 * (its [build] step compiles policies/, so a fresh clone works) and served by
 * workerd through Miniflare, driven from this second process over loopback
 * with autocannon. Beside it runs the no-op Hono Worker of bench/noop/ with
 * the same Miniflare options; each decision route is compared with that
 * Worker answering the same POST body (the floor: transport, reading the
 * body, a JSON answer), in interleaved rounds of the same run, once with the
 * verdict cache off and once with it warm. Goal: every decision route within
 * 1.2× of its floor with the cache off.
 * Ports: BENCH_PORT (and the next two) when set, else free ports found on loopback.
 */
import autocannon from "autocannon";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const GOAL = 1.2;

interface Target {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: unknown;
}

const TARGETS: Target[] = [
  { name: "GET /healthz", method: "GET", path: "/healthz" },
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

interface Sample {
  rps: number;
  p50: number;
  errors: number;
}

/** A port for a server of this bench: BENCH_PORT + offset, or one the kernel says is free now. */
async function benchPort(offset: number): Promise<number> {
  const fixed = process.env.BENCH_PORT;
  if (fixed !== undefined && fixed !== "") return Number(fixed) + offset;
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

let logBytes = 0;

/** Drives one route with autocannon after a warm-up; throughput is timed from the responses themselves. */
async function drive(url: string, t: Target, body: string | undefined): Promise<Sample> {
  const opts = {
    url,
    method: t.method,
    headers: body ? { "content-type": "application/json" } : {},
    body,
    connections: CONNECTIONS,
    amount: REQUESTS,
  };
  await autocannon({ ...opts, amount: 200 });
  // autocannon's own start/finish are only as fine as its 1 s sampling tick
  let first = 0;
  let last = 0;
  const result = await new Promise<autocannon.Result>((done, fail) => {
    const instance = autocannon(opts, (error, res) => (error ? fail(error) : done(res)));
    instance.on("response", () => {
      last = performance.now();
      if (first === 0) first = last;
    });
  });
  return { rps: result.requests.total / ((last - first) / 1000), p50: result.latency.p50, errors: result.errors + result.non2xx + result.timeouts };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

interface Row {
  name: string;
  rps: number;
  floorRps: number;
  p50: number;
  errors: number;
}

/** Each route and the no-op answering the same request, in interleaved rounds; medians. */
async function measure(worker: RunningWorker, noop: RunningWorker): Promise<Row[]> {
  const rows: Row[] = [];
  for (const t of TARGETS) {
    const body = t.body === undefined ? undefined : JSON.stringify(t.body);
    const route: Sample[] = [];
    const floor: Sample[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      floor.push(await drive(`${noop.url}${t.path}`, t, body));
      route.push(await drive(`${worker.url}${t.path}`, t, body));
    }
    rows.push({
      name: t.name,
      rps: median(route.map((s) => s.rps)),
      floorRps: median(floor.map((s) => s.rps)),
      p50: median(route.map((s) => s.p50)),
      errors: route.reduce((n, s) => n + s.errors, 0) + floor.reduce((n, s) => n + s.errors, 0),
    });
  }
  return rows;
}

function print(title: string, rows: Row[]): boolean {
  console.log(`\n${title} (${REQUESTS} requests × ${ROUNDS} interleaved rounds, ${CONNECTIONS} connections; medians)`);
  console.log(`${"route".padEnd(24)} ${"req/s".padStart(8)} ${"no-op req/s".padStart(12)} ${"cost ratio".padStart(10)} ${"p50 ms".padStart(7)} ${"errors".padStart(6)}`);
  let met = true;
  for (const r of rows) {
    const ratio = r.floorRps / r.rps;
    if (r.name.startsWith("POST") && ratio > GOAL) met = false;
    console.log(
      `${r.name.padEnd(24)} ${r.rps.toFixed(0).padStart(8)} ${r.floorRps.toFixed(0).padStart(12)} ${`${ratio.toFixed(2)}×`.padStart(10)} ${r.p50.toFixed(1).padStart(7)} ${String(r.errors).padStart(6)}`,
    );
  }
  return met;
}

async function main(): Promise<void> {
  let failed = false;
  const script = bundleWorker();
  const noopScript = bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)));
  console.log("cost ratio = the no-op Hono Worker's req/s answering the same request ÷ the route's req/s (1.00× = no cost above the floor)");
  const noop = await startWorker(noopScript, await benchPort(0), 0, () => {});
  try {
    for (const [title, cache, offset] of [
      ["cache off", 0, 1],
      ["cache warm", 60, 2],
    ] as const) {
      // the Worker still writes its decision log lines, as in production; the bench counts them instead of printing them
      const worker = await startWorker(script, await benchPort(offset), cache, (chunk) => (logBytes += chunk.length));
      try {
        const rows = await measure(worker, noop);
        const met = print(title, rows);
        if (cache === 0) console.log(met ? `every decision route within ${GOAL}× of its floor` : `goal not met: a decision route above ${GOAL}× of its floor`);
        failed ||= rows.some((r) => r.errors > 0);
      } finally {
        await worker.stop();
      }
    }
  } finally {
    await noop.stop();
  }
  console.log(`\nthe Worker wrote ${(logBytes / 1024).toFixed(0)} KiB of decision log lines`);
  if (failed) process.exitCode = 1;
}

await main();
