/**
 * The server `npm start` runs (`wrangler dev` with this checkout's wrangler.toml,
 * its [build] step included), started by a Node test on free loopback ports with its
 * own local state in a temporary folder, so a test run touches neither a developer's
 * `.wrangler/state` nor the network: the DNS-over-HTTPS resolver is switched off
 * (limits identifiers that need DNS answer their fail-result, as offline), and
 * wrangler's `Request.cf` download and update check are pointed away from the network.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./cases.js";

/** A running dev server. */
export interface DevServer {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  port: number;
  /** The folder holding its local KV, Durable Objects and cache (`--persist-to`). */
  persistTo: string;
  /** Everything wrangler printed so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A TCP port nothing listens on right now, chosen by the system. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts `wrangler dev` and resolves once `/healthz` answers; rejects with wrangler's output when it does not within `timeoutMs`.
 * The server and inspector ports are free ones the system picks unless `ports` names them.
 */
export async function startDevServer(timeoutMs = 120_000, ports?: { port: number; inspector: number }): Promise<DevServer> {
  const [port, inspector] = ports ? [ports.port, ports.inspector] : [await freePort(), await freePort()];
  const persistTo = mkdtempSync(join(tmpdir(), "arbiter-dev-"));
  let log = "";
  const child: ChildProcess = spawn(
    join(REPO_ROOT, "node_modules/.bin/wrangler"),
    ["dev", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", persistTo, "--var", "DOH_URL:", "--show-interactive-dev-session=false"],
    {
      cwd: REPO_ROOT,
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
  const url = `http://127.0.0.1:${port}`;
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
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) return { url, port, persistTo, output: () => log, stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`wrangler dev did not come up on ${url}:\n${log}`);
}
