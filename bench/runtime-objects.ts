/**
 * `npx tsx bench/runtime-objects.ts` (`npm run bench:objects`): what one decision request asks
 * workerd for, per route, for the Worker and for the no-op Worker of bench/noop/, counted rather
 * than timed, so it needs no idle machine (issue 31 goal 7: the stalls are workerd destroying,
 * after a V8 collection, the C++ objects of earlier requests in one batch).
 *
 * - **Runtime objects per request**: each Worker is bundled as `wrangler deploy` bundles it,
 *   with bench/runtime-objects-prelude.ts evaluated in front of it (a bench-only build), and
 *   served by workerd (verdict cache off unless OBJECTS_CACHE_SECONDS says otherwise). The
 *   prelude counts constructions of runtime classes (`new Response`, `new Headers`, …), the
 *   first touch of objects the runtime makes lazily (`request.headers`, `request.body`),
 *   body reads, `crypto`, `caches.default`, `fetch`, console lines and calls on the env's
 *   bindings. After OBJECTS_WARMUP requests of a route, the counts over OBJECTS_REQUESTS
 *   more, one at a time, divided by their number.
 * - **JavaScript bytes allocated per request**: the plain bundle (no prelude), through workerd's
 *   V8 inspector: the sampling heap profiler (every OBJECTS_SAMPLE bytes on average, objects
 *   collected since counted too) over OBJECTS_REQUESTS requests after the warm-up, its total
 *   divided by their number, with the functions that allocate most; the heap after a full
 *   collection at the end of the route's run; and, before the sampling, how much workerd's
 *   C++-object heap (cppgc, a shim per JavaScript wrapper of a runtime object) grows per
 *   request between full collections: the wrappers whose C++ objects a full collection
 *   then destroys in one batch.
 *
 * OBJECTS_ROUTES (default limits,limits-allowed,place,match) names bench/http-requests.ts's
 * bodies; OBJECTS_TARGETS (default worker,noop). Nothing is timed.
 */
import { writeFileSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { DECISION_REQUESTS } from "./http-requests.js";
import { connectInspector, heapAfterGc, type Inspector } from "./inspector.js";
import { benchDir, benchPort, bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

type Route = keyof typeof DECISION_REQUESTS;
const ROUTES = (process.env.OBJECTS_ROUTES ?? "limits,limits-allowed,place,match").split(",") as Route[];
const TARGETS = (process.env.OBJECTS_TARGETS ?? "worker,noop").split(",") as ("worker" | "noop")[];
const WARMUP = Number(process.env.OBJECTS_WARMUP ?? 300);
const REQUESTS = Number(process.env.OBJECTS_REQUESTS ?? 1000);
const SAMPLE = Number(process.env.OBJECTS_SAMPLE ?? 64);
const CACHE_SECONDS = Number(process.env.OBJECTS_CACHE_SECONDS ?? 0);
/** OBJECTS_TAG_REQUEST=1: the counting build also puts a property on each incoming request (to see what that changes). */
const TAG_REQUEST = process.env.OBJECTS_TAG_REQUEST === "1";
const PRELUDE = fileURLToPath(new URL("./runtime-objects-prelude.ts", import.meta.url));
const PROBE_PATH = "/__runtime-objects";

/** The bench-only build: the prelude, then the Worker's bundle, its default export counting each request. */
function countingBuild(script: string, outDir: string): string {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const entry = join(outDir, "entry.js");
  writeFileSync(
    entry,
    [
      `import { countingEnv, noteIncoming, readCounts, uncounted } from ${JSON.stringify(PRELUDE)};`,
      `import worker from ${JSON.stringify(script)};`,
      `export * from ${JSON.stringify(script)};`,
      `export default {`,
      `  ...worker,`,
      `  fetch(request, env, ctx) {`,
      `    if (request.url.endsWith(${JSON.stringify(PROBE_PATH)})) return uncounted(() => new Response(JSON.stringify(readCounts())));`,
      `    noteIncoming(request);`,
      ...(TAG_REQUEST ? [`    request[Symbol.for("bench.tag")] = true;`] : []),
      `    return worker.fetch(request, countingEnv(env), ctx);`,
      `  },`,
      `};`,
    ].join("\n"),
  );
  const out = join(outDir, "worker.js");
  buildSync({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    external: ["cloudflare:*", "node:*"],
    outfile: out,
    logLevel: "error",
  });
  return out;
}

async function send(url: string, path: string, body: string): Promise<void> {
  const res = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
}

async function counts(url: string): Promise<Record<string, number>> {
  return (await (await fetch(`${url}${PROBE_PATH}`)).json()) as Record<string, number>;
}

async function start(
  script: string,
  target: "worker" | "noop",
  inspectorPort?: number,
): Promise<RunningWorker> {
  return startWorker(script, await benchPort(0), CACHE_SECONDS, () => {}, {}, inspectorPort, {
    objects: target !== "noop",
  });
}

interface Sampled {
  head: Node;
}
interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}

/** A frame's name: function, file and line; a built-in (no file) is named with the script frame that called it. */
function frameName(node: Node, caller: string): string {
  const f = node.callFrame;
  if (f.url === "") return `${f.functionName || "(native)"} ← ${caller}`;
  return `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
}

function walk(node: Node, into: Map<string, number>, caller = "(root)"): number {
  const name = frameName(node, caller);
  if (node.selfSize > 0) into.set(name, (into.get(name) ?? 0) + node.selfSize);
  let total = node.selfSize;
  for (const c of node.children) total += walk(c, into, node.callFrame.url === "" ? caller : name);
  return total;
}

/**
 * What the runtime's wrappers keep until a full collection, per request: the growth of
 * workerd's C++-object heap (cppgc: one shim per JavaScript wrapper of a runtime object,
 * `embedderHeapUsedSize`), read every 100 requests; a step where it fell (a full collection)
 * is left out. Nothing is added to the Worker for it.
 */
async function kept(insp: Inspector, url: string, path: string, body: string): Promise<number> {
  const embedder = async () =>
    (await insp.send<{ embedderHeapUsedSize?: number }>("Runtime.getHeapUsage")).embedderHeapUsedSize ?? NaN;
  let last = await embedder();
  let grown = 0;
  let steps = 0;
  for (let i = 1; i <= REQUESTS; i++) {
    await send(url, path, body);
    if (i % 100 !== 0) continue;
    const now = await embedder();
    if (now >= last) {
      grown += now - last;
      steps++;
    }
    last = now;
  }
  return grown / (steps * 100);
}

async function allocated(
  insp: Inspector,
  url: string,
  path: string,
  body: string,
): Promise<{ perRequest: number; top: [string, number][] }> {
  await insp.send("HeapProfiler.enable");
  await insp.send("HeapProfiler.startSampling", {
    samplingInterval: SAMPLE,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < REQUESTS; i++) await send(url, path, body);
  const { profile } = await insp.send<{ profile: Sampled }>("HeapProfiler.stopSampling");
  const by = new Map<string, number>();
  const total = walk(profile.head, by);
  const top = [...by]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 20)
    .map(([k, v]): [string, number] => [k, v / REQUESTS]);
  return { perRequest: total / REQUESTS, top };
}

function table(rows: Map<string, Map<string, number>>, columns: string[]): string {
  const head = `| per request | ${columns.join(" | ")} |\n| --- | ${columns.map(() => "---:").join(" | ")} |`;
  const fmt = (v: number | undefined) =>
    v === undefined ? "" : Number.isInteger(v) ? String(v) : v.toFixed(3);
  const lines = [...rows]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([label, byCol]) => `| ${label} | ${columns.map((c) => fmt(byCol.get(c))).join(" | ")} |`);
  return [head, ...lines].join("\n");
}

async function main(): Promise<void> {
  const rows = new Map<string, Map<string, number>>();
  const put = (label: string, col: string, v: number) => {
    if (!rows.has(label)) rows.set(label, new Map());
    rows.get(label)?.set(col, v);
  };
  const columns: string[] = [];
  const tops: string[] = [];
  for (const target of TARGETS) {
    const plain =
      target === "noop"
        ? bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)))
        : bundleWorker();
    const counted = countingBuild(plain, benchDir(`objects-${target}`));
    // counts
    let w = await start(counted, target);
    try {
      for (const route of ROUTES) {
        const col = `${target} ${route}`;
        columns.push(col);
        const { path, body } = DECISION_REQUESTS[route];
        const text = JSON.stringify(body);
        for (let i = 0; i < WARMUP; i++) await send(w.url, path, text);
        const before = await counts(w.url);
        for (let i = 0; i < REQUESTS; i++) await send(w.url, path, text);
        const after = await counts(w.url);
        for (const [label, n] of Object.entries(after)) {
          if (label.startsWith("~")) continue;
          const d = n - (before[label] ?? 0);
          if (d !== 0) put(label, col, d / REQUESTS);
        }
        const d = (k: string) => after[k] - before[k];
        put("~ requests reclaimed per batch (mean)", col, d("~reclaimed") / Math.max(1, d("~batches")));
        put("~ requests reclaimed in the largest batch", col, after["~largest batch"]);
        put("~ collections that reclaimed requests", col, d("~batches"));
        put("~ requests a reclaimed one waited (mean)", col, d("~age sum") / Math.max(1, d("~reclaimed")));
      }
    } finally {
      await w.stop();
    }
    // bytes
    const inspectorPort = await benchPort(500);
    w = await start(plain, target, inspectorPort);
    const insp = await connectInspector(inspectorPort);
    try {
      for (const route of ROUTES) {
        const col = `${target} ${route}`;
        const { path, body } = DECISION_REQUESTS[route];
        const text = JSON.stringify(body);
        for (let i = 0; i < WARMUP; i++) await send(w.url, path, text);
        put(
          "C++-object heap kept until a full collection (bytes)",
          col,
          Math.round(await kept(insp, w.url, path, text)),
        );
        const { perRequest, top } = await allocated(insp, w.url, path, text);
        put("JS bytes allocated (sampled)", col, Math.round(perRequest));
        put(
          "JS heap after a full collection, KB",
          col,
          Math.round((await heapAfterGc(insp)).usedSize / 1024),
        );
        tops.push(`${col}: ${top.map(([f, b]) => `${f} ${Math.round(b)}`).join("; ")}`);
      }
    } finally {
      insp.close();
      await w.stop();
    }
  }
  console.log(
    `runtime objects and JS allocation per request (${REQUESTS} requests after ${WARMUP}, one at a time; verdict cache ${CACHE_SECONDS} s; heap sampled every ${SAMPLE} bytes)\n`,
  );
  console.log(table(rows, columns));
  console.log("\nwhere the JS bytes go (bytes per request, by allocating function):");
  for (const t of tops) console.log(`- ${t}`);
}

await main();
