/**
 * `npm run bench:http`: the Worker bundled as `wrangler deploy` bundles it and
 * served by workerd through Miniflare (embedded policies), driven from this
 * second process over loopback with autocannon.
 * Each decision route is compared with the no-op route `GET /healthz` measured
 * in the same run, once with the verdict cache off and once with it warm.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";

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

interface RunningWorker {
  url: string;
  stop(): Promise<void>;
}

const OUT_DIR = resolve(".bench/dist");
let logBytes = 0;

/** Bundles the Worker exactly as `wrangler deploy` would, without deploying. */
function bundleWorker(): string {
  rmSync(OUT_DIR, { recursive: true, force: true });
  const built = spawnSync("npx", ["wrangler", "deploy", "--dry-run", "--outdir", OUT_DIR], { stdio: "ignore" });
  if (built.status !== 0) throw new Error("wrangler deploy --dry-run failed");
  const script = join(OUT_DIR, "worker.js");
  // workerd refuses source maps that point outside the modules root; the bench needs none.
  writeFileSync(script, readFileSync(script, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n"));
  return script;
}

/**
 * Serves the bundle from workerd through Miniflare (the one wrangler itself
 * uses), listening on loopback: the requests reach workerd directly, without
 * wrangler dev's proxy in front.
 */
async function startWorker(script: string, port: number, cacheSeconds: number): Promise<RunningWorker> {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  // Typed by hand: the top-level `miniflare` types belong to the test plugin's newer major version.
  const { Miniflare } = (await import(pathToFileURL(fromWrangler.resolve("miniflare")).href)) as {
    Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> };
  };
  const mf = new Miniflare({
    modules: true,
    modulesRoot: OUT_DIR,
    scriptPath: script,
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["POLICIES"],
    durableObjects: { JOB_QUEUE: "JobQueue", HOST_POOL: "HostPool" },
    bindings: {
      VERDICT_CACHE_SECONDS: String(cacheSeconds),
      // No resolver: the toolkit's bogon check answers its fail-result at once instead of waiting on a network this machine lacks.
      DOH_URL: "",
      BUNDLE_REFRESH_SECONDS: "5",
      LEASE_SECONDS: "600",
      LOCAL_ADDRESSES: "",
    },
    host: "127.0.0.1",
    port,
    // The decision log lines still are written by the Worker, as in production; the bench
    // only counts them instead of printing thousands of lines to its own terminal.
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      stdout.on("data", (chunk: Buffer) => (logBytes += chunk.length));
      stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    },
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  return { url, stop: () => mf.dispose() };
}

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
    const worker = await startWorker(script, 8790 + (cache % 7), cache);
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
