/**
 * `npx tsx bench/http-node.ts [--tree <checkout>] [--route limits|place|match] [--reps 9] [--ms 300]`:
 * the request pipeline of the Worker without workerd, to tell its parts apart
 * at a resolution `bench:http` cannot give on a busy machine. The Worker's
 * `fetch` (src/worker.ts of a checkout, bundled with esbuild for Node, with
 * `cloudflare:workers` stubbed) and the no-op Hono Worker of bench/noop/ each
 * answer the same Request objects in this process, interleaved, in CPU time
 * per request. `console.log` is swapped for a counter: the log line's own cost
 * in workerd is measured separately (docs/performance.md). zod runs jitless,
 * as it must in workerd, which refuses `new Function`. Node's Request and
 * Response are not workerd's, so absolute figures differ from workerd's; the
 * difference between the two Workers is the pipeline's own JS work.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { loadEsbuild } from "./ab/bundle.js";
import { DECISION_REQUESTS } from "./http-requests.js";

const argv = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
}

const OWN = path.resolve(import.meta.dirname, "..");
const tree = path.resolve(opt("tree") ?? OWN);
const dir = mkdtempSync(path.join(tmpdir(), "arbiter-http-node-"));
const STUB = `export const env = {}; export class DurableObject { constructor(ctx, env) { this.ctx = ctx; this.env = env; } }`;
writeFileSync(path.join(dir, "cloudflare-workers.mjs"), STUB);

async function bundle(entry: string, out: string, root: string): Promise<string> {
  await loadEsbuild().build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    conditions: ["workerd", "worker", "browser"],
    outfile: out,
    logLevel: "error",
    alias: { "cloudflare:workers": path.join(dir, "cloudflare-workers.mjs") },
    nodePaths: [path.join(root, "node_modules")],
  });
  return out;
}

const BODIES: Record<string, { path: string; body: unknown }> = DECISION_REQUESTS;

interface Fetcher {
  fetch(request: Request, env: object, ctx: object): Response | Promise<Response>;
}

let logged = 0;
const realLog = console.log;
console.log = (...args: unknown[]) => {
  logged += String(args[0]).length;
};
// zod decides at schema construction whether to compile: jitless is set before the Worker's modules run
writeFileSync(path.join(dir, "jitless.mjs"), `import { config } from "zod"; config({ jitless: true });`);
writeFileSync(
  path.join(dir, "entry.mjs"),
  `import "./jitless.mjs"; export { default } from ${JSON.stringify(path.join(tree, "src/worker.ts"))};`,
);
const worker = (
  (await import(
    pathToFileURL(await bundle(path.join(dir, "entry.mjs"), path.join(dir, "worker.mjs"), tree)).href
  )) as { default: Fetcher }
).default;
const noop = (
  (await import(
    pathToFileURL(await bundle(path.join(OWN, "bench/noop/worker.ts"), path.join(dir, "noop.mjs"), OWN)).href
  )) as { default: Fetcher }
).default;

const env = {
  POLICIES: { get: async () => null },
  VERDICT_CACHE_SECONDS: "0",
  DOH_URL: "",
  BUNDLE_REFRESH_SECONDS: "5",
  LEASE_SECONDS: "600",
  LOCAL_ADDRESSES: "",
};
const ctx = { waitUntil() {}, passThroughOnException() {} };

async function once(app: Fetcher, route: { path: string; body: unknown }, text: string): Promise<void> {
  const request = new Request(`http://127.0.0.1${route.path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(text.length) },
    body: text,
  });
  const response = await app.fetch(request, env, ctx);
  if (response.status !== 200) throw new Error(`${route.path}: ${response.status} ${await response.text()}`);
  await response.text();
}

/** CPU µs per request over at least `ms` milliseconds of CPU. */
async function measure(
  app: Fetcher,
  route: { path: string; body: unknown },
  text: string,
  ms: number,
): Promise<number> {
  const start = process.cpuUsage();
  let n = 0;
  for (;;) {
    for (let i = 0; i < 50; i++) await once(app, route, text);
    n += 50;
    const used = process.cpuUsage(start);
    if (used.user + used.system >= ms * 1000) return (used.user + used.system) / n;
  }
}

const reps = Number(opt("reps") ?? 9);
const ms = Number(opt("ms") ?? 300);
const routes = opt("route") === undefined ? Object.keys(BODIES) : [opt("route") as string];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
realLog(`${tree}: CPU µs per request in Node (median of ${reps} interleaved runs of ≥${ms} ms each)`);
realLog(
  `${"route".padEnd(8)} ${"worker".padStart(8)} ${"no-op".padStart(8)} ${"above".padStart(8)} ${"ratio".padStart(6)}`,
);
for (const name of routes) {
  const route = BODIES[name];
  const text = JSON.stringify(route.body);
  await measure(worker, route, text, 200);
  await measure(noop, route, text, 200);
  const w: number[] = [];
  const f: number[] = [];
  for (let r = 0; r < reps; r++) {
    f.push(await measure(noop, route, text, ms));
    w.push(await measure(worker, route, text, ms));
  }
  const a = median(w);
  const b = median(f);
  realLog(
    `${name.padEnd(8)} ${a.toFixed(1).padStart(8)} ${b.toFixed(1).padStart(8)} ${(a - b).toFixed(1).padStart(8)} ${(a / b).toFixed(2).padStart(6)}`,
  );
}
realLog(`(${(logged / 1024).toFixed(0)} KiB of log lines counted, not written)`);
