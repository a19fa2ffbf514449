/**
 * `npm run bench:open`: stalls under steady load. The Worker (bundled as
 * `wrangler deploy` bundles it, verdict cache off) and the no-op Hono Worker
 * of bench/noop/ are served from workerd as `bench:http` serves them (every
 * workerd pinned to the last CPU, this process to the others). Each round
 * first finds the Worker's peak rate for the route with a closed loop
 * (autocannon, 16 connections) in a Worker process of its own, then stops it;
 * then each measured Worker in turn is started afresh, warmed up with the same
 * closed loop, left 1 s, driven with an open loop (bench/open-loop.ts: evenly
 * spaced sends, latency counted from when a request was due) at half that peak
 * for OPEN_SECONDS (6), and stopped, so every process has the same life and
 * only one runs at a time; the order rotates by round (each Worker in each
 * position once over as many rounds as Workers). Before wt/stall3 all were
 * started together, their peak phases run one after another and their windows
 * after all of them, so the first window came 6 s after its process's warm-up
 * and the others 12–20 s after: V8 then collected the young generation of the
 * first 30–40 times in its window against 57–84 for the others, and whichever
 * tree ran as "the Worker" (driven first or second) read worse than the same
 * tree as the baseline (driven third). It prints p50, p99 and max latency and
 * the longest silence (no answer at all) of both and the ratio of their p99s,
 * and any errors by kind (an answer's status, a socket's error code) of every process; the goal is the Worker's p99
 * within 1.5× of the no-op's in the same round. With OPEN_LOG_LINE=1 a third
 * Worker, the no-op also writing one decision log line per request (as
 * bench:http's log-line row), runs in the same rounds at the same rate, to
 * tell a stall of the runtime's console from one of the route. The open loop
 * runs in a process of its own (bench/open-loop-child.ts), which reports its
 * own longest event-loop stall beside each run's figures; OPEN_GENERATOR=inprocess
 * runs it in this process as before, `both` each in turn. OPEN_BASELINE=<checkout>
 * serves that checkout's Worker too, at the same rate in the same rounds (a
 * change's before and after in one run). BENCH_ROUTES (limits,place,match),
 * BENCH_ROUNDS (3), OPEN_SECONDS (6), OPEN_SHARE (0.5 of the peak), OPEN_IDLE_MS (1000),
 * OPEN_WARMUPS (1: closed-loop warm-ups per measured process), BENCH_PORT.
 */
import { resolve as resolvePath } from "node:path";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { peakRate } from "./peak-rate.js";
import {
  IDLE_SOCKET_MS,
  longestSilence,
  openLoop,
  openLoopInChild,
  pooledQuantile,
  quantile,
  rotate,
  type OpenLoopResult,
} from "./open-loop.js";
import { median } from "./scale/series.js";
import { benchDir, benchPort, bundleWorker, startWorker } from "./workerd.js";

const ROUTES = (process.env.BENCH_ROUTES ?? "limits,place,match").split(
  ",",
) as (keyof typeof DECISION_REQUESTS)[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.OPEN_SECONDS ?? 6);
const SHARE = Number(process.env.OPEN_SHARE ?? 0.5);
const GOAL = 1.5;
const LOG_LINE = process.env.OPEN_LOG_LINE === "1";
/**
 * How long the generator keeps an idle connection (ms; bench/open-loop.ts `IDLE_SOCKET_MS`, 1,000);
 * `OPEN_IDLE_MS=0` keeps them until workerd closes them after 5 s, as before wt/openerr, whose bursts
 * after a stall then lost requests to ECONNRESET.
 */
const IDLE_MS = Number(process.env.OPEN_IDLE_MS ?? IDLE_SOCKET_MS);
/**
 * Where the open loop runs: `own` (default) a process of its own, `inprocess` this
 * process (as before the generator got its own), `both` each in turn, the ratios
 * counted from the first.
 */
const MODES = ((): ("own" | "inprocess")[] => {
  const g = process.env.OPEN_GENERATOR ?? "own";
  return g === "both" ? ["own", "inprocess"] : g === "inprocess" ? ["inprocess"] : ["own"];
})();
/**
 * `OPEN_WARMUPS`: how many times each measured process runs the probe's closed loop (2,000 + 4,000
 * requests) before its window; 1 by default, the method. The Worker's hot path reaches
 * TurboFan only after some 15,000 requests (wt/stall4: `--trace-opt`), so with one warm-up that
 * tier-up, and its compiles on the Worker's pinned CPU, fall inside the window; 3 measures an isolate
 * past it.
 */
const WARMUPS = Number(process.env.OPEN_WARMUPS ?? 1);

/** `OPEN_BASELINE=<checkout>`: that checkout's Worker, bundled the same way, driven in the same rounds at the same rate. */
const BASELINE = process.env.OPEN_BASELINE;

/** The pause between a process's warm-up and its first window (ms), the same for every process. */
const PAUSE_MS = 1000;

/** One measured process: its bundle, port offset, bindings and whether it has Durable Object classes. */
interface Target {
  key: "worker" | "noop" | "logging" | "baseline";
  script: string;
  port: number;
  bindings: Record<string, string>;
  objects: boolean;
}

interface Figures {
  p50: number;
  p99: number;
  max: number;
  silence: number;
  errors: number;
  /** The errors by kind (`status 503`, `ECONNRESET`, …). */
  errorKinds: Record<string, number>;
  /** The generator's own longest stall while driving this Worker. */
  gen: number;
}

function figures(r: OpenLoopResult, rate: number): Figures {
  return {
    p50: quantile(r.latencies, 0.5),
    p99: quantile(r.latencies, 0.99),
    max: quantile(r.latencies, 1),
    silence: longestSilence(r.latencies, rate),
    errors: r.errors,
    errorKinds: r.errorKinds,
    gen: r.loopStall,
  };
}

/** "  (Worker: 22 errors, status 503 × 20, ECONNRESET × 2)", or nothing when `f` had none. */
function errorText(who: string, f: Figures): string {
  if (f.errors === 0) return "";
  const kinds = Object.entries(f.errorKinds).map(([k, n]) => `${k} × ${n}`);
  return `  (${who}: ${f.errors} errors, ${kinds.join(", ")})`;
}

const ms = (v: number) => v.toFixed(1).padStart(7);

async function main(): Promise<void> {
  const script = bundleWorker();
  const noopScript = bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)));
  const baseScript =
    BASELINE === undefined
      ? undefined
      : bundleWorker(resolvePath(BASELINE, "wrangler.toml"), benchDir("baseline"));
  if (BASELINE !== undefined) console.log(`baseline: the Worker of ${resolvePath(BASELINE)}`);
  let failed = false;
  console.log(
    `open loop at ${SHARE} of the Worker's closed-loop peak, ${SECONDS} s per Worker per round, ${ROUNDS} rounds of fresh processes; latency from when each request was due (ms)`,
  );
  const targets: Target[] = [
    { key: "worker", script, port: 0, bindings: {}, objects: true },
    { key: "noop", script: noopScript, port: 1, bindings: {}, objects: false },
    ...(LOG_LINE
      ? [
          {
            key: "logging" as const,
            script: noopScript,
            port: 2,
            bindings: { NOOP_LOG_LINE: "1" },
            objects: false,
          },
        ]
      : []),
    ...(baseScript === undefined
      ? []
      : [{ key: "baseline" as const, script: baseScript, port: 3, bindings: {}, objects: true }]),
  ];
  for (const route of ROUTES) {
    const { path, body } = DECISION_REQUESTS[route];
    const text = JSON.stringify(body);
    console.log(`\nPOST ${path}`);
    console.log(
      `${"round".padEnd(6)} ${"rate/s".padStart(7)} | ${"Worker p50".padStart(10)} ${"p99".padStart(7)} ${"max".padStart(7)} ${"silence".padStart(7)} | ${"no-op p50".padStart(9)} ${"p99".padStart(7)} ${"max".padStart(7)} ${"silence".padStart(7)} | p99 ratio | generator stall`,
    );
    const ratios: number[] = [];
    const baseRatios: number[] = [];
    /** Each process's latencies of every round (the generator in its own process, or the only mode run). */
    const pooled = new Map<string, Float64Array[]>();
    for (let round = 0; round < ROUNDS; round++) {
      // The rate: the Worker's closed-loop peak, in a process of its own that is then stopped, so
      // that no measured process has a history the others lack.
      const probe = await startWorker(script, await benchPort(0), 0, () => {}, {}, undefined, { pin: true });
      let rate: number;
      try {
        rate = Math.round(SHARE * (await peakRate(`${probe.url}${path}`, text)));
      } finally {
        await probe.stop();
      }
      // Every measured process has the same life, one at a time: started afresh, warmed up with the
      // same closed loop as the probe, a fixed pause, its windows, stopped. The order rotates by
      // round, so over as many rounds as processes each is driven in each position once.
      const got = MODES.map(() => new Map<string, Figures>());
      for (const t of rotate(targets, round)) {
        const w = await startWorker(t.script, await benchPort(t.port), 0, () => {}, t.bindings, undefined, {
          pin: true,
          objects: t.objects,
        });
        try {
          for (let k = 0; k < WARMUPS; k++) await peakRate(`${w.url}${path}`, text);
          await new Promise((done) => setTimeout(done, PAUSE_MS));
          for (const [m, mode] of MODES.entries()) {
            const r = await (mode === "inprocess" ? openLoop : openLoopInChild)(
              { url: `${w.url}${path}`, method: "POST", body: text },
              rate,
              SECONDS,
              IDLE_MS,
            );
            got[m].set(t.key, figures(r, rate));
            if (m === 0) pooled.set(t.key, [...(pooled.get(t.key) ?? []), r.latencies]);
          }
        } finally {
          await w.stop();
        }
      }
      for (const [m, mode] of MODES.entries()) {
        const a = got[m].get("worker") as Figures;
        const b = got[m].get("noop") as Figures;
        const ratio = a.p99 / b.p99;
        if (m === 0) ratios.push(ratio);
        // every measured process's errors fail the run, the baseline's and the logging no-op's too
        failed ||= [...got[m].values()].some((f) => f.errors > 0);
        const label =
          MODES.length > 1 ? `${round + 1} ${mode === "inprocess" ? "in" : "own"}` : String(round + 1);
        console.log(
          `${label.padEnd(6)} ${String(rate).padStart(7)} | ${ms(a.p50).padStart(10)} ${ms(a.p99)} ${ms(a.max)} ${ms(a.silence)} | ${ms(b.p50).padStart(9)} ${ms(b.p99)} ${ms(b.max)} ${ms(b.silence)} | ${ratio.toFixed(2).padStart(8)}× | ${a.gen.toFixed(0)} / ${b.gen.toFixed(0)}${errorText("Worker", a)}${errorText("no-op", b)}`,
        );
        const d = got[m].get("baseline");
        if (d !== undefined) {
          if (m === 0) baseRatios.push(d.p99 / b.p99);
          console.log(
            `${"".padEnd(14)} | baseline:  ${ms(d.p50)} ${ms(d.p99)} ${ms(d.max)} ${ms(d.silence)} | p99 ratio ${(d.p99 / b.p99).toFixed(2)}× (generator stall ${d.gen.toFixed(0)})${errorText("baseline", d)}`,
          );
        }
        const c = got[m].get("logging");
        if (c !== undefined)
          console.log(
            `${"".padEnd(14)} | no-op + log line: p50 ${ms(c.p50)} p99 ${ms(c.p99)} max ${ms(c.max)} silence ${ms(c.silence)} (generator stall ${c.gen.toFixed(0)})${errorText("no-op + log line", c)}`,
          );
      }
    }
    if (baseRatios.length > 0)
      console.log(
        `baseline: median p99 ratio ${median(baseRatios).toFixed(2)}×, worst ${Math.max(...baseRatios).toFixed(2)}×`,
      );
    const worst = Math.max(...ratios);
    console.log(
      `median p99 ratio ${median(ratios).toFixed(2)}×, worst ${worst.toFixed(2)}× (goal ≤ ${GOAL}× in every round)`,
    );
    // every round's requests together: each window's p99 is about one full collection's tail
    const p99 = (key: string) => pooledQuantile(pooled.get(key) ?? [], 0.99);
    const others = (["baseline", "logging"] as const)
      .filter((k) => pooled.has(k))
      .map((k) => `, ${k} ${p99(k).toFixed(1)} ms (${(p99(k) / p99("noop")).toFixed(2)}×)`);
    console.log(
      `all rounds' requests together: p99 Worker ${p99("worker").toFixed(1)} ms, no-op ${p99("noop").toFixed(1)} ms, ratio ${(p99("worker") / p99("noop")).toFixed(2)}×${others.join("")}`,
    );
  }
  console.log(
    `silence: the longest time between two consecutive answers; max: the slowest request; generator stall: the longest the generator's own event loop was late (Worker / no-op), the generator ${MODES.map((m) => (m === "inprocess" ? "in this process (in)" : "in a process of its own (own)")).join(", then ")}`,
  );
  if (failed) process.exitCode = 1;
}

await main();
