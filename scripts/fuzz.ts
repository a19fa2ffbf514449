/**
 * `npm run fuzz`: long runs of every fuzz target (test/fuzz/targets.ts), each
 * in a worker thread so that an input that never finishes can be stopped. Half
 * the inputs are amplified (test/fuzz/amplify.ts): a slice of the drawn text
 * repeated up to 3,000 times inside up to 5,000 levels of nesting. An input
 * that throws (a crash; a stack overflow is counted apart), takes more CPU
 * time than the cap per 100 KB of its text (100 ms by default) or does not
 * finish within 60 times that on the clock (slow) is a failure, saved as a
 * reproducer in test/fuzz/cases/ (which `npm test` replays).
 *
 *   npm run fuzz -- [--seconds 30] [--target jq] [--cap-ms 100] [--seed N]
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

type ToWorker = { seed: number };
type FromWorker =
  { kind: "start"; input: unknown } | { kind: "done"; ms: number; error?: string } | { kind: "ready" };

/** What a run of one target found. */
interface Tally {
  inputs: number;
  amplified: number;
  crashes: number;
  stackOverflows: number;
  slow: number;
  slowest: number;
}

const CASES_DIR = resolve(fileURLToPath(new URL("../test/fuzz/cases", import.meta.url)));

async function workerMain(): Promise<void> {
  const fc = (await import("fast-check")).default;
  const { FUZZ_TARGETS } = await import("../test/fuzz/targets.js");
  const { allowedMs, amplified } = await import("../test/fuzz/amplify.js");
  const { capMs } = workerData as { target: string; capMs: number };
  const target = FUZZ_TARGETS.find((t) => t.name === (workerData as { target: string }).target);
  if (!target) throw new Error("unknown target");
  const port = parentPort!;
  const inputs = fc.oneof(target.arbitrary, amplified(target.name, target.arbitrary));
  port.on("message", async ({ seed }: ToWorker) => {
    for (const input of fc.sample(inputs, { seed, numRuns: 50 })) {
      port.postMessage({ kind: "start", input } satisfies FromWorker);
      const cap = allowedMs(input, capMs);
      // An input is judged by the CPU time it takes (the process's: this worker runs alone but
      // for the idle main thread), not by the clock, which other processes on a shared machine
      // stretch; a slow input is timed twice more and judged by its fastest run, so that a
      // collection or a cold cache is not taken for the input's own cost.
      let ms = Number.POSITIVE_INFINITY;
      let error: string | undefined;
      for (let attempt = 0; attempt < 3 && error === undefined && ms > cap; attempt++) {
        const t = process.cpuUsage();
        try {
          await target.run(input);
        } catch (e) {
          error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
        }
        const used = process.cpuUsage(t);
        ms = Math.min(ms, (used.user + used.system) / 1000);
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
  const file = join(
    CASES_DIR,
    `${target}-${createHash("sha1").update(text).digest("hex").slice(0, 10)}.json`,
  );
  writeFileSync(
    file,
    JSON.stringify({ target, input, failure, seed, found: new Date().toISOString() }, null, 1) + "\n",
  );
  return file;
}

/** Whether a failure text is a stack overflow (V8's RangeError), counted apart from other crashes. */
function isStackOverflow(failure: string): boolean {
  return failure.includes("Maximum call stack size exceeded");
}

/** Fuzzes one target for `seconds`; returns what it found (every failure is saved). */
async function fuzzTarget(target: string, seconds: number, capMs: number, firstSeed: number): Promise<Tally> {
  const { allowedMs, inputSize } = await import("../test/fuzz/amplify.js");
  return new Promise((done) => {
    const deadline = Date.now() + seconds * 1000;
    let seed = firstSeed;
    const tally: Tally = { inputs: 0, amplified: 0, crashes: 0, stackOverflows: 0, slow: 0, slowest: 0 };
    let current: unknown;
    let cap = capMs;
    let watchdog: NodeJS.Timeout | undefined;
    const start = (): void => {
      // the worker runs this same TypeScript file, registering tsx first as the main thread's loader did
      const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); });`;
      // a stack of V8's default size (as workerd's), not a worker thread's larger 4 MB: recursion that
      // overflows in the Worker must overflow here too
      const w = new Worker(boot, {
        eval: true,
        workerData: { target, capMs },
        resourceLimits: { stackSizeMb: 1 },
      });
      const fail = (kind: "crashes" | "stackOverflows" | "slow", failure: string): void => {
        tally[kind]++;
        const size = inputSize(current);
        console.log(
          `  ${target}: ${failure} (${size} characters) -> ${save(target, current, failure, seed)}`,
        );
      };
      const threw = (failure: string): void =>
        fail(isStackOverflow(failure) ? "stackOverflows" : "crashes", failure);
      w.on("message", (m: FromWorker) => {
        if (m.kind === "start") {
          current = m.input;
          cap = allowedMs(m.input, capMs);
          // an input that never finishes: stop the worker and start another
          watchdog = setTimeout(() => {
            fail("slow", `did not finish within ${(cap * 60).toFixed(0)} ms`);
            void w.terminate().then(() => (Date.now() < deadline ? start() : done(tally)));
          }, cap * 60);
        } else if (m.kind === "done") {
          clearTimeout(watchdog);
          tally.inputs++;
          if (inputSize(current) > 2000) tally.amplified++;
          tally.slowest = Math.max(tally.slowest, m.ms);
          if (m.error !== undefined) threw(`threw ${m.error}`);
          else if (m.ms > cap)
            fail("slow", `took ${m.ms.toFixed(0)} ms of CPU (cap ${cap.toFixed(0)} ms for its size)`);
        } else if (Date.now() < deadline) {
          w.postMessage({ seed: seed++ } satisfies ToWorker);
        } else {
          void w.terminate().then(() => done(tally));
        }
      });
      w.on("error", (e) => {
        clearTimeout(watchdog);
        if (current === undefined) throw new Error(`the ${target} worker failed to start: ${e.message}`);
        threw(`crashed the worker: ${e.message}`);
        if (Date.now() < deadline) start();
        else done(tally);
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
  const sum: Tally = { inputs: 0, amplified: 0, crashes: 0, stackOverflows: 0, slow: 0, slowest: 0 };
  const row = (name: string, t: Tally) =>
    `${name.padEnd(14)} ${String(t.inputs).padStart(8)} inputs (${String(t.amplified).padStart(6)} over 2,000 characters)  ` +
    `${String(t.crashes).padStart(3)} crashes  ${String(t.stackOverflows).padStart(3)} stack overflows  ${String(t.slow).padStart(3)} slow  slowest ${t.slowest.toFixed(1)} ms`;
  for (const t of FUZZ_TARGETS) {
    if (only !== "" && t.name !== only) continue;
    const r = await fuzzTarget(t.name, seconds, capMs, seed);
    for (const k of ["inputs", "amplified", "crashes", "stackOverflows", "slow"] as const) sum[k] += r[k];
    sum.slowest = Math.max(sum.slowest, r.slowest);
    console.log(row(t.name, r));
  }
  console.log(row("all", sum));
  if (sum.crashes + sum.stackOverflows + sum.slow > 0) process.exitCode = 1;
}

if (isMainThread) await main();
else await workerMain();
