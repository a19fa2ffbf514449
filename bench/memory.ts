/**
 * `npm run bench:memory`: what an isolate keeps after many distinct decisions.
 * The Worker is bundled as `wrangler deploy` bundles it and served by workerd
 * through Miniflare with the verdict cache off and its V8 inspector on; it is
 * sent distinct decision requests (limits, place and match in turn, each body
 * different from every other, so no per-isolate cache ever hits), and at each
 * size of MEMORY_SIZES (default 10,000 and 40,000) the isolate's heap is
 * measured after a full collection (`Runtime.getHeapUsage`, with its
 * ArrayBuffer backing stores, which the heap figures leave out), beside the
 * workerd process's resident memory (from /proc, read before the collection,
 * whose heap snapshot itself adds to it) split into V8's reservations (the
 * cage every isolate's heap lives in) and the rest (tcmalloc's memory,
 * stacks) and files. A bounded isolate keeps about the same heap at both
 * sizes; the growth per 1,000 decisions between the last two sizes is printed.
 *
 * MEMORY_ROUTES: some of limits,place,match (default all three, in turn),
 * or match-regex (a distinct pattern of about 4,900 instructions a request).
 * MEMORY_REPEATED=1: each route's first request over and over instead of
 * distinct ones. MEMORY_PATTERN=const: every match job tests the same regex
 * pattern (all else still distinct), to tell patterns from other content. MEMORY_WORKER=noop: the no-op Worker of bench/noop/ (the
 * floor: workerd and Miniflare's own memory) sent the same bodies.
 * MEMORY_MALLOC=1: after each collection also ask workerd's allocator
 * (tcmalloc) through gdb what it has in use and what it holds resident
 * (needs gdb and the right to attach; workerd stops a few seconds each time).
 * MEMORY_HEAP=0: no inspector and no heap figures (a heap snapshot's own
 * buffers stay in the allocator and so in RSS; without them RSS is the run's).
 * MEMORY_PROGRESS=1: each row on stderr as it is measured.
 * MEMORY_RELEASE=1: after each point tcmalloc is asked (through gdb) to return
 * its free pages to the system, and the RSS then is printed on stderr: what
 * RSS held beyond it was the allocator's high-water mark, not live memory.
 * MEMORY_PROFILE=<bytes>: after the first point, tcmalloc samples one
 * allocation every <bytes> (through gdb), and at each later point the live
 * sampled allocations are read (bench/malloc-profile.ts); the stacks whose
 * live bytes grew most between the last two points are printed, which names
 * the owner of memory the allocator keeps.
 * Ports: BENCH_PORT and BENCH_PORT + 500 (inspector), else free ones.
 */
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ALL_MEMORY_ROUTES, MEMORY_ROUTES, runDecision, type MemoryRoute } from "./memory-requests.js";
import { connectInspector, heapAfterGc } from "./inspector.js";
import { mallocFigures, releaseFreeMemory, residentSplit } from "./process-memory.js";
import { heapProfile, profileGrowth, setSamplingInterval, type ProfileStack } from "./malloc-profile.js";
import { benchPort, bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const SIZES = (process.env.MEMORY_SIZES ?? "10000,40000").split(",").map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 16);
const MB = 1024 * 1024;

/** What a run sends and measures (every field optional: the Worker's three routes, distinct, no allocator figures). */
export interface MemoryOptions {
  routes?: readonly MemoryRoute[];
  /** Each route's first request over and over instead of distinct ones. */
  repeated?: boolean;
  /** The script is the no-op Worker (no Durable Object classes). */
  noop?: boolean;
  /** Ask tcmalloc through gdb after each collection. */
  malloc?: boolean;
  /** false: no inspector and no heap figures, so that no heap snapshot adds to the process's memory. */
  heap?: boolean;
  bindings?: Record<string, string>;
  /** tcmalloc's sampling interval in bytes: heap profiles at each point after the first, their growth printed. */
  profile?: number;
}

/**
 * One measurement after `decisions`, in bytes: the isolate's heap (after a
 * full GC), the process's resident memory (before it) and its split, and
 * the allocator's figures when asked for.
 */
export interface MemoryPoint {
  decisions: number;
  heapUsed: number;
  heapTotal: number;
  /** ArrayBuffer backing stores after the collection (typed arrays live there, outside the heap figures). */
  arrayBuffers?: number;
  rss: number;
  /** The machine's load average (1 minute) when measured. */
  load: number;
  v8?: number;
  otherAnon?: number;
  mallocInUse?: number;
  mallocResident?: number;
  /** Requests sent again after a connection workerd closed (decisions are stateless, so a retry is harmless). */
  retries: number;
}

/** Sends requests `from` .. `to` - 1 of the run, CONCURRENCY at a time; throws on an answer other than 200. */
async function sendRun(
  worker: RunningWorker,
  from: number,
  to: number,
  options: MemoryOptions,
): Promise<number> {
  let next = from;
  let retries = 0;
  const routes = options.routes ?? MEMORY_ROUTES;
  const post = async (path: string, body: string): Promise<Response> => {
    const init = { method: "POST", headers: { "content-type": "application/json" }, body };
    try {
      return await fetch(`${worker.url}${path}`, init);
    } catch {
      // a keep-alive connection workerd closed while the bench paused (heap snapshot, gdb)
      retries++;
      return fetch(`${worker.url}${path}`, init);
    }
  };
  const one = async (): Promise<void> => {
    while (next < to) {
      const r = runDecision(next++, routes, options.repeated === true);
      const res = await post(r.path, JSON.stringify(r.body));
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${r.path} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  return retries;
}

/**
 * Serves the bundle with its inspector, sends distinct decisions up to each of
 * `sizes` and measures the isolate there (and once before the first request).
 */
export async function measureMemory(
  script: string,
  sizes: readonly number[],
  options: MemoryOptions = {},
): Promise<MemoryPoint[]> {
  const inspectorPort = options.heap === false ? undefined : await benchPort(500);
  const worker = await startWorker(
    script,
    await benchPort(0),
    0,
    () => {},
    options.bindings ?? {},
    inspectorPort,
    {
      pin: "worker",
      ...(options.noop === true ? { objects: false } : {}),
    },
  );
  const inspector = inspectorPort === undefined ? undefined : await connectInspector(inspectorPort);
  const points: MemoryPoint[] = [];
  try {
    let retries = 0;
    const measure = async (decisions: number) => {
      const split = worker.pid === undefined ? undefined : residentSplit(worker.pid);
      const rss = worker.rssBytes();
      const dir = process.env.MEMORY_SNAPSHOTS;
      const heap =
        inspector === undefined
          ? { usedSize: NaN, totalSize: NaN, backingStorageSize: undefined }
          : await heapAfterGc(inspector, dir ? join(dir, `arbiter-${decisions}.heapsnapshot`) : undefined);
      const malloc =
        options.malloc === true && worker.pid !== undefined ? mallocFigures(worker.pid) : undefined;
      points.push({
        decisions,
        heapUsed: heap.usedSize,
        heapTotal: heap.totalSize,
        arrayBuffers: heap.backingStorageSize,
        rss,
        load: loadavg()[0],
        v8: split?.v8,
        otherAnon: split?.otherAnon,
        mallocInUse: malloc?.inUse,
        mallocResident: malloc?.resident,
        retries,
      });
      if (process.env.MEMORY_PROGRESS === "1") {
        console.error(memoryRow(points[points.length - 1]));
        if (malloc !== undefined)
          console.error(`  malloc peak in use (tcmalloc's estimate) ${mb(malloc.peakInUse)} MB`);
      }
      if (process.env.MEMORY_RELEASE === "1" && worker.pid !== undefined) {
        const released = releaseFreeMemory(worker.pid);
        const after = worker.rssBytes();
        console.error(
          released
            ? `  RSS after tcmalloc released its free pages ${(after / MB).toFixed(0)} MB`
            : "  MEMORY_RELEASE: gdb could not",
        );
      }
      if (options.profile !== undefined && worker.pid !== undefined && points.length > 1) {
        const profile = heapProfile(worker.pid);
        if (profile === undefined) console.error("heap profile: gdb could not take it");
        else {
          const live = profile.reduce((n, s) => n + s.bytes, 0);
          console.error(
            `heap profile at ${decisions}: ${(live / MB).toFixed(1)} MB live in ${profile.length} stacks`,
          );
          if (profiles.length > 0) printGrowth(profiles[profiles.length - 1], profile);
          profiles.push(profile);
        }
      }
    };
    const profiles: ProfileStack[][] = [];
    // one of each route first, so that the baseline has every route's code loaded
    const first = (options.routes ?? MEMORY_ROUTES).length;
    retries += await sendRun(worker, 0, first, options);
    await measure(first);
    if (
      options.profile !== undefined &&
      worker.pid !== undefined &&
      !setSamplingInterval(worker.pid, options.profile)
    )
      console.error("MEMORY_PROFILE: gdb could not set the sampling interval");
    let sent = first;
    for (const size of sizes) {
      retries += await sendRun(worker, sent, size, options);
      sent = size;
      await measure(size);
    }
  } finally {
    inspector?.close();
    await worker.stop();
  }
  return points;
}

/** The stacks whose live bytes grew most between two heap profiles, on stderr. */
function printGrowth(before: ProfileStack[], after: ProfileStack[]): void {
  for (const g of profileGrowth(before, after).slice(0, 12)) {
    if (g.bytes <= 0) break;
    console.error(`  +${(g.bytes / MB).toFixed(2)} MB\n    ${g.frames.join("\n    ")}`);
  }
}

function mb(bytes: number | undefined): string {
  return bytes === undefined || Number.isNaN(bytes) ? "–" : (bytes / MB).toFixed(1);
}

/** One point's table row (MEMORY_PROGRESS=1 prints each to stderr as it is measured). */
export function memoryRow(p: MemoryPoint): string {
  return `| ${p.decisions.toLocaleString("en")} | ${mb(p.heapUsed)} | ${mb(p.heapTotal)} | ${mb(p.arrayBuffers)} | ${(p.rss / MB).toFixed(0)} | ${mb(p.v8)} | ${mb(p.otherAnon)} | ${mb(p.mallocInUse)} | ${mb(p.mallocResident)} | ${p.load.toFixed(1)} |`;
}

/** The table rows of a measurement, with the growth per 1,000 decisions between the last two points. */
export function memoryRows(points: readonly MemoryPoint[], what = "distinct decisions"): string[] {
  const rows = [
    `| ${what} | heap used MB (after GC) | heap total MB | array buffers MB (after GC) | workerd RSS MB | V8 reservations MB | other anonymous MB | malloc in use MB (after GC) | malloc resident MB | load average |`,
    `| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const p of points) rows.push(memoryRow(p));
  const [a, b] = points.slice(-2);
  if (a !== undefined && b !== undefined && b.decisions > a.decisions) {
    const per = (x: number | undefined, y: number | undefined) =>
      x === undefined || y === undefined || Number.isNaN(x) || Number.isNaN(y)
        ? "–"
        : (((y - x) * 1000) / (b.decisions - a.decisions) / 1024).toFixed(1);
    rows.push(
      "",
      `growth from ${a.decisions.toLocaleString("en")} to ${b.decisions.toLocaleString("en")}: heap ${per(a.heapUsed, b.heapUsed)} KiB, RSS ${per(a.rss, b.rss)} KiB (V8 reservations ${per(a.v8, b.v8)}, other anonymous ${per(a.otherAnon, b.otherAnon)}), malloc in use ${per(a.mallocInUse, b.mallocInUse)} KiB per 1,000 decisions`,
    );
  }
  const retries = points.at(-1)?.retries ?? 0;
  if (retries > 0) rows.push(`(${retries} requests sent again after workerd closed a kept-alive connection)`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const noop = process.env.MEMORY_WORKER === "noop";
  const script = noop
    ? bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)))
    : bundleWorker();
  const routes = (process.env.MEMORY_ROUTES ?? MEMORY_ROUTES.join(",")).split(",") as MemoryRoute[];
  for (const r of routes) if (!ALL_MEMORY_ROUTES.includes(r)) throw new Error(`MEMORY_ROUTES: no route ${r}`);
  const repeated = process.env.MEMORY_REPEATED === "1";
  const what = repeated ? "repeated decisions" : "distinct decisions";
  console.log(
    `${what} (${routes.join(", ")} in turn) to ${noop ? "the no-op Worker" : "the Worker, verdict cache off"}, ${CONCURRENCY} at a time; load average ${loadavg()[0].toFixed(1)}`,
  );
  const points = await measureMemory(script, SIZES, {
    routes,
    repeated,
    noop,
    malloc: process.env.MEMORY_MALLOC === "1",
    heap: process.env.MEMORY_HEAP !== "0",
    ...(process.env.MEMORY_PROFILE ? { profile: Number(process.env.MEMORY_PROFILE) } : {}),
  });
  console.log(memoryRows(points, what).join("\n"));
  console.log(`load average at the end ${loadavg()[0].toFixed(1)}`);
}
