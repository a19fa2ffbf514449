/**
 * `npx tsx bench/http-profile.ts [--route limits|place|match|healthz|noop-post] [--requests 20000] [--top 30] [--inclusive] [--script bundle.js] [--cache 60]`:
 * profiles the bundled Worker in workerd while autocannon drives one route of
 * `npm run bench:http` (cache off, or the verdict cache's seconds with `--cache`), through workerd's own V8 inspector, then
 * prints the functions with the most self (or inclusive) time and the path of
 * the .cpuprofile (open it in Chrome's DevTools for the call tree). `noop-post`
 * profiles the no-op Worker answering the limits body, for comparison.
 * Ports: BENCH_PORT (server) and BENCH_PORT + 500 (inspector), else free ones.
 */
import autocannon from "autocannon";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { benchPort, bundleWorker, startWorker } from "./workerd.js";

const argv = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
}

const BODIES: Record<string, { path: string; body?: unknown }> = {
  healthz: { path: "/healthz" },
  ...DECISION_REQUESTS,
};

const routeName = opt("route") ?? "limits";
const noop = routeName === "noop-post";
const target = BODIES[noop ? "limits" : routeName];
if (target === undefined) throw new Error(`unknown route ${routeName}`);
const requests = Number(opt("requests") ?? 20000);
const script =
  opt("script") ??
  (noop ? bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url))) : bundleWorker());
const inspectorPort = await benchPort(500);
const worker = await startWorker(
  script,
  await benchPort(0),
  Number(opt("cache") ?? 0),
  () => {},
  {},
  inspectorPort,
);

// undici's WebSocket (wrangler brings undici; Node 20 has no global WebSocket)
const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
interface Socket {
  onopen: (() => void) | null;
  onerror: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  send(text: string): void;
  close(): void;
}
const { WebSocket } = (await import(pathToFileURL(fromWrangler.resolve("undici")).href)) as {
  WebSocket: new (url: string) => Socket;
};

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount: number;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

try {
  const list = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
    title?: string;
  }[];
  const ws = new WebSocket(list[0].webSocketDebuggerUrl);
  await new Promise<void>((done, fail) => {
    ws.onopen = () => done();
    ws.onerror = fail;
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (event) => {
    const msg = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) pending.get(msg.id)?.(msg.result);
  };
  const send = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((done) => {
      const id = nextId++;
      pending.set(id, done);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const body = target.body === undefined ? undefined : JSON.stringify(target.body);
  const opts = {
    url: `${worker.url}${target.path}`,
    method: body === undefined ? ("GET" as const) : ("POST" as const),
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body,
    connections: 16,
  };
  await autocannon({ ...opts, amount: 3000 });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 50 });
  await send("Profiler.start");
  const result = await autocannon({ ...opts, amount: requests });
  const { profile } = (await send("Profiler.stop")) as { profile: Profile };
  ws.close();
  const file = path.join(tmpdir(), `arbiter-http-${routeName}-${Date.now()}.cpuprofile`);
  writeFileSync(file, JSON.stringify(profile));

  const inclusive = argv.includes("--inclusive");
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const keyOf = (n: Node) =>
    `${n.callFrame.functionName || "(anonymous)"} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  const hits = new Map<string, number>();
  let total = 0;
  let idle = 0;
  for (const n of profile.nodes) {
    if (n.hitCount === 0) continue;
    if (n.callFrame.functionName === "(idle)") {
      idle += n.hitCount;
      continue;
    }
    total += n.hitCount;
    const keys = new Set<string>();
    for (let at: number | undefined = n.id; at !== undefined; at = inclusive ? parent.get(at) : undefined)
      keys.add(keyOf(byId.get(at)!));
    for (const key of keys) hits.set(key, (hits.get(key) ?? 0) + n.hitCount);
  }
  const sampleUs = 50;
  console.log(
    `${routeName}: ${result.requests.total} requests, ${total} busy samples (${((total * sampleUs) / result.requests.total).toFixed(1)} µs busy JS-thread time per request at ${sampleUs} µs sampling), ${idle} idle`,
  );
  for (const [k, v] of [...hits].sort((a, b) => b[1] - a[1]).slice(0, Number(opt("top") ?? 30))) {
    console.log(
      `${((100 * v) / total).toFixed(1).padStart(5)}%  ${((v * sampleUs) / result.requests.total).toFixed(1).padStart(6)} µs/req  ${k}`,
    );
  }
  console.log(`\nprofile: ${file}`);
} finally {
  await worker.stop();
}
