/**
 * The server `npm start` runs (`wrangler dev` with this checkout's wrangler.toml,
 * its [build] step included), started by a Node test on free loopback ports with its
 * own local state in a temporary folder, so a test run touches neither a developer's
 * `.wrangler/state` nor the network: the DNS-over-HTTPS resolver is switched off
 * (limits identifiers that need DNS answer their fail-result, as offline), and
 * wrangler's `Request.cf` download and update check are pointed away from the network.
 * `ARBITER_DEV_PORTS=8860-8869 ARBITER_DEV_INSPECTOR_PORTS=9360-9369` keep it to given ports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { get as httpsGet } from "node:https";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./cases.js";

/** A running dev server. */
export interface DevServer {
  /** `http://127.0.0.1:PORT` (`https://` when started with `https`). */
  url: string;
  port: number;
  /** The folder holding its local KV, Durable Objects and cache (`--persist-to`). */
  persistTo: string;
  /** Everything wrangler printed so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Binds `port` on loopback (0: one the system chooses) and frees it again; the port bound, or null when taken. */
async function tryPort(port: number): Promise<number | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(null));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(bound));
    });
  });
}

/** Ports handed out by this process, so two servers it starts never get the same one. */
const handedOut = new Set<number>();

/**
 * A TCP port nothing listens on right now: the first free one of the range in the environment
 * variable `rangeVar` (`LOW-HIGH`, for a machine where each user has its own ports), else one the
 * system chooses.
 */
export async function freePort(rangeVar = "ARBITER_DEV_PORTS"): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env[rangeVar] ?? "");
  if (range === null) return (await tryPort(0)) ?? 0;
  for (let p = Number(range[1]); p <= Number(range[2]); p++) {
    if (handedOut.has(p) || (await tryPort(p)) === null) continue;
    handedOut.add(p);
    return p;
  }
  throw new Error(`no free port in ${rangeVar}=${process.env[rangeVar]}`);
}

/** How to start the dev server: over HTTPS (wrangler's self-signed certificate), with extra `--var`s. */
export interface DevServerOptions {
  timeoutMs?: number;
  https?: boolean;
  vars?: Record<string, string>;
  /** The checkout to serve (default: this one); a benchmark compares another one's page with it. */
  root?: string;
}

/** The status of a GET, accepting the dev server's self-signed certificate over HTTPS. */
async function probe(url: string): Promise<number> {
  if (!url.startsWith("https:")) return (await fetch(url)).status;
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    }).on("error", reject);
  });
}

/** Starts `wrangler dev` and resolves once `/healthz` answers; rejects with wrangler's output when it does not within `timeoutMs`. */
export async function startDevServer(options: number | DevServerOptions = {}): Promise<DevServer> {
  const {
    timeoutMs = 120_000,
    https = false,
    vars = {},
    root = REPO_ROOT,
  } = typeof options === "number" ? { timeoutMs: options } : options;
  const [port, inspector] = [await freePort(), await freePort("ARBITER_DEV_INSPECTOR_PORTS")];
  const persistTo = mkdtempSync(join(tmpdir(), "arbiter-dev-"));
  let log = "";
  const child: ChildProcess = spawn(
    join(root, "node_modules/.bin/wrangler"),
    [
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--persist-to",
      persistTo,
      "--var",
      "DOH_URL:",
      "--show-interactive-dev-session=false",
      ...(https ? ["--local-protocol", "https"] : []),
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...process.env,
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        WRANGLER_SEND_METRICS: "false",
        // wrangler asks the npm registry for a newer version: point it at a closed loopback port.
        npm_config_registry: "http://127.0.0.1:9/",
        NO_COLOR: "1",
      },
    },
  );
  child.stdout?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const url = `${https ? "https" : "http"}://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.pid !== undefined) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
    }
    rmSync(persistTo, { recursive: true, force: true });
  };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    try {
      if ((await probe(`${url}/healthz`)) === 200) return { url, port, persistTo, output: () => log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not come up on ${url}:\n${log}`);
}
