/**
 * `npm run bench:flood`: thousands of clients ask one job queue for the same
 * job at once, each on its own connection, and we count who got an answer
 * within the deadline, and which. Run against the Worker served by workerd
 * directly (Miniflare) and through `wrangler dev`, to tell whether requests
 * that go unanswered are lost in the Durable Object or in the dev proxy.
 *
 *   FLOOD_CLIENTS=5639 FLOOD_DEADLINE_S=60 FLOOD_TARGET=both npm run bench:flood
 */
import { spawn, type ChildProcess } from "node:child_process";
import { request } from "node:http";
import { bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const CLIENTS = Number(process.env.FLOOD_CLIENTS ?? 5639);
const DEADLINE_MS = Number(process.env.FLOOD_DEADLINE_S ?? 60) * 1000;
const TARGET = process.env.FLOOD_TARGET ?? "both";
/** Ports of this helper's range: workerd direct, wrangler dev, wrangler's inspector. */
const DIRECT_PORT = 8871;
const DEV_PORT = 8870;
const INSPECTOR_PORT = 9370;

interface Outcome {
  status?: number;
  code?: string;
  error?: string;
}

/** One request on a connection of its own; resolves with its status, its error, or nothing by the deadline. */
function get(base: URL, path: string, deadline: number): Promise<Outcome | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      req.destroy();
      resolve(undefined);
    }, deadline - Date.now());
    const req = request(
      { host: base.hostname, port: base.port, path, method: "GET", agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          let code: string | undefined;
          try {
            code = (JSON.parse(Buffer.concat(chunks).toString()) as { error?: { code?: string } }).error
              ?.code;
          } catch {
            code = "unparsable";
          }
          resolve({ status: res.statusCode, code });
        });
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ error: e.code ?? e.message });
    });
    req.end();
  });
}

async function send(base: string, method: string, path: string, body: unknown): Promise<Response> {
  return fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Decision log lines the Worker wrote for GETs of the flooded job: how many requests reached it and were answered there. */
let decided = 0;
let pending = "";
function countDecisions(chunk: Buffer): void {
  const text = pending + chunk.toString();
  const lines = text.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines)
    if (line.includes('"engine":"jobfilter"') && line.includes('"outcome":"accept"')) decided++;
}

async function flood(label: string, base: string): Promise<void> {
  decided = 0;
  const queue = `flood-${Date.now()}`;
  const submitted = await send(base, "POST", `/v1/queues/${queue}/jobs`, {
    id: 1,
    opcodes: [{ OP_ID: "OP_TEST_DELAY" }],
  });
  if (submitted.status !== 200) throw new Error(`${label}: submit answered ${submitted.status}`);
  const started = Date.now();
  const deadline = started + DEADLINE_MS;
  const url = new URL(base);
  const outcomes = await Promise.all(
    Array.from({ length: CLIENTS }, () => get(url, `/v1/queues/${queue}/jobs/1`, deadline)),
  );
  const tally = new Map<string, number>();
  for (const o of outcomes) {
    const key =
      o === undefined
        ? "no answer by the deadline"
        : o.error !== undefined
          ? `connection error ${o.error}`
          : `${o.status}${o.code ? ` ${o.code}` : ""}`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  // Give the log pipe a moment to drain before counting.
  await new Promise((r) => setTimeout(r, 2000));
  console.log(
    `\n${label}: ${CLIENTS} concurrent GETs of one job, deadline ${DEADLINE_MS / 1000} s, done in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`  the Worker logged ${decided - 1} answered GETs (and the submission)`);
  for (const [k, n] of [...tally].sort((a, b) => b[1] - a[1]))
    console.log(`  ${String(n).padStart(6)}  ${k}`);
}

async function waitFor(url: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not come up`);
}

async function main(): Promise<void> {
  if (TARGET === "both" || TARGET === "direct") {
    const script = bundleWorker();
    const worker: RunningWorker = await startWorker(script, DIRECT_PORT, 60, countDecisions);
    try {
      await flood("workerd (Miniflare, no dev proxy)", worker.url);
    } finally {
      await worker.stop();
    }
  }
  if (TARGET === "both" || TARGET === "dev") {
    const dev: ChildProcess = spawn(
      "npx",
      [
        "wrangler",
        "dev",
        "--ip",
        "127.0.0.1",
        "--port",
        String(DEV_PORT),
        "--inspector-port",
        String(INSPECTOR_PORT),
        "--persist-to",
        ".bench/flood-state",
      ],
      { stdio: ["ignore", "pipe", "inherit"], detached: true },
    );
    dev.stdout?.on("data", countDecisions);
    try {
      await waitFor(`http://127.0.0.1:${DEV_PORT}/healthz`, 60_000);
      await flood("wrangler dev", `http://127.0.0.1:${DEV_PORT}`);
    } finally {
      if (dev.pid !== undefined) process.kill(-dev.pid, "SIGTERM");
    }
  }
}

await main();
