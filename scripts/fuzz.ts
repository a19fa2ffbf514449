/**
 * `npm run fuzz`: long runs of every fuzz target (test/fuzz/targets.ts), each
 * in a worker thread so that an input that never finishes can be stopped. An
 * input that throws, takes longer than the cap (100 ms by default) or does not
 * finish at all is a failure, saved as a reproducer in test/fuzz/cases/ (which
 * `npm test` replays).
 *
 *   npm run fuzz -- [--seconds 30] [--target jq] [--cap-ms 100] [--seed N]
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

type ToWorker = { seed: number };
type FromWorker = { kind: "start"; input: unknown } | { kind: "done"; ms: number; error?: string } | { kind: "ready" };

const CASES_DIR = resolve(fileURLToPath(new URL("../test/fuzz/cases", import.meta.url)));

async function workerMain(): Promise<void> {
  const fc = (await import("fast-check")).default;
  const { FUZZ_TARGETS } = await import("../test/fuzz/targets.js");
  const { capMs } = workerData as { target: string; capMs: number };
  const target = FUZZ_TARGETS.find((t) => t.name === (workerData as { target: string }).target);
  if (!target) throw new Error("unknown target");
  const port = parentPort!;
  port.on("message", async ({ seed }: ToWorker) => {
    for (const input of fc.sample(target.arbitrary, { seed, numRuns: 50 })) {
      port.postMessage({ kind: "start", input } satisfies FromWorker);
      // a slow input is timed twice more and judged by its fastest run, so a pause of the
      // machine (a collection, another process) is not taken for the input's own cost
      let ms = Number.POSITIVE_INFINITY;
      let error: string | undefined;
      for (let attempt = 0; attempt < 3 && error === undefined && ms > capMs; attempt++) {
        const t = performance.now();
        try {
          await target.run(input);
        } catch (e) {
          error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        }
        ms = Math.min(ms, performance.now() - t);
      }
      port.postMessage({ kind: "done", ms, error } satisfies FromWorker);
    }
    port.postMessage({ kind: "ready" } satisfies FromWorker);
  });
  port.postMessage({ kind: "ready" } satisfies FromWorker);
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

function save(target: string, input: unknown, failure: string, seed: number): string {
  mkdirSync(CASES_DIR, { recursive: true });
  const text = JSON.stringify(input);
  const file = join(CASES_DIR, `${target}-${createHash("sha1").update(text).digest("hex").slice(0, 10)}.json`);
  writeFileSync(file, JSON.stringify({ target, input, failure, seed, found: new Date().toISOString() }, null, 1) + "\n");
  return file;
}

/** Fuzzes one target for `seconds`; returns the number of failures saved. */
function fuzzTarget(target: string, seconds: number, capMs: number, firstSeed: number): Promise<{ inputs: number; failures: number; slowest: number }> {
  return new Promise((done) => {
    const deadline = Date.now() + seconds * 1000;
    let seed = firstSeed;
    let inputs = 0;
    let failures = 0;
    let slowest = 0;
    let current: unknown;
    let watchdog: NodeJS.Timeout | undefined;
    const start = (): void => {
      // the worker runs this same TypeScript file, registering tsx first as the main thread's loader did
      const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
      const w = new Worker(boot, { eval: true, workerData: { target, capMs } });
      const fail = (failure: string): void => {
        failures++;
        console.log(`  ${target}: ${failure} -> ${save(target, current, failure, seed)}`);
      };
      w.on("message", (m: FromWorker) => {
        if (m.kind === "start") {
          current = m.input;
          // an input that never finishes: stop the worker and start another
          watchdog = setTimeout(() => {
            fail(`did not finish within ${capMs * 60} ms`);
            void w.terminate().then(() => (Date.now() < deadline ? start() : done({ inputs, failures, slowest })));
          }, capMs * 60);
        } else if (m.kind === "done") {
          clearTimeout(watchdog);
          inputs++;
          slowest = Math.max(slowest, m.ms);
          if (m.error !== undefined) fail(`threw ${m.error}`);
          else if (m.ms > capMs) fail(`took ${m.ms.toFixed(0)} ms (cap ${capMs} ms)`);
        } else if (Date.now() < deadline) {
          w.postMessage({ seed: seed++ } satisfies ToWorker);
        } else {
          void w.terminate().then(() => done({ inputs, failures, slowest }));
        }
      });
      w.on("error", (e) => {
        clearTimeout(watchdog);
        if (current === undefined) throw new Error(`the ${target} worker failed to start: ${e.message}`);
        fail(`crashed the worker: ${e.message}`);
        if (Date.now() < deadline) start();
        else done({ inputs, failures, slowest });
      });
    };
    start();
  });
}

async function main(): Promise<void> {
  const { FUZZ_TARGETS } = await import("../test/fuzz/targets.js");
  const seconds = Number(arg("seconds", "30"));
  const capMs = Number(arg("cap-ms", "100"));
  const only = arg("target", "");
  const seed = Number(arg("seed", String(Date.now() % 1_000_000)));
  console.log(`fuzzing ${seconds} s per target, cap ${capMs} ms per input, seed ${seed}`);
  let total = 0;
  for (const t of FUZZ_TARGETS) {
    if (only !== "" && t.name !== only) continue;
    const r = await fuzzTarget(t.name, seconds, capMs, seed);
    total += r.failures;
    console.log(`${t.name.padEnd(14)} ${String(r.inputs).padStart(7)} inputs  ${String(r.failures).padStart(3)} failures  slowest ${r.slowest.toFixed(1)} ms`);
  }
  if (total > 0) process.exitCode = 1;
}

if (isMainThread) await main();
else await workerMain();
