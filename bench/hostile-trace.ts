/**
 * `npx tsx bench/hostile-trace.ts`: where a slow `/healthz` of `npm run
 * bench:hostile` comes from (docs/performance.md, "What makes `/healthz`
 * wait"). Runs the hostile decision rows whose names contain one of the
 * `||`-separated texts of HOSTILE_ONLY (and, by the same texts, compile rows at
 * 100 KB and 1 MB) as bench:hostile measures them (publish, two first
 * requests, 3 samples), while a thread probes `/healthz` every 20 ms, and
 * keeps every request's and probe's start and end on one monotonic clock.
 * Prints, per decision row, the worst probe over publishing, over the first
 * requests and over the repeated ones, and how many requests sent after a
 * probe were started before it was answered; then every probe slower than
 * TRACE_SLOW ms (default 60) with the requests around it. TRACE_PERF=1 also
 * records workerd with perf (CPU samples, scheduler switches, fsync calls):
 * per phase and slow probe, the CPU ms of each workerd thread, the states in
 * which its main thread left the CPU (R preempted, S waiting, D disk), each
 * time off the CPU of 20 ms or more with where it left, and the fsyncs (perf
 * takes a second or more to start: the first phase may have no records); TRACE_REQS=1 prints that per request. TRACE_PROFILE=1 takes the
 * isolate's CPU profile (GC, idle, JavaScript, longest GC run). TRACE_SERVER=1
 * patches the bundle to log when each request entered the Worker (workerd's
 * clock, ms). TRACE_SHM=1 keeps Miniflare's storage on tmpfs as bench:hostile
 * does (by default here: on disk, Miniflare's own temporary folder).
 * With TRACE_SERVER=1 it also counts, per probe, the bench's requests written
 * after the probe's head that entered the Worker before it (workerd's order of
 * admission, on the Worker's clock; "Why `/healthz` waits behind later
 * requests"), and HOSTILE_CONNECTIONS=fresh sends each of the bench's requests
 * on a connection of its own, as bench:hostile does with it.
 * A diagnostic: its figures are not goals, and perf and the profiler slow workerd.
 */
import { Worker } from "node:worker_threads";
import { spawn, spawnSync } from "node:child_process";
import { HOSTILE_ROWS } from "../test/hostile/rows.js";
import { COMPILE_ROWS } from "../test/hostile/compile-rows.js";
import { mkdtempSync, rmSync } from "node:fs";
import type { HealthProbe } from "./healthz-probe.js";
import { freshConnections, measureRow, measureSource, publish } from "./hostile-measure.js";
import { benchPort, bundleWorker, startWorker } from "./workerd.js";
import { connectInspector } from "./inspector.js";

const mono = () => Number(process.hrtime.bigint()) / 1e6;
const onlys = (process.env.HOSTILE_ONLY ?? "").split("||");
const perf = process.env.TRACE_PERF === "1";
const SLOW = Number(process.env.TRACE_SLOW ?? 60);
const events: { what: string; start: number; end: number }[] = [];
const realFetch = globalThis.fetch;
globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
  const start = mono();
  const url = String(input);
  const len = typeof init?.body === "string" ? init.body.length : 0;
  const res = await realFetch(input, init);
  const buf = await res.arrayBuffer();
  events.push({
    what: `${init?.method ?? "GET"} ${url.replace(/^https?:\/\/[^/]+/, "")} ${len}B -> ${res.status} ${buf.byteLength}B`,
    start,
    end: mono(),
  });
  return new Response(buf, { status: res.status, headers: res.headers });
}) as typeof fetch;

const CAP = 100000;
// per probe: its start, its end, and when its head was written to the connection (undici's channel)
const THREAD = `
const { workerData } = require("node:worker_threads");
const dc = require("node:diagnostics_channel");
const c = new Int32Array(workerData.shared);
const t = new Float64Array(workerData.times);
const w = new Float64Array(workerData.written);
const mono = () => Number(process.hrtime.bigint()) / 1e6;
const sleep = (ms) => new Promise((d) => setTimeout(d, ms));
let wrote = 0;
dc.subscribe("undici:client:sendHeaders", () => { wrote = mono(); });
(async () => {
  while (Atomics.load(c, 0) === 0) {
    const t0 = mono();
    const k = Atomics.load(c, 1);
    try { const r = await fetch(workerData.url + "?p=" + k); await r.arrayBuffer(); } catch {}
    const i = Atomics.add(c, 1, 1);
    if (i < ${CAP}) { t[2*i] = t0; t[2*i+1] = mono(); w[i] = wrote; }
    const wait = t0 + 20 - mono();
    if (wait > 0) await sleep(wait);
  }
})();`;

// the trace patches the bundle's text at two lines, so it is bundled unminified
const script = bundleWorker(undefined, undefined, process.env.TRACE_SERVER === "1" ? ["--no-minify"] : []);
const serverLines: { path: string; enter: number; done: number; got: number }[] = [];
const realOff = Date.now() - mono();
if (process.env.TRACE_SERVER === "1") {
  const fs = await import("node:fs");
  const text = fs.readFileSync(script, "utf8");
  const a = "  noteRequest();\n";
  const b = "  const response = await answer;\n";
  if (!text.includes(a) || !text.includes(b)) throw new Error("patch points not found");
  fs.writeFileSync(
    script,
    text
      .replace(a, a + "  const __t0 = Date.now();\n")
      .replace(
        b,
        b +
          '  { const __u = new URL(request.url); console.log("TRACE " + __u.pathname + __u.search + " " + __t0 + " " + Date.now()); }\n',
      ),
  );
}
const onOut = (chunk: Buffer) => {
  const got = mono();
  for (const line of chunk.toString().split("\n")) {
    const m = /TRACE (\S+) (\d+) (\d+)/.exec(line);
    if (m) serverLines.push({ path: m[1], enter: Number(m[2]) - realOff, done: Number(m[3]) - realOff, got });
  }
};
const profiling = process.env.TRACE_PROFILE === "1";
const inspectorPort = profiling ? await benchPort(700) : undefined;
const storage = process.env.TRACE_SHM === "1" ? mkdtempSync("/dev/shm/arbiter-trace-") : undefined;
const worker = await startWorker(script, 0, 0, onOut, {}, inspectorPort, { storage });
const insp = profiling ? await connectInspector(inspectorPort as number) : undefined;
if (insp) {
  await insp.send("Profiler.enable");
  await insp.send("Profiler.setSamplingInterval", { interval: 250 });
  await insp.send("Profiler.start");
}
for (let i = 0; i < 20; i++) await realFetch(`${worker.url}/healthz`).then((r) => r.arrayBuffer());
const shared = new SharedArrayBuffer(8);
const times = new SharedArrayBuffer(CAP * 16);
const written = new SharedArrayBuffer(CAP * 8);
const c = new Int32Array(shared);
const th = new Worker(THREAD, {
  eval: true,
  workerData: { url: `${worker.url}/healthz`, shared, times, written },
});
if (process.env.HOSTILE_CONNECTIONS === "fresh") freshConnections();
// only count() is read by the measuring functions (the probes' CPU is taken out of the samples)
const probe = { count: () => Atomics.load(c, 1) } as unknown as HealthProbe;
const t = { worker, probe, probeCpuMs: 1.3 };
let rec: ReturnType<typeof spawn> | undefined;
const perfFile = `/tmp/arbiter-trace-${process.pid}.data`;
if (perf) {
  rec = spawn(
    "perf",
    [
      "record",
      "-k",
      "mono",
      "-F",
      "999",
      "-g",
      "-e",
      "cpu-clock",
      "-e",
      "sched:sched_switch",
      "-e",
      "syscalls:sys_enter_fdatasync",
      "-e",
      "syscalls:sys_exit_fdatasync",
      "-e",
      "syscalls:sys_enter_fsync",
      "-e",
      "syscalls:sys_exit_fsync",
      "-p",
      String(worker.pid),
      "-o",
      perfFile,
    ],
    { stdio: "ignore" },
  );
  await new Promise((d) => setTimeout(d, 1500));
}
const t00 = mono();
for (const row of HOSTILE_ROWS.filter((r) => onlys.some((o) => r.name.includes(o)))) {
  const a = mono();
  await publish(worker.url, row);
  events.push({ what: `PHASE publish ${row.name.slice(0, 40)}`, start: a, end: mono() });
  for (const n of [30, 10000]) {
    const b = mono();
    const m = await measureRow(t, row, n);
    events.push({ what: `PHASE row n=${n} ${m.ms.toFixed(1)}ms`, start: b, end: mono() });
  }
}
for (const row of COMPILE_ROWS.filter((r) => onlys.some((o) => o && r.name.includes(o)))) {
  for (const bytes of [100000, 1000000]) {
    const src = row.source(bytes);
    const b = mono();
    const m = await measureSource(t, row, src);
    events.push({ what: `PHASE source ${bytes} ${m.ms.toFixed(1)}ms`, start: b, end: mono() });
  }
}
Atomics.store(c, 0, 1);
await new Promise((d) => th.once("exit", d));
if (rec) {
  rec.kill("SIGINT");
  await new Promise((d) => rec!.on("exit", d));
}
type Prof = {
  startTime: number;
  samples: number[];
  timeDeltas: number[];
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
};
let prof: Prof | undefined;
if (insp) {
  prof = ((await insp.send("Profiler.stop")) as { profile: Prof }).profile;
  insp.close();
}
await worker.stop();
if (storage !== undefined) rmSync(storage, { recursive: true, force: true });
const pAt: number[] = [];
const pKind: string[] = [];
if (prof) {
  const name = new Map(prof.nodes.map((n) => [n.id, n.callFrame.functionName || "(anon)"]));
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    pAt.push((t += prof.timeDeltas[i]) / 1000);
    const n = name.get(prof.samples[i]) as string;
    pKind.push(
      n === "(idle)" || n === "(garbage collector)" || n === "(program)" || n === "(root)" ? n : "js",
    );
  }
}
function profSummary(s: number, e: number): string {
  if (!prof) return "";
  const tally = new Map<string, number>();
  let gcRun = 0,
    gcMax = 0,
    gcStart = 0,
    busyStart = -1,
    busyMax = 0;
  for (let i = 0; i < pAt.length; i++) {
    if (pAt[i] < s || pAt[i] > e) continue;
    const k = pKind[i];
    tally.set(k, (tally.get(k) ?? 0) + (i > 0 ? pAt[i] - pAt[i - 1] : 0));
    if (k === "(garbage collector)") {
      if (!gcRun) gcStart = pAt[i - 1] ?? pAt[i];
      gcRun = 1;
      gcMax = Math.max(gcMax, pAt[i] - gcStart);
    } else gcRun = 0;
    if (k !== "(idle)") {
      if (busyStart < 0) busyStart = pAt[i - 1] ?? pAt[i];
      busyMax = Math.max(busyMax, pAt[i] - busyStart);
    } else busyStart = -1;
  }
  return ` | isolate ms: ${[...tally].map(([k, v]) => `${k} ${v.toFixed(0)}`).join(", ")}; longest GC ${gcMax.toFixed(1)}, longest busy ${busyMax.toFixed(1)}`;
}
const tt = new Float64Array(times);
const n = Math.min(CAP, Atomics.load(c, 1));
const lat: number[] = [];
const slow: [number, number][] = [];
for (let i = 0; i < n; i++) {
  const s = tt[2 * i],
    e = tt[2 * i + 1];
  if (s < t00) continue;
  lat.push(e - s);
  if (e - s > SLOW) slow.push([s, e]);
}
lat.sort((x, y) => x - y);
console.log(
  `probes ${lat.length}, p50 ${lat[lat.length >> 1]?.toFixed(1)} p99 ${lat[Math.floor(lat.length * 0.99)]?.toFixed(1)} max ${lat[lat.length - 1]?.toFixed(1)}; load ${spawnSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).stdout.trim()}`,
);
const phases = events.filter((e) => e.what.startsWith("PHASE"));
// per row: worst probe whose window overlaps publish, the first two requests of each n (cold), the rest (warm)
{
  const pubs = phases.filter((p) => p.what.startsWith("PHASE publish"));
  const rowsP = phases.filter((p) => p.what.startsWith("PHASE row"));
  const probes: [number, number][] = [];
  for (let i = 0; i < n; i++) if (tt[2 * i] >= t00) probes.push([tt[2 * i], tt[2 * i + 1]]);
  for (const pub of pubs) {
    const rowEnd = rowsP.find((r) => r.start >= pub.end - 1 && r.what.includes("n=10000"))?.end ?? Infinity;
    const reqs = events.filter(
      (e) => !e.what.startsWith("PHASE") && e.start >= pub.end - 1 && e.end <= rowEnd,
    );
    const cold: [number, number][] = [];
    const warmR: [number, number][] = [];
    let lastN = "";
    let k = 0;
    for (const r of reqs) {
      const key = r.what.split(" ").slice(0, 3).join(" ");
      if (key !== lastN) {
        lastN = key;
        k = 0;
      }
      (k++ < 2 ? cold : warmR).push([r.start, r.end]);
    }
    const worstIn = (ws: [number, number][]) => {
      let w = 0;
      for (const [a, b] of probes)
        for (const [s2, e2] of ws)
          if (b > s2 && a < e2) {
            w = Math.max(w, b - a);
            break;
          }
      return w;
    };
    const lat = (ws: [number, number][]) => {
      const xs: number[] = [];
      for (const [a, b] of probes) if (ws.some(([s2, e2]) => b > s2 && a < e2)) xs.push(b - a);
      xs.sort((x, y) => x - y);
      return xs;
    };
    const wl = lat(warmR);
    // probes that outlived a request sent after them: how many such requests (the probe waited behind them)
    const hist = new Map<number, number>();
    for (const [a, b] of probes) {
      if (b < (warmR[0]?.[0] ?? Infinity) || a > rowEnd) continue;
      const later = warmR.filter(([s2]) => s2 > a && s2 < b - 1).length;
      hist.set(later, (hist.get(later) ?? 0) + 1);
    }
    console.log(
      `  probes by requests sent after them but answered first (client side, the probing thread's own delays included): ${[
        ...hist,
      ]
        .sort((x, y) => x[0] - y[0])
        .map(([k, v]) => `${k}:${v}`)
        .join(" ")}`,
    );
    console.log(
      `ROW ${pub.what.slice(14, 60)}: worst probe publish ${worstIn([[pub.start, pub.end]]).toFixed(0)}, cold requests ${worstIn(cold).toFixed(0)} (cold ms ${cold.map(([a, b]) => (b - a).toFixed(0)).join(",")}), warm ${worstIn(warmR).toFixed(0)} (p50 ${wl[wl.length >> 1]?.toFixed(0)}, p99 ${wl[Math.floor(wl.length * 0.99)]?.toFixed(0)}, ${wl.length} probes; warm request wall p50 ${(() => {
        const d = warmR.map(([a, b]) => b - a).sort((x, y) => x - y);
        return d[d.length >> 1]?.toFixed(1) + " max " + d[d.length - 1]?.toFixed(1);
      })()})`,
    );
  }
}
// workerd's order of admission (TRACE_SERVER=1): per probe, the bench's requests written after the
// probe's head that entered the Worker before it. The bench's requests are sequential, so its k-th
// request is the k-th line of a path other than /healthz.
if (serverLines.length) {
  const benchLines = serverLines.filter((l) => !l.path.startsWith("/healthz"));
  const benchReqs = events.filter((e) => !e.what.startsWith("PHASE"));
  const ww = new Float64Array(written);
  if (benchLines.length !== benchReqs.length)
    console.log(
      `server order: ${benchLines.length} server lines for ${benchReqs.length} bench requests, not compared`,
    );
  else {
    const hist = new Map<number, number>();
    let worstAhead = { n: 0, probe: -1 };
    for (const l of serverLines) {
      const m = /[?&]p=(\d+)/.exec(l.path);
      if (!m) continue;
      const i = Number(m[1]);
      if (i >= n || tt[2 * i] < t00 || ww[i] === 0) continue;
      let ahead = 0;
      for (let k = 0; k < benchReqs.length; k++)
        if (benchReqs[k].start > ww[i] && benchLines[k].enter < l.enter) ahead++;
      hist.set(ahead, (hist.get(ahead) ?? 0) + 1);
      if (ahead > worstAhead.n) worstAhead = { n: ahead, probe: i };
    }
    console.log(
      `server order: probes by bench requests written after them that entered the Worker first: ${[...hist]
        .sort((x, y) => x[0] - y[0])
        .map(([k, v]) => `${k}:${v}`)
        .join(
          " ",
        )}${worstAhead.probe >= 0 ? ` (most: probe written at +${(ww[worstAhead.probe] - t00).toFixed(0)}, ${(tt[2 * worstAhead.probe + 1] - tt[2 * worstAhead.probe]).toFixed(0)} ms)` : ""}`,
    );
  }
}
// perf
const samples: { tid: number; at: number; frames: string[]; ev: string; trace: string }[] = [];
if (perf) {
  const out = spawnSync("perf", ["script", "-i", perfFile, "-F", "tid,time,event,trace,ip,sym"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  rmSync(perfFile, { force: true });
  let cur: (typeof samples)[number] | undefined;
  for (const line of out.split("\n")) {
    const head = /^\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$/.exec(line);
    if (head) {
      cur = { tid: Number(head[1]), at: Number(head[2]) * 1000, ev: head[3], trace: head[4], frames: [] };
      samples.push(cur);
      continue;
    }
    const fr = /^\s+[0-9a-f]+\s+(.*)$/.exec(line);
    if (fr && cur) cur.frames.push(fr[1].replace(/\(.*$/, "").slice(0, 90));
  }
}
/** The perf samples within [s, e]: CPU samples per thread, and the main thread's switches out by the state it left in. */
function cpuAndSwitches(s: number, e: number) {
  const main = worker.pid as number;
  const inside = samples.filter((x) => x.at >= s && x.at <= e);
  const byTid = new Map<number, number>();
  for (const x of inside) if (x.ev === "cpu-clock") byTid.set(x.tid, (byTid.get(x.tid) ?? 0) + 1);
  const st = new Map<string, number>();
  for (const x of inside) {
    if (x.ev !== "sched:sched_switch" || x.tid !== main) continue;
    const k = /prev_state=(\S+)/.exec(x.trace)?.[1] ?? "?";
    st.set(k, (st.get(k) ?? 0) + 1);
  }
  return { main, inside, byTid, st };
}
function perfSummary(s: number, e: number): string {
  const { main, inside, byTid, st } = cpuAndSwitches(s, e);
  let open = 0,
    syncMs = 0,
    nsync = 0;
  for (const x of inside) {
    if (x.ev.includes("enter_f")) open = x.at;
    else if (x.ev.includes("exit_f") && open) {
      syncMs += x.at - open;
      nsync++;
      open = 0;
    }
  }
  return `cpu ms by thread ${[...byTid].map(([k, v]) => `${k === main ? "main" : k}:${v}`).join(" ")}; main out ${[...st].map(([k, v]) => `${k}x${v}`).join(" ")}; fsyncs ${nsync} (${syncMs.toFixed(0)} ms)`;
}
for (const p of phases)
  console.log(
    `  ${p.what}: +${(p.start - t00).toFixed(0)} .. +${(p.end - t00).toFixed(0)}${perf ? "  " + perfSummary(p.start, p.end) : ""}${profSummary(p.start, p.end)}`,
  );
if (process.env.TRACE_REQS === "1")
  for (const ev of events.filter((e) => !e.what.startsWith("PHASE")))
    console.log(
      `    ${ev.what}: +${(ev.start - t00).toFixed(1)} (${(ev.end - ev.start).toFixed(1)} ms)${perf ? "  " + perfSummary(ev.start, ev.end) : ""}${profSummary(ev.start, ev.end)}`,
    );
for (const [s, e] of slow) {
  if (serverLines.length)
    for (const l of serverLines)
      if (l.enter > s - 60 && l.enter < e + 5)
        console.log(
          `    server: ${l.path} entered +${(l.enter - t00).toFixed(0)} handler-last-io +${(l.done - t00).toFixed(0)}`,
        );
  console.log(`slow probe +${(s - t00).toFixed(0)} .. +${(e - t00).toFixed(0)}: ${(e - s).toFixed(0)} ms`);
  for (const ev of events)
    if (ev.end > s - 50 && ev.start < e && !ev.what.startsWith("PHASE"))
      console.log(
        `    ${ev.what}: +${(ev.start - t00).toFixed(1)} .. +${(ev.end - t00).toFixed(1)} (${(ev.end - ev.start).toFixed(1)} ms)`,
      );
  if (prof) console.log(`   ${profSummary(s, e)}`);
  if (perf) {
    const { main, inside, byTid, st } = cpuAndSwitches(s, e);
    const syncs = inside
      .filter((x) => x.ev.includes("sync"))
      .map((x) => `${x.ev.replace("syscalls:sys_", "")}@+${(x.at - t00).toFixed(1)} tid ${x.tid}`);
    console.log(
      `    perf: cpu samples by tid ${[...byTid].map(([k, v]) => `${k === main ? "main" : k}:${v}`).join(" ")}; main switched out ${[...st].map(([k, v]) => `${k}x${v}`).join(" ")}; syncs ${syncs.join(", ") || "none"}`,
    );
    // the main thread's times off the CPU of 20 ms or more overlapping the window: until its next event, and where it left
    const mine = samples.filter((x) => x.tid === main);
    for (let i = 0; i + 1 < mine.length; i++) {
      const x = mine[i];
      if (mine[i + 1].at < s || x.at > e || x.ev !== "sched:sched_switch") continue;
      const gap = mine[i + 1].at - x.at;
      if (gap >= 20)
        console.log(
          `    main off the CPU (${/prev_state=(\S+)/.exec(x.trace)?.[1]}) ${gap.toFixed(0)} ms from +${(x.at - t00).toFixed(0)} in ${x.frames
            .filter((f) => !/^(\[unknown\]|__schedule|schedule|entry_SYSCALL|do_syscall)/.test(f))
            .slice(0, 8)
            .join(" < ")}`,
        );
    }
    const incl = new Map<string, number>();
    const leaf = new Map<string, number>();
    const mc = inside.filter((x) => x.ev === "cpu-clock" && x.tid === main);
    for (const x of mc) {
      leaf.set(x.frames[0], (leaf.get(x.frames[0]) ?? 0) + 1);
      for (const f of new Set(x.frames)) incl.set(f, (incl.get(f) ?? 0) + 1);
    }
    const top = (m: Map<string, number>, cut: boolean) =>
      [...m]
        .filter(([, v]) => !cut || v < 0.8 * mc.length)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([k, v]) => `${k} ${v}`)
        .join("; ");
    console.log(`    leaves: ${top(leaf, false)}\n    stack: ${top(incl, true)}`);
  }
}
