/**
 * `npm run bench:deopts`: what each full collection costs a Worker besides its pause, counted (issue 31
 * goal 7). Serves the Worker (verdict cache off) and the no-op of bench/noop/ from workerd with V8's
 * `--trace-gc --trace-deopt` (through bench/v8flags/workerd.sh: Miniflare has no V8 flags option), finds
 * the closed-loop peak as `bench:open` does (2,000 + 4,000 requests at 16 connections), then drives each
 * at OPEN_SHARE (0.5) of the Worker's peak for OPEN_SECONDS (6) with the open-loop generator, and prints
 * per run: the full collections (mark-compacts) of each isolate in workerd — the Worker's own and
 * Miniflare's entry Worker, which every request passes first — and how many optimized functions each one
 * threw away because an object their code embedded had died ("embedded weak objects cleared"), with the
 * p99 and max latency for reference. Counts, not timings: they hold on a loaded machine.
 * BENCH_ROUTES (limits,place,match), DEOPTS_TARGETS (worker,noop), DEOPTS_LINES=1 prints the deopted
 * functions' names (readable with DEOPTS_NO_MINIFY=1, which bundles the Worker unminified).
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { peakRate } from "./peak-rate.js";
import { openLoopInChild, quantile } from "./open-loop.js";
import { benchPort, bundleWorker, startWorker } from "./workerd.js";

const ROUTES = (process.env.BENCH_ROUTES ?? "limits,place,match").split(
  ",",
) as (keyof typeof DECISION_REQUESTS)[];
const TARGETS = (process.env.DEOPTS_TARGETS ?? "worker,noop").split(",");
const SECONDS = Number(process.env.OPEN_SECONDS ?? 6);
const SHARE = Number(process.env.OPEN_SHARE ?? 0.5);
const NAMES = process.env.DEOPTS_LINES === "1";

/** A full collection of one isolate, and the optimized functions it threw away. */
interface FullGc {
  isolate: string;
  fromMb: number;
  toMb: number;
  pauseMs: number;
  dropped: string[];
}

/** Reads workerd's --trace-gc and --trace-deopt lines: deopt lines come just before the trace line of their collection. */
function traceReader(): { onChunk: (c: Buffer) => void; mark: () => number; since: (i: number) => FullGc[] } {
  const gcs: FullGc[] = [];
  let pending: string[] = [];
  let rest = "";
  return {
    onChunk(c) {
      rest += c.toString();
      const lines = rest.split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const dropped = /for deoptimization, reason: embedded weak objects cleared/.test(line)
          ? /<SharedFunctionInfo ?([^>]*)>/.exec(line)
          : null;
        if (dropped !== null) {
          pending.push(dropped[1] || "(anonymous)");
          continue;
        }
        const m =
          /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]\s+\d+ ms: Mark-Compact[^\d]*([\d.]+) \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB, pooled: [\d.]+ MB, ([\d.]+) /.exec(
            line,
          );
        if (m === null) continue;
        gcs.push({
          isolate: m[1],
          fromMb: Number(m[2]),
          toMb: Number(m[3]),
          pauseMs: Number(m[4]),
          dropped: pending,
        });
        pending = [];
      }
    },
    mark: () => gcs.length,
    since: (i) => gcs.slice(i),
  };
}

async function main(): Promise<void> {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const binary = fromWrangler("workerd") as { default?: string } | string;
  process.env.WORKERD_BINARY = typeof binary === "string" ? binary : (binary.default ?? "");
  process.env.WORKERD_V8_FLAGS = "--trace-gc --trace-deopt";
  process.env.MINIFLARE_WORKERD_PATH = fileURLToPath(new URL("./v8flags/workerd.sh", import.meta.url));
  const script = bundleWorker(
    undefined,
    undefined,
    process.env.DEOPTS_NO_MINIFY === "1" ? ["--no-minify"] : [],
  );
  const noopScript = bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)));
  console.log(
    `full collections in ${SECONDS} s at ${SHARE} of the Worker's closed-loop peak, after bench:open's warm-up; per isolate: collections, heap before -> after (MB), pause, optimized functions thrown away`,
  );
  for (const route of ROUTES) {
    const { path, body } = DECISION_REQUESTS[route];
    const text = JSON.stringify(body);
    let rate = 0;
    for (const target of TARGETS) {
      const trace = traceReader();
      const w =
        target === "worker"
          ? await startWorker(script, await benchPort(0), 0, trace.onChunk, {}, undefined, { pin: true })
          : await startWorker(noopScript, await benchPort(1), 0, trace.onChunk, {}, undefined, {
              pin: true,
              objects: false,
            });
      try {
        const peak = await peakRate(`${w.url}${path}`, text);
        if (rate === 0) rate = Math.round(SHARE * peak);
        const from = trace.mark();
        const got = await openLoopInChild(
          { url: `${w.url}${path}`, method: "POST", body: text },
          rate,
          SECONDS,
        );
        // the trace lines of the run's last collection may still be on their way
        await new Promise((r) => setTimeout(r, 200));
        const gcs = trace.since(from);
        const byIsolate = new Map<string, FullGc[]>();
        for (const g of gcs) byIsolate.set(g.isolate, [...(byIsolate.get(g.isolate) ?? []), g]);
        const dropped = gcs.reduce((n, g) => n + g.dropped.length, 0);
        console.log(
          `\nPOST ${path} ${target} at ${rate}/s: p99 ${quantile(got.latencies, 0.99).toFixed(1)} ms, max ${quantile(got.latencies, 1).toFixed(1)} ms; ${gcs.length} full collections, ${dropped} optimized functions thrown away`,
        );
        for (const [isolate, list] of byIsolate) {
          const live = Math.max(...list.map((g) => g.toMb));
          console.log(
            `  isolate ${isolate} (${live.toFixed(1)} MB after): ${list.map((g) => `${g.fromMb}->${g.toMb} MB ${g.pauseMs.toFixed(1)} ms, ${g.dropped.length} thrown away`).join("; ")}`,
          );
          if (NAMES)
            for (const g of list)
              if (g.dropped.length > 0) console.log(`    ${[...new Set(g.dropped)].sort().join(", ")}`);
        }
      } finally {
        await w.stop();
      }
    }
  }
}

await main();
