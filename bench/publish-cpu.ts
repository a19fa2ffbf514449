/**
 * `npx tsx bench/publish-cpu.ts`: workerd's CPU (all threads, from /proc) per
 * publish of the 359-byte limits policy of the hostile `from_entries` row
 * (each publish a new source: the policy with i trailing blanks), per publish
 * followed by its first decision, and per warm decision, so that the first
 * decision's extra cost is the difference. CPU, not wall time, so a loaded
 * machine changes the figures less than it changes latencies. PUBLISHES
 * (default 20) per phase; storage on tmpfs as bench:hostile keeps it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { HOSTILE_ROWS } from "../test/hostile/rows.js";
import { bundleWorker, startWorker } from "./workerd.js";

const N = Number(process.env.PUBLISHES ?? 20);
const row = HOSTILE_ROWS.find((r) => r.name.includes("from_entries"))!;
const storage = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/arbiter-publish-") : undefined;
const worker = await startWorker(bundleWorker(), 0, 0, () => {}, {}, undefined, {
  storage,
});
let serial = 0;

async function publish(): Promise<void> {
  const res = await fetch(`${worker.url}/v1/policies/limits`, {
    method: "PUT",
    body: `${row.policy!.source}${" ".repeat(++serial)}`,
  });
  if (res.status !== 200) throw new Error(`publish answered ${res.status}: ${await res.text()}`);
}

async function decide(): Promise<void> {
  const r = row.request(30 + serial++);
  const res = await fetch(`${worker.url}${r.path}`, {
    method: r.method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(r.body),
  });
  await res.arrayBuffer();
}

/** CPU ms per repetition of `work`. */
async function perRound(work: () => Promise<void>): Promise<number> {
  const before = worker.cpuSeconds();
  for (let i = 0; i < N; i++) await work();
  return ((worker.cpuSeconds() - before) * 1000) / N;
}

try {
  const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  const first = worker.cpuSeconds();
  await publish();
  const cold = (worker.cpuSeconds() - first) * 1000;
  for (let i = 0; i < 5; i++) await decide();
  const pub = await perRound(publish);
  const both = await perRound(async () => {
    await publish();
    await decide();
  });
  const warm = await perRound(decide);
  console.log(
    `load ${load()}: first publish ${cold.toFixed(0)} ms (10 ms ticks); per publish ${pub.toFixed(1)} ms; ` +
      `publish + first decision ${both.toFixed(1)} ms (first decision ${(both - pub).toFixed(1)}); warm decision ${warm.toFixed(1)} ms`,
  );
} finally {
  await worker.stop();
  if (storage !== undefined) rmSync(storage, { recursive: true, force: true });
}
