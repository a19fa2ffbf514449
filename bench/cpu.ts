/**
 * `npm run bench:cpu`: CPU time per request in workerd, the figure Cloudflare bills
 * and limits (10 ms per request on Workers Free; 30 s by default on Workers Paid).
 * The Worker is bundled as `wrangler deploy` bundles it and served by workerd through
 * Miniflare; each route is sent sequentially and the workerd process's own CPU time
 * (user + system, from /proc, so Linux only) is divided by the number of requests.
 * The verdict cache is off and every request differs, so each one is decided.
 * /proc counts in 10 ms ticks: enough requests are sent for a resolution under 1 ms per request.
 * Port: BENCH_PORT when set, else a free port on loopback.
 */
import { bundleWorker, startWorker } from "./workerd.js";
import { JOB_AD } from "./fixtures.js";

interface Route {
  name: string;
  method: "GET" | "POST";
  path: string;
  requests: number;
  /** The body of request number `i` (each differs, so no cache of any level answers it). */
  body?: (i: number) => unknown;
}

/**
 * A slot ad of 20 attributes (about 480 bytes): 2,000 of the 55-attribute ads of
 * bench/classad.ts would not fit the 1 MiB request body limit.
 */
function compactSlot(i: number): string {
  return `[ MyType = "Machine"; Name = "slot1@node${i}.example.org"; Machine = "node${i}.example.org"; Arch = "X86_64"; OpSys = "LINUX"; Cpus = ${1 + (i % 32)}; Memory = ${2048 * (1 + (i % 16))}; Disk = ${1048576 * (2 + (i % 8))}; Mips = ${20000 + (i % 100)}; KFlops = 1500000; HasFileTransfer = true; State = "Unclaimed"; Activity = "Idle"; LoadAvg = 0.0${i % 10}; Draining = false; SlotType = "Partitionable"; StartdIpAddr = "<192.0.2.${i % 250}:9618>"; UidDomain = "example.org"; Start = true; Requirements = START && (TARGET.RequestMemory <= MY.Memory) && (TARGET.RequestCpus <= MY.Cpus) ]`;
}

const machines2000 = Array.from({ length: 2000 }, (_, i) => compactSlot(i));
const machines8 = machines2000.slice(0, 8);

const ROUTES: Route[] = [
  { name: "GET /healthz (no-op)", method: "GET", path: "/healthz", requests: 2000 },
  {
    name: "POST /v1/place",
    method: "POST",
    path: "/v1/place",
    requests: 2000,
    body: (i) => ({ user: `u${i}`, groups: ["dev_app"], tags: { namespace: "newapp" } }),
  },
  {
    name: "POST /v1/limits/decide (toolkit)",
    method: "POST",
    path: "/v1/limits/decide",
    requests: 2000,
    body: (i) => ({
      requester: `203.0.${i >> 8}.${i & 255}`,
      task: {
        schema: 1,
        test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } },
      },
    }),
  },
  {
    name: "POST /v1/match, 8 machines",
    method: "POST",
    path: "/v1/match",
    requests: 1000,
    body: (i) => ({ job: `${JOB_AD}\nBenchSerial = ${i}`, machines: machines8 }),
  },
  {
    name: "POST /v1/match, 2,000 machines",
    method: "POST",
    path: "/v1/match",
    requests: 40,
    body: (i) => ({ job: `${JOB_AD}\nBenchSerial = ${i}`, machines: machines2000 }),
  },
];

async function send(base: string, r: Route, i: number): Promise<void> {
  const body = r.body ? JSON.stringify(r.body(i)) : undefined;
  const res = await fetch(`${base}${r.path}`, {
    method: r.method,
    body,
    headers: body ? { "content-type": "application/json" } : {},
  });
  if (res.status !== 200) throw new Error(`${r.name}: status ${res.status}: ${await res.text()}`);
  await res.arrayBuffer();
}

const script = bundleWorker();
const worker = await startWorker(script, Number(process.env.BENCH_PORT ?? 0), 0, () => {});
try {
  if (Number.isNaN(worker.cpuSeconds()))
    throw new Error("no workerd child process found (this benchmark reads /proc, Linux only)");
  console.log(
    `${"route".padEnd(34)} ${"requests".padStart(8)} ${"CPU ms/request".padStart(15)} ${"wall ms/request".padStart(16)} ${"client CPU ms".padStart(16)} ${"first CPU ms".padStart(12)}`,
  );
  for (const r of ROUTES) {
    // The route's first request runs before the JIT has seen its code (as after an isolate starts).
    const first0 = worker.cpuSeconds();
    await send(worker.url, r, -1);
    const first = (worker.cpuSeconds() - first0) * 1000;
    for (let i = 1; i < Math.min(20, r.requests); i++) await send(worker.url, r, -1 - i);
    const cpu0 = worker.cpuSeconds();
    const client0 = process.cpuUsage();
    const wall0 = performance.now();
    for (let i = 0; i < r.requests; i++) await send(worker.url, r, i);
    const cpu = ((worker.cpuSeconds() - cpu0) * 1000) / r.requests;
    const wall = (performance.now() - wall0) / r.requests;
    const used = process.cpuUsage(client0);
    const client = (used.user + used.system) / 1000 / r.requests;
    console.log(
      `${r.name.padEnd(34)} ${String(r.requests).padStart(8)} ${cpu.toFixed(2).padStart(15)} ${wall.toFixed(2).padStart(16)} ${client.toFixed(2).padStart(16)} ${first.toFixed(0).padStart(12)}`,
    );
  }
  console.log(
    "\nCPU ms/request: after 20 warm-up requests of the route; first CPU ms: the route's first request (10 ms resolution).",
  );
  console.log("wall time includes waiting for a core on a busy machine; CPU time is what Workers count.");
  console.log(
    "Workers Free allows 10 ms of CPU per request; Workers Paid 30 s by default (limits.cpu_ms, up to 5 min).",
  );
} finally {
  await worker.stop();
}
