/**
 * The Worker as `wrangler deploy` bundles it, served by workerd through Miniflare
 * (the one wrangler itself uses) on loopback: shared by the HTTP and CPU benchmarks.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** A running Worker: its base URL and how to stop it. */
export interface RunningWorker {
  url: string;
  stop(): Promise<void>;
}

const OUT_DIR = resolve(".bench/dist");
const NOOP_DIR = resolve(".bench/noop");

/**
 * Bundles the Worker exactly as `wrangler deploy` would (its [build] step
 * included, so a fresh clone's policies are compiled), without deploying; with
 * `config`, another Worker (the bench's no-op) is bundled the same way.
 */
export function bundleWorker(config?: string): string {
  const outDir = config === undefined ? OUT_DIR : NOOP_DIR;
  rmSync(outDir, { recursive: true, force: true });
  const args = ["wrangler", "deploy", "--dry-run", "--outdir", outDir, ...(config === undefined ? [] : ["--config", config])];
  const built = spawnSync("npx", args, { stdio: "ignore" });
  if (built.status !== 0) throw new Error(`wrangler deploy --dry-run failed${config === undefined ? "" : ` for ${config}`}`);
  const script = join(outDir, "worker.js");
  // workerd refuses source maps that point outside the modules root; the benchmarks need none.
  writeFileSync(script, readFileSync(script, "utf8").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n"));
  return script;
}

/** Serves the bundle from workerd on loopback; `onStdout` receives the Worker's log output. */
export async function startWorker(script: string, port: number, cacheSeconds: number, onStdout: (chunk: Buffer) => void): Promise<RunningWorker> {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  // Typed by hand: the top-level `miniflare` types may belong to another version than wrangler's.
  const { Miniflare } = (await import(pathToFileURL(fromWrangler.resolve("miniflare")).href)) as {
    Miniflare: new (options: Record<string, unknown>) => { ready: Promise<URL>; dispose(): Promise<void> };
  };
  const mf = new Miniflare({
    modules: true,
    modulesRoot: dirname(script),
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
    handleRuntimeStdio(stdout: NodeJS.ReadableStream, stderr: NodeJS.ReadableStream) {
      stdout.on("data", onStdout);
      stderr.on("data", (chunk: Buffer) => process.stderr.write(chunk));
    },
  });
  const url = (await mf.ready).href.replace(/\/$/, "");
  return { url, stop: () => mf.dispose() };
}
