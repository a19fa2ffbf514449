/**
 * `npm run bench:memory`: what an isolate keeps after many distinct decisions.
 * The Worker is bundled as `wrangler deploy` bundles it and served by workerd
 * through Miniflare with the verdict cache off and its V8 inspector on; it is
 * sent distinct decision requests (limits, place and match in turn, each body
 * different from every other, so no per-isolate cache ever hits), and at each
 * size of MEMORY_SIZES (default 10,000 and 40,000) the isolate's heap is
 * measured after a full collection (`Runtime.getHeapUsage`), beside the
 * workerd process's resident memory (from /proc). A bounded isolate keeps
 * about the same heap at both sizes; the growth per 1,000 decisions between
 * the two sizes is printed. Ports: BENCH_PORT and BENCH_PORT + 500 (inspector),
 * else free ones.
 */
import { join } from "node:path";
import { distinctDecision } from "./memory-requests.js";
import { connectInspector, heapAfterGc } from "./inspector.js";
import { benchPort, bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const SIZES = (process.env.MEMORY_SIZES ?? "10000,40000").split(",").map(Number);
const CONCURRENCY = Number(process.env.BENCH_CONNECTIONS ?? 16);
const MB = 1024 * 1024;

/** One measurement: after `decisions`, the isolate's heap (after a full GC) and the process's RSS, in bytes. */
export interface MemoryPoint {
  decisions: number;
  heapUsed: number;
  heapTotal: number;
  rss: number;
}

/** Sends distinct decisions `from` .. `to` - 1, CONCURRENCY at a time; throws on an answer other than 200. */
async function sendDistinct(worker: RunningWorker, from: number, to: number): Promise<void> {
  let next = from;
  const one = async (): Promise<void> => {
    while (next < to) {
      const r = distinctDecision(next++);
      const res = await fetch(`${worker.url}${r.path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(r.body),
      });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`${r.path} answered ${res.status}: ${text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
}

/**
 * Serves the bundle with its inspector, sends distinct decisions up to each of
 * `sizes` and measures the isolate there (and once before the first request).
 */
export async function measureMemory(
  script: string,
  sizes: readonly number[],
  bindings: Record<string, string> = {},
): Promise<MemoryPoint[]> {
  const inspectorPort = await benchPort(500);
  const worker = await startWorker(script, await benchPort(0), 0, () => {}, bindings, inspectorPort, {
    pin: "worker",
  });
  const inspector = await connectInspector(inspectorPort);
  const points: MemoryPoint[] = [];
  try {
    const measure = async (decisions: number) => {
      const dir = process.env.MEMORY_SNAPSHOTS;
      const heap = await heapAfterGc(
        inspector,
        dir ? join(dir, `arbiter-${decisions}.heapsnapshot`) : undefined,
      );
      points.push({ decisions, heapUsed: heap.usedSize, heapTotal: heap.totalSize, rss: worker.rssBytes() });
    };
    // one of each route first, so that the baseline has every route's code loaded
    await sendDistinct(worker, 0, 3);
    await measure(3);
    let sent = 3;
    for (const size of sizes) {
      await sendDistinct(worker, sent, size);
      sent = size;
      await measure(size);
    }
  } finally {
    inspector.close();
    await worker.stop();
  }
  return points;
}

/** The table rows of a measurement, with the growth per 1,000 decisions between the last two points. */
export function memoryRows(points: readonly MemoryPoint[]): string[] {
  const rows = [
    `| distinct decisions | heap used MB (after GC) | heap total MB | workerd RSS MB |`,
    `| ---: | ---: | ---: | ---: |`,
  ];
  for (const p of points)
    rows.push(
      `| ${p.decisions.toLocaleString("en")} | ${(p.heapUsed / MB).toFixed(1)} | ${(p.heapTotal / MB).toFixed(1)} | ${(p.rss / MB).toFixed(0)} |`,
    );
  const [a, b] = points.slice(-2);
  if (a !== undefined && b !== undefined && b.decisions > a.decisions) {
    const per = (bytes: number) => ((bytes * 1000) / (b.decisions - a.decisions) / 1024).toFixed(1);
    rows.push(
      "",
      `growth from ${a.decisions.toLocaleString("en")} to ${b.decisions.toLocaleString("en")}: heap ${per(b.heapUsed - a.heapUsed)} KiB, RSS ${per(b.rss - a.rss)} KiB per 1,000 decisions`,
    );
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const script = bundleWorker();
  console.log(
    `distinct decisions (limits, place, match in turn), verdict cache off, ${CONCURRENCY} at a time`,
  );
  console.log(memoryRows(await measureMemory(script, SIZES)).join("\n"));
}
