/**
 * Issue 31 goal 1, "limits with the library as jq text ≥ 25× pScheduler": pScheduler's own
 * LimitProcessor (bench/native/pscheduler.ts) on the toolkit default file, with and without
 * the rewriter, against our engine on the same file with pScheduler's iso8601 definitions
 * as jq text (what pScheduler runs) and on our native `iso::`, in the same run: ROUNDS
 * rounds alternating which side goes first, CPU time on each side (ours in this process,
 * pScheduler's in its Python process), medians of the paired ratios.
 *
 * pScheduler's `pyjq` is our ctypes shim over libjq 1.7.1; it converts through JSON text
 * where pyjq converts node by node in C, so it adds time to pScheduler's side. That
 * overhead is measured in the same run (every jq evaluation one decision makes, through
 * the shim and in a C loop over libjq alone) and a second row gives the ratio with it
 * taken off: a lower bound on the ratio to pScheduler with the real pyjq.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  decideLimits,
  type LimitsContext,
  type LimitsPolicy,
  type LimitsRequest,
} from "../src/engines/limits/index.js";
import { haveSharedData, sharedDataPath } from "../test/support/shared-data.js";
import { pscheduler } from "./native/pscheduler.js";
import { cpuPerCall, type BenchRow } from "./support.js";

const ROUNDS = 7;
const SAMPLE_MS = 60;

/** The toolkit default as pScheduler reads it: the shared data's copy, else ours (the same limits, without comments). */
function limitsFile(): string {
  const shared = sharedDataPath("pscheduler", "toolkit-default-limits.json");
  return haveSharedData && existsSync(shared)
    ? shared
    : fileURLToPath(new URL("../policies/limits.json", import.meta.url));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** A JSON value with its object keys sorted, for comparing tasks whatever their key order. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}

/**
 * Rows comparing pScheduler's LimitProcessor with our engine on `text` (the library as jq
 * text) and `native` (our `iso::`); none, with a line saying why, when it cannot run here.
 */
export async function pschedulerRows(
  native: LimitsPolicy,
  text: LimitsPolicy,
  request: LimitsRequest,
  ctx: LimitsContext,
): Promise<BenchRow[]> {
  const ps = await pscheduler(limitsFile());
  if (!ps.ok) {
    console.log(`pScheduler: not run, so no ratio to it is printed (${ps.reason})`);
    return [];
  }
  const rows: BenchRow[] = [];
  const p = ps.processor;
  try {
    const hints: Record<string, string> = { requester: request.requester };
    if (request.server !== undefined) hints.server = request.server;
    for (const [label, rewrite] of [
      ["with rewrite", true],
      ["no rewrite", false],
    ] as const) {
      const req: LimitsRequest = { ...request, rewrite };
      const ours = (await decideLimits(text, req, ctx)).verdict;
      const theirs = await p.ask({ op: "check", task: request.task, hints, rewrite });
      // with the rewriter on, pScheduler hands back the task it rewrote (changed or not)
      const sameTask =
        !rewrite ||
        JSON.stringify(canonical(theirs.task)) === JSON.stringify(canonical(ours.task ?? request.task));
      if (theirs.passed !== ours.allowed || !sameTask)
        throw new Error(
          `limits ${label}: pScheduler and Arbiter disagree (${JSON.stringify(theirs).slice(0, 300)})`,
        );
      const cmd = { op: "time", task: request.task, hints, rewrite };
      const probe = Number((await p.ask({ ...cmd, n: 20 })).us);
      const n = Math.max(10, Math.round((SAMPLE_MS * 1000) / probe));
      const runText = () => decideLimits(text, req, ctx);
      const runNative = () => decideLimits(native, req, ctx);
      await cpuPerCall(runText, SAMPLE_MS);
      await cpuPerCall(runNative, SAMPLE_MS);
      const t: number[] = [];
      const o: number[] = [];
      const on: number[] = [];
      const rt: number[] = [];
      const rn: number[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        const theirsFirst = r % 2 === 1;
        const them = theirsFirst ? Number((await p.ask({ ...cmd, n })).us) : 0;
        const a = await cpuPerCall(runText, SAMPLE_MS);
        const b = await cpuPerCall(runNative, SAMPLE_MS);
        const c = theirsFirst ? them : Number((await p.ask({ ...cmd, n })).us);
        t.push(c);
        o.push(a);
        on.push(b);
        rt.push(c / a);
        rn.push(c / b);
      }
      const shim = await p.ask({ op: "shim", task: request.task, hints, rewrite, n: 300 });
      const overhead = Number(shim.all_us) - Number(shim.core_us);
      const lessShim = median(t) - overhead;
      const ourText = median(o);
      rows.push(
        {
          name: `pScheduler LimitProcessor, toolkit default, ${label} (CPU)`,
          microsPerOp: median(t),
          baselineName: `ours, iso8601 as jq text, ${ourText.toFixed(1)} µs`,
          ratio: median(rt),
        },
        {
          name: `  the same less the shim's overhead (${String(shim.calls)} jq runs, ${overhead.toFixed(0)} µs)`,
          microsPerOp: lessShim,
          baselineName: `ours, iso8601 as jq text, ${ourText.toFixed(1)} µs`,
          ratio: lessShim / ourText,
        },
        {
          name: `  pScheduler against our native iso::`,
          microsPerOp: median(t),
          baselineName: `ours, native iso::, ${median(on).toFixed(1)} µs`,
          ratio: median(rn),
        },
      );
    }
    console.log(
      `${ps.version}: same run, ${ROUNDS} alternating rounds, CPU time on each side; ` +
        "the pScheduler rows' ratio is its µs over ours (how many times faster we are)",
    );
  } finally {
    p.close();
  }
  return rows;
}
