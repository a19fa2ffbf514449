/**
 * The parts of `npm run bench:hostile` that say where a slow `/healthz` comes
 * from (docs/performance.md, "What makes /healthz wait"): the prober reports
 * how late its own thread woke, the bench's requests can each go on a
 * connection of their own (local workerd serves a kept-alive connection's next
 * request ahead of its other connections), a row's first requests are told apart from the
 * repeated ones it measures, and the Worker can keep its KV and Durable Object
 * data in a folder the bench names (tmpfs, so that no request waits on the
 * disk's fsync on workerd's request thread). Loopback servers stand in for
 * the Worker where the Worker itself is not what is checked; the storage test
 * serves the real bundle from workerd.
 */
import { createServer, type Server } from "node:http";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHealthProbe } from "../../bench/healthz-probe.js";
import { freshConnections, measureRow, type RowPhase, type Target } from "../../bench/hostile-measure.js";
import { bundleWorker, startWorker, type RunningWorker } from "../../bench/workerd.js";
import { HOSTILE_ROWS, type HostileRow } from "../hostile/rows.js";
import { freePort } from "../support/dev-server.js";

const HOLD_MS = 300;
/** What the loopback server saw, in order: a request's path, or a phase the bench announced. */
const seen: string[] = [];
let server: Server;
let base: string;
let healthz = 0;
/** The client port of each request other than a probe (one per connection). */
const ports: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.url === "/healthz") {
        healthz++;
        // the fifth probe is held, once: the prober must see it
        setTimeout(() => res.end('{"ok":true}'), healthz === 5 ? HOLD_MS : 0);
        return;
      }
      seen.push(req.url ?? "");
      ports.push(req.socket.remotePort ?? 0);
      res.setHeader("content-type", "application/json");
      res.end('{"allowed":true}');
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`;
});

afterAll(() => new Promise<void>((done) => server.close(() => done())));

describe("the /healthz prober", () => {
  it("sees a held answer and reports its own thread's lateness, both cleared by reset", async () => {
    const probe = startHealthProbe(base);
    try {
      while (probe.count() < 8) await new Promise((done) => setTimeout(done, 20));
      expect(probe.worst()).toBeGreaterThanOrEqual(HOLD_MS / 2);
      expect(Number.isFinite(probe.late()) && probe.late() >= 0).toBe(true);
      probe.reset();
      expect(probe.worst()).toBe(0);
      expect(probe.late()).toBe(0);
    } finally {
      await probe.stop();
    }
  }, 30_000);
});

describe("freshConnections", () => {
  it("sends each request on a connection of its own until undone, then on kept-alive ones again", async () => {
    const realFetch = globalThis.fetch;
    for (const fresh of [false, true, false]) {
      const undo = fresh ? freshConnections() : () => {};
      // a pause after each, as the bench makes its next body: fetch hands a kept connection back to its
      // pool a moment after the answer, and a request sent at once would open a second one
      ports.length = 0;
      for (let i = 0; i < 3; i++) {
        await fetch(`${base}/bench`).then((r) => r.arrayBuffer());
        await new Promise((done) => setTimeout(done, 5));
      }
      undo();
      expect(new Set(ports).size).toBe(fresh ? 3 : 1);
    }
    expect(globalThis.fetch).toBe(realFetch);
  });
});

describe("measureRow", () => {
  it("announces the two first requests, then the repeated ones it measures", async () => {
    seen.length = 0;
    let cpu = 0;
    // every reading 0.3 s on: each sample ends at its minimum of 3 requests
    const worker = { url: base, cpuSeconds: () => (cpu += 0.3) } as unknown as RunningWorker;
    const probe = { count: () => 0 } as unknown as Target["probe"];
    const row: HostileRow = {
      name: "loopback",
      request: (n) => ({ method: "POST", path: `/row/${n}`, body: {} }),
      check: (status) => (status === 200 ? null : `status ${status}`),
    };
    const m = await measureRow({ worker, probe, probeCpuMs: 0 }, row, 7, (p: RowPhase) => seen.push(p));
    expect(m.problem).toBeNull();
    expect(seen.slice(0, 4)).toEqual(["first", "/row/7", "/row/7", "repeated"]);
    // three samples of three requests after the announcement, and no other announcement
    expect(seen.slice(4)).toEqual(Array(9).fill("/row/7"));
  });
});

describe("startWorker's storage folder", () => {
  let worker: RunningWorker | undefined;
  let outDir: string;
  let storage: string;

  beforeAll(async () => {
    outDir = mkdtempSync(join(tmpdir(), "arbiter-storage-"));
    storage = mkdtempSync(join(tmpdir(), "arbiter-storage-data-"));
    const script = bundleWorker(undefined, outDir);
    worker = await startWorker(script, await freePort(), 0, () => {}, {}, undefined, { storage });
  }, 180_000);

  afterAll(async () => {
    await worker?.stop();
    rmSync(outDir, { recursive: true, force: true });
    rmSync(storage, { recursive: true, force: true });
  }, 30_000);

  it("keeps a publish's KV and Durable Object data in the folder it is given", async () => {
    // a hostile row's limits policy: any valid one will do
    const policy = HOSTILE_ROWS.find((r) => r.policy?.engine === "limits")?.policy?.source ?? "";
    const res = await fetch(`${worker?.url}/v1/policies/limits`, {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: policy,
    });
    expect(res.status).toBe(200);
    await res.text();
    // Miniflare names a folder per kind of storage it keeps there
    const kinds = readdirSync(storage);
    expect(kinds).toEqual(expect.arrayContaining(["kv", "do"]));
  }, 60_000);
});
