/**
 * Requests arriving together are answered each on its own: none waits on I/O
 * that another request started. workerd ties every KV read, fetch and cache
 * call to the request that made it; a request left waiting on another's can be
 * cancelled by the runtime as hung (a 500, "your Worker's code had hung and
 * would never generate a response"). Found under `npm run bench:http` load:
 * requests that came in while another re-read the policy pointer (shared by
 * all of them) failed so. Real HTTP against the Worker bundled as `wrangler
 * deploy` bundles it, served by workerd on one CPU of its own (where one
 * request's KV read outlasts others' arrival, as on a busy host): only
 * separate incoming requests have separate I/O contexts.
 */
import autocannon from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DECISION_REQUESTS } from "../../bench/http-requests.js";
import { bundleWorker, startWorker, type RunningWorker } from "../../bench/workerd.js";
import { freePort } from "../support/dev-server.js";

let worker: RunningWorker;
let outDir: string;

beforeAll(async () => {
  outDir = mkdtempSync(join(tmpdir(), "arbiter-concurrent-"));
  const script = bundleWorker(undefined, outDir);
  // the pointer is due for a re-read every second; no verdict cache, so every request decides
  worker = await startWorker(
    script,
    await freePort(),
    0,
    () => {},
    { BUNDLE_REFRESH_SECONDS: "1" },
    undefined,
    { pin: "worker" },
  );
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  rmSync(outDir, { recursive: true, force: true });
}, 30_000);

describe("simultaneous requests", () => {
  it("answers every request of 16 connections kept busy across re-reads of the policy pointer", async () => {
    for (const { path, body } of Object.values(DECISION_REQUESTS)) {
      const failed: string[] = [];
      const result = await autocannon({
        url: worker.url,
        connections: 16,
        duration: 4,
        requests: [
          {
            method: "POST",
            path,
            headers: { "content-type": "application/json" },
            body: JSON.stringify(body),
            onResponse: (status: number, text: string) => {
              if (status !== 200 && failed.length < 3)
                failed.push(`${status} ${path}: ${text.slice(0, 160)}`);
            },
          } as autocannon.Request,
        ],
      });
      expect(result.requests.total).toBeGreaterThan(100);
      expect(failed).toEqual([]);
      expect(result.non2xx + result.errors + result.timeouts).toBe(0);
    }
  }, 120_000);
});
