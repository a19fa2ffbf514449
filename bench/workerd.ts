/**
 * The Worker as `wrangler deploy` bundles it, served by workerd through Miniflare
 * (the one wrangler itself uses) on loopback: shared by the HTTP and CPU benchmarks.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { createServer } from "node:net";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * The machine's CPUs as this process first saw them: once `pin` has moved this
 * process to some of them, `availableParallelism()` counts only those, and a
 * second Worker would no longer be pinned (it then shared the load generator's CPU).
 */
const MACHINE_CPUS = availableParallelism();

/** A running Worker: its base URL, its workerd process's CPU time so far, and how to stop it. */
export interface RunningWorker {
  url: string;
  /** CPU seconds (user + system, all threads) its workerd process has used, from /proc; NaN where /proc is absent. */
  cpuSeconds(): number;
  /** The part of `cpuSeconds` spent in the kernel (system time: sockets, writes, page faults, fsync), from /proc. */
  kernelSeconds(): number;
  /** Whether its workerd was pinned to a CPU of its own (`startWorker`'s `pin` option). */
  pinned: boolean;
  /** Its workerd process's id, when found in /proc. */
  pid?: number;
  /** Its workerd process's resident memory in bytes (VmRSS, from /proc); NaN where /proc is absent. */
  rssBytes(): number;
  stop(): Promise<void>;
}

/** The workerd children of this process, by pid. */
function workerdChildren(): number[] {
  const out: number[] = [];
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return out;
  }
  for (const pid of pids) {
    const stat = procStat(Number(pid));
    if (stat?.comm === "workerd" && stat.ppid === process.pid) out.push(Number(pid));
  }
  return out;
}

function procStat(pid: number): { comm: string; ppid: number; cpu: number; kernel: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // Fields after the `(comm)` part: state ppid ... utime(14) stime(15), 1-based over the whole line.
  const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    comm,
    ppid: Number(rest[1]),
    cpu: (Number(rest[11]) + Number(rest[12])) / 100,
    kernel: Number(rest[12]) / 100,
  };
}

function procRss(pid: number): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kb === null ? NaN : Number(kb[1]) * 1024;
  } catch {
    return NaN;
  }
}

/**
 * On Linux with `taskset` and at least two CPUs: the workerd `pid` on the last
 * CPU and, with `loadGenerator`, this process on the others, so that the
 * Workers' cost is not mixed with the load generator's and each Worker, when
 * driven, has one CPU to itself. Returns whether it pinned.
 */
function pin(pid: number, loadGenerator: boolean): boolean {
  const cpus = MACHINE_CPUS;
  if (cpus < 2) return false;
  const last = cpus - 1;
  const worker = spawnSync("taskset", ["-a", "-p", "-c", String(last), String(pid)], { stdio: "ignore" });
  if (worker.status !== 0) return false;
  if (loadGenerator)
    spawnSync("taskset", ["-a", "-p", "-c", last === 1 ? "0" : `0-${last - 1}`, String(process.pid)], {
      stdio: "ignore",
    });
  return true;
}

/** This bench process's own folder under `.bench/` (removed when it exits), so two benches run from one checkout at once do not overwrite each other's bundles. */
const RUN_DIR = resolve(`.bench/run-${process.pid}`);
let runDirCleanup = false;

/** `name` inside this process's own folder under `.bench/` (see {@link RUN_DIR}). */
export function benchDir(name: string): string {
  if (!runDirCleanup) {
    runDirCleanup = true;
    process.once("exit", () => rmSync(RUN_DIR, { recursive: true, force: true }));
  }
  return join(RUN_DIR, name);
}

const OUT_DIR = benchDir("dist");
const NOOP_DIR = benchDir("noop");

/**
 * Bundles the Worker exactly as `wrangler deploy` would (its [build] step
 * included, so a fresh clone's policies are compiled), without deploying; with
 * `config`, another Worker (the bench's no-op) is bundled the same way; into
 * `outDir` when given (a test's own folder); `extraArgs` go to wrangler as they are
 * (`--no-minify` for a bench that patches the bundle's text).
 */
export function bundleWorker(
  config?: string,
  outDir = config === undefined ? OUT_DIR : NOOP_DIR,
  extraArgs: string[] = [],
): string {
  rmSync(outDir, { recursive: true, force: true });
  const args = [
    "wrangler",
    "deploy",
    "--dry-run",
    "--outdir",
    outDir,
    ...(config === undefined ? [] : ["--config", config]),
    ...extraArgs,
  ];
  const built = spawnSync("npx", args, { stdio: "ignore" });
  if (built.status !== 0)
    throw new Error(`wrangler deploy --dry-run failed${config === undefined ? "" : ` for ${config}`}`);
  const script = join(outDir, "worker.js");
  // workerd refuses source maps that point outside the modules root; the benchmarks need none.
  writeFileSync(script, readFileSync(script, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n"));
  return script;
}

type MiniflareClass = new (options: Record<string, unknown>) => {
  ready: Promise<URL>;
  dispose(): Promise<void>;
};

/** wrangler's own Miniflare (typed by hand: the top-level `miniflare` types may belong to another version than wrangler's). */
async function loadMiniflare(): Promise<MiniflareClass> {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const { Miniflare } = (await import(pathToFileURL(fromWrangler.resolve("miniflare")).href)) as {
    Miniflare: MiniflareClass;
  };
  return Miniflare;
}

/** One Worker's Miniflare options: the bundle, KV, the Durable Objects (see `startWorker`'s `objects`, `shards`) and the bench's bindings. */
function workerOptions(
  script: string,
  cacheSeconds: number,
  options: { objects?: boolean; shards?: boolean },
  extraBindings: Record<string, string> = {},
): Record<string, unknown> {
  return {
    modules: true,
    modulesRoot: dirname(script),
    scriptPath: script,
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["POLICIES"],
    // SQLite-backed, as wrangler.toml's migrations declare them
    ...(options.objects === false
      ? {}
      : {
          durableObjects: {
            JOB_QUEUE: { className: "JobQueue", useSQLite: true },
            HOST_POOL: { className: "HostPool", useSQLite: true },
            POLICY_COORDINATOR: { className: "PolicyCoordinator", useSQLite: true },
            ...(options.shards === false
              ? {}
              : { METRICS_SHARD: { className: "MetricsShard", useSQLite: true } }),
          },
        }),
    bindings: {
      VERDICT_CACHE_SECONDS: String(cacheSeconds),
      // No resolver: the toolkit's bogon check answers its fail-result at once instead of waiting on a network this machine lacks.
      DOH_URL: "",
      BUNDLE_REFRESH_SECONDS: "5",
      LEASE_SECONDS: "600",
      LOCAL_ADDRESSES: "",
      ...extraBindings,
    },
  };
}

/** Serves the bundle from workerd on loopback; `onStdout` receives the Worker's log output. */
export async function startWorker(
  script: string,
  port: number,
  cacheSeconds: number,
  onStdout: (chunk: Buffer) => void,
  extraBindings: Record<string, string> = {},
  /** When set, workerd's V8 inspector listens here (bench/http-profile.ts profiles through it). */
  inspectorPort?: number,
  /**
   * `pin`: with `BENCH_PIN` not `0`, workerd on the last CPU and this process on the others;
   * `"worker"`: only workerd on the last CPU (a test's busy host, leaving its runner alone).
   * `objects: false`: no Durable Object namespaces, for a Worker that exports no classes
   * (the no-op), which workerd would otherwise warn about at every start.
   * `shards: false`: no METRICS_SHARD binding, so the isolate's counts are never flushed
   * to a deployment-wide total (bench:http's metrics on/off table).
   * `storage`: the folder Miniflare keeps KV, Durable Object and cache data in (its
   * `defaultPersistRoot`; by default a folder of its own under the system's temporary
   * folder, on disk); the caller makes it and removes it.
   */
  options: { pin?: boolean | "worker"; objects?: boolean; shards?: boolean; storage?: string } = {},
): Promise<RunningWorker> {
  const Miniflare = await loadMiniflare();
  const before = new Set(workerdChildren());
  const mf = new Miniflare({
    ...workerOptions(script, cacheSeconds, options, extraBindings),
    host: "127.0.0.1",
    port,
    ...(options.storage === undefined ? {} : { defaultPersistRoot: options.storage }),
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      stdout.on("data", onStdout);
      stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    },
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  const pid = workerdChildren().find((p) => !before.has(p));
  const pinning = options.pin === "worker" || (options.pin === true && process.env.BENCH_PIN !== "0");
  const pinned = pid !== undefined && pinning && pin(pid, options.pin === true);
  return {
    url,
    pinned,
    pid,
    cpuSeconds: () => (pid === undefined ? NaN : (procStat(pid)?.cpu ?? NaN)),
    kernelSeconds: () => (pid === undefined ? NaN : (procStat(pid)?.kernel ?? NaN)),
    rssBytes: () => (pid === undefined ? NaN : procRss(pid)),
    stop: () => mf.dispose(),
  };
}

/** A port for a server of this bench: BENCH_PORT + offset, or one the kernel says is free now. */
export async function benchPort(offset: number): Promise<number> {
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

/** One Worker of `startWorkers`: its name (the `MF-Route-Override` header that reaches it), bundle and bindings. */
export interface SharedWorker {
  name: string;
  script: string;
  bindings?: Record<string, string>;
  /** As `startWorker`'s options: no Durable Object namespaces (`false`), or none for `METRICS_SHARD` (`shards: false`). */
  objects?: boolean;
  shards?: boolean;
}

/** Several Workers served by one workerd process, each in its own isolate, reached through its name. */
export interface SharedWorkers {
  url: string;
  pid?: number;
  pinned: boolean;
  /**
   * CPU nanoseconds (user + system) the process's threads have run, summed over
   * /proc/<pid>/task/<tid>/schedstat (the scheduler's own account, to the nanosecond, where
   * /proc/<pid>/stat counts 10 ms ticks); NaN where /proc is absent. A thread that ends
   * between two readings takes its time with it: read deltas over short blocks.
   */
  cpuNanoseconds(): number;
  kernelSeconds(): number;
  stop(): Promise<void>;
}

function threadsCpuNs(pid: number): number {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return NaN;
  }
  let sum = 0;
  for (const tid of tids) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return sum;
}

/**
 * Serves every Worker of `workers` from ONE workerd process (Miniflare's entry Worker
 * routes a request by its `MF-Route-Override` header), so that blocks of requests sent to
 * each in turn are measured under the same process, heap allocator, CPU and machine state
 * (`bench:ladder`'s paired method). Bindings and options as `startWorker`'s; `pin` as there.
 */
export async function startWorkers(
  workers: SharedWorker[],
  port: number,
  onStdout: (chunk: Buffer) => void,
  options: { pin?: boolean } = {},
): Promise<SharedWorkers> {
  const Miniflare = await loadMiniflare();
  const before = new Set(workerdChildren());
  const mf = new Miniflare({
    host: "127.0.0.1",
    port,
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      stdout.on("data", onStdout);
      stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    },
    workers: workers.map((w) => ({ name: w.name, ...workerOptions(w.script, 0, w, w.bindings) })),
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  const pid = workerdChildren().find((p) => !before.has(p));
  const pinning = options.pin === true && process.env.BENCH_PIN !== "0";
  const pinned = pid !== undefined && pinning && pin(pid, true);
  return {
    url,
    pid,
    pinned,
    cpuNanoseconds: () => (pid === undefined ? NaN : threadsCpuNs(pid)),
    kernelSeconds: () => (pid === undefined ? NaN : (procStat(pid)?.kernel ?? NaN)),
    stop: () => mf.dispose(),
  };
}
