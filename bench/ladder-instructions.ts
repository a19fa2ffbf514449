/**
 * `npm run bench:ladder:instructions`: the ladder of `npm run bench:ladder` counted in
 * instructions instead of CPU time, so that one build can be compared with another on a
 * loaded machine. Each rung (the ladder Worker at LADDER_STEP 0 to 6) and the real Worker
 * is served by workerd under valgrind's cachegrind, started through Miniflare as the other
 * benches start it (MINIFLARE_WORKERD_PATH points at a wrapper script), and sent requests
 * one after another: WARM, then N1 in one process and N2 in another; instructions per request
 * = (count at N2 − count at N1) / (N2 − N1), everything before the first measured request
 * (start, module load, warm-up) cancelling out. Counts are user-space instructions of the
 * whole workerd process (V8, the runtime, Miniflare's entry Worker, the Durable Objects
 * the Worker calls), not CPU time; kernel work (sockets, SQLite's writes) is not counted.
 * Repeats within about 1–2%: V8 compiles on background threads at moments that vary.
 * The requests ask for no compression (`accept-encoding: identity`, as autocannon sends
 * none), else workerd gzips each answer.
 *
 * BENCH_ROUTES (place,limits: keys of bench/http-requests.ts), BENCH_RUNGS (0,1,2,3,4,5,6,route),
 * BENCH_WARM (300), BENCH_N1 (100), BENCH_N2 (600), BENCH_SHARDS (1; 0 serves the real
 * Worker without its METRICS_SHARD binding). Needs valgrind; takes about a minute a rung.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { benchDir, bundleWorker, startWorker } from "./workerd.js";

const ROUTES = (process.env.BENCH_ROUTES ?? "place,limits").split(",") as (keyof typeof DECISION_REQUESTS)[];
const RUNGS = (process.env.BENCH_RUNGS ?? "0,1,2,3,4,5,6,route").split(",");
const WARM = Number(process.env.BENCH_WARM ?? 300);
const N1 = Number(process.env.BENCH_N1 ?? 100);
const N2 = Number(process.env.BENCH_N2 ?? 600);
const SHARDS = process.env.BENCH_SHARDS !== "0";

const NAMES: Record<string, string> = {
  "0": "the no-op (bench/noop's work)",
  "1": "+ read the body, active bundle, shape check",
  "2": "+ validate (the route's compiled schema)",
  "3": "+ decide",
  "4": "+ decision id and log line's text",
  "5": "+ the log line written",
  "6": "+ the answer as the route writes it",
  route: "the route (the Worker)",
};

/** The workerd binary Miniflare runs (its package's `bin/workerd` is a Node script that starts it). */
function workerdBinary(): string {
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const fromMiniflare = createRequire(fromWrangler.resolve("miniflare"));
  const pkg = fromMiniflare.resolve(
    `@cloudflare/workerd-${process.platform}-${process.arch === "x64" ? "64" : process.arch}/package.json`,
  );
  return join(dirname(pkg), "bin", "workerd");
}

/** Instructions of one workerd process that served WARM + n requests of the route. */
async function countRun(
  script: string,
  rung: string,
  route: keyof typeof DECISION_REQUESTS,
  n: number,
  dir: string,
): Promise<number> {
  const out = join(dir, `run-${rung}-${route}-${n}`);
  const wrapper = join(dir, "workerd");
  writeFileSync(
    wrapper,
    `#!/bin/sh\nexec valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=${out} ${workerdBinary()} "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const before = process.env.MINIFLARE_WORKERD_PATH;
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
  const { path, body } = DECISION_REQUESTS[route];
  const text = JSON.stringify(body);
  const worker = await startWorker(
    script,
    0,
    0,
    () => {},
    { BUNDLE_REFRESH_SECONDS: "100000000", ...(rung === "route" ? {} : { LADDER_STEP: rung }) },
    undefined,
    { pin: false, objects: rung === "route", shards: SHARDS },
  );
  if (before === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
  else process.env.MINIFLARE_WORKERD_PATH = before;
  try {
    let failures = 0;
    for (let i = 0; i < WARM + n; i++) {
      try {
        const answer = await fetch(`${worker.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "accept-encoding": "identity" },
          body: text,
        });
        if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
        await answer.arrayBuffer();
      } catch (e) {
        // a kept-alive connection the slowed process closed (reset or ended before the answer): sent
        // again; at worst one request more is counted, under 0.1% of a run
        if (++failures > 5 || !(e instanceof TypeError)) throw e;
        i--;
      }
    }
    // cachegrind writes its counts when the process ends by a signal it can catch (Miniflare's dispose kills it)
    const pids = childrenServing();
    for (const pid of pids) process.kill(pid, "SIGTERM");
    const started = Date.now();
    while (pids.some(alive) && Date.now() - started < 120_000) await new Promise((r) => setTimeout(r, 200));
  } finally {
    await worker.stop();
  }
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, "utf8"));
  if (summary === null) throw new Error(`no cachegrind summary in ${out}`);
  return Number(summary[1]);
}

/** This process's children running `workerd serve` (under valgrind). */
function childrenServing(): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === process.pid && readFileSync(`/proc/${d}/cmdline`, "utf8").includes("serve"))
        out.push(Number(d));
    } catch {
      // gone
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  if (spawnSync("valgrind", ["--version"]).status !== 0) throw new Error("valgrind is not installed");
  const script = bundleWorker();
  const ladder = bundleWorker(
    fileURLToPath(new URL("./ladder/wrangler.toml", import.meta.url)),
    benchDir("ladder"),
  );
  const dir = mkdtempSync(join(tmpdir(), "ladder-instructions-"));
  console.log(
    `workerd instructions per request under cachegrind: (${WARM} + ${N2} requests − ${WARM} + ${N1}) / ${N2 - N1}, one request at a time${SHARDS ? "" : ", the Worker without METRICS_SHARD"}`,
  );
  try {
    for (const route of ROUTES) {
      console.log(`\nPOST ${DECISION_REQUESTS[route].path} (${route})`);
      console.log(`${"rung".padEnd(46)} ${"instructions".padStart(12)} ${"added".padStart(9)}`);
      let previous: number | undefined;
      for (const rung of RUNGS) {
        const at = (n: number) => countRun(rung === "route" ? script : ladder, rung, route, n, dir);
        const perRequest = Math.round(((await at(N2)) - (await at(N1))) / (N2 - N1));
        const added =
          previous === undefined ? "" : `${perRequest >= previous ? "+" : ""}${perRequest - previous}`;
        console.log(
          `${(NAMES[rung] ?? rung).padEnd(46)} ${String(perRequest).padStart(12)} ${added.padStart(9)}`,
        );
        previous = perRequest;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
