/**
 * `npx tsx bench/open-probe.ts`: a timeline of one open-loop run, to find what
 * a silence is. Serves one Worker (PROBE_TARGET worker|noop), drives it at
 * PROBE_RATE req/s for OPEN_SECONDS with evenly spaced sends, and prints every
 * silence over PROBE_SILENCE ms (default 40) with what happened around it: the
 * generator's own timer gaps and Node GC pauses, and with PROBE_PROFILE=1 the
 * workerd isolate's CPU profile samples in that window (GC, idle, program,
 * top functions; PROBE_STACKS=1 adds workerd's native CPU samples from perf), on one monotonic clock. PROBE_SHARDS=0 drops the metrics
 * shard binding; PROBE_WARMUP (2000) sets the warm-up requests (16 connections)
 * before each run; PROBE_BINDINGS='{"K":"V"}' adds bindings. BENCH_ROUTES names
 * the route (first one).
 */
import autocannon from "autocannon";
import { spawn, spawnSync } from "node:child_process";
import { Agent, request } from "node:http";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { DECISION_REQUESTS } from "./http-requests.js";
import { connectInspector } from "./inspector.js";
import { IDLE_SOCKET_MS } from "./open-loop.js";
import { benchPort, bundleWorker, startWorker } from "./workerd.js";

const route = (process.env.BENCH_ROUTES ?? "place").split(",")[0] as keyof typeof DECISION_REQUESTS;
const RATE = Number(process.env.PROBE_RATE ?? 600);
const SECONDS = Number(process.env.OPEN_SECONDS ?? 6);
const SILENCE = Number(process.env.PROBE_SILENCE ?? 40);
const RUNS = Number(process.env.PROBE_RUNS ?? 1);
const target = process.env.PROBE_TARGET ?? "worker";
const profile = process.env.PROBE_PROFILE === "1";
const perf = process.env.PROBE_PERF === "1";
const stacks = process.env.PROBE_STACKS === "1";
const bindings = JSON.parse(process.env.PROBE_BINDINGS ?? "{}") as Record<string, string>;

/** Monotonic ms (CLOCK_MONOTONIC, the clock V8's profiler stamps with). */
const mono = () => Number(process.hrtime.bigint()) / 1e6;

const gcs: { at: number; ms: number; kind: number }[] = [];
new PerformanceObserver((list) => {
  const off = mono() - performance.now();
  for (const e of list.getEntries())
    gcs.push({
      at: e.startTime + off,
      ms: e.duration,
      kind: (e as unknown as { detail: { kind: number } }).detail.kind,
    });
}).observe({ entryTypes: ["gc"] });

interface Run {
  due: Float64Array;
  arrive: Float64Array;
  ticks: { at: number; gap: number }[];
  logLines: number[];
}

async function openLoop(url: string, body: string, logLines: number[]): Promise<Run> {
  // idle connections closed before workerd's 5 s, as bench/open-loop.ts does (a request on one it closes fails)
  const agent = new Agent({ keepAlive: true, maxSockets: 512, timeout: IDLE_SOCKET_MS });
  const u = new URL(url);
  const buf = Buffer.from(body);
  const total = Math.round(RATE * SECONDS);
  const due = new Float64Array(total);
  const arrive = new Float64Array(total);
  const interval = 1000 / RATE;
  const start = mono() + 5;
  for (let i = 0; i < total; i++) due[i] = start + i * interval;
  const ticks: { at: number; gap: number }[] = [];
  let answered = 0;
  logLines.length = 0;
  return new Promise((done) => {
    const fire = (i: number) => {
      const req = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          agent,
          headers: { "content-type": "application/json", "content-length": buf.length },
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            arrive[i] = mono();
            if (++answered === total) {
              agent.destroy();
              done({ due, arrive, ticks, logLines });
            }
          });
        },
      );
      req.on("error", () => {
        arrive[i] = mono();
        if (++answered === total) done({ due, arrive, ticks, logLines });
      });
      req.end(buf);
    };
    let sent = 0;
    let last = mono();
    const tick = () => {
      const now = mono();
      if (now - last > 10) ticks.push({ at: last, gap: now - last });
      last = now;
      while (sent < total && due[sent] <= now) fire(sent++);
      if (sent < total) setTimeout(tick, Math.max(0, Math.floor(due[sent] - mono())));
    };
    setTimeout(tick, 5);
  });
}

interface ProfNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Slice {
  start: number;
  end: number;
  who: string;
  tid: number;
}
interface Sched {
  slices: Slice[];
  outState: Map<number, string>;
  syncs: { tid: number; start: number; end: number }[];
  main: number;
}

/** CPU 1's occupants over time, from perf's sched_switch records, and workerd's fsync calls. */
function readSched(file: string, main: number): Sched {
  const out = spawnSync("perf", ["script", "-i", file, "-F", "tid,time,event,trace"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  const slices: Slice[] = [];
  const outState = new Map<number, string>();
  const syncs: { tid: number; start: number; end: number }[] = [];
  const open = new Map<number, number>();
  let cur: { who: string; tid: number; start: number } | undefined;
  for (const line of out.split("\n")) {
    const m = /^\s*(\d+)\s+([\d.]+):\s+(\S+):\s*(.*)$/.exec(line);
    if (!m) continue;
    const tid = Number(m[1]);
    const t = Number(m[2]) * 1000;
    const ev = m[3];
    if (ev === "sched:sched_switch") {
      const f = /prev_comm=(.*) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*) next_pid=(\d+)/.exec(
        m[4],
      );
      if (!f) continue;
      if (cur) slices.push({ ...cur, end: t });
      outState.set(t, `${f[2]}:${f[3]}`);
      cur = { who: f[4], tid: Number(f[5]), start: t };
    } else if (ev.includes("sys_enter_f")) open.set(tid, t);
    else if (ev.includes("sys_exit_f")) {
      const s0 = open.get(tid);
      if (s0 !== undefined) syncs.push({ tid, start: s0, end: t });
      open.delete(tid);
    }
  }
  return { slices, outState, syncs, main };
}

function describeSched(s: Sched, from: number, to: number): void {
  const by = new Map<string, number>();
  for (const sl of s.slices) {
    const a = Math.max(from, sl.start);
    const b = Math.min(to, sl.end);
    if (b <= a) continue;
    const k =
      sl.tid === s.main
        ? "workerd main"
        : sl.who.startsWith("swapper")
          ? "idle"
          : sl.who === "workerd"
            ? `workerd ${sl.tid}`
            : sl.who;
    by.set(k, (by.get(k) ?? 0) + (b - a));
  }
  // the main thread's states when it left the CPU inside the window
  const states = new Map<string, number>();
  for (const sl of s.slices) {
    if (sl.tid !== s.main || sl.end < from || sl.end > to) continue;
    const st = s.outState.get(sl.end)?.split(":")[1] ?? "?";
    states.set(st, (states.get(st) ?? 0) + 1);
  }
  const syncs = s.syncs.filter((x) => x.end > from && x.start < to);
  console.log(
    `    CPU 1: ${[...by]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6)
      .map(([k, v]) => `${k} ${v.toFixed(1)}`)
      .join(
        ", ",
      )} ms; main thread left the CPU as ${[...states].map(([k, v]) => `${k}×${v}`).join(" ")}; fsyncs: ${syncs.map((x) => `${x.tid === s.main ? "main" : x.tid} ${(x.end - x.start).toFixed(1)} ms`).join(", ") || "none"}`,
  );
}

interface StackSample {
  tid: number;
  at: number;
  frames: string[];
}

/** workerd's CPU samples (PROBE_STACKS=1): thread, monotonic time in ms, and the call chain, leaf first. */
function readStacks(file: string): StackSample[] {
  const out = spawnSync("perf", ["script", "-i", file, "-F", "tid,time,ip,sym"], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
  }).stdout;
  const samples: StackSample[] = [];
  let cur: StackSample | undefined;
  for (const line of out.split("\n")) {
    const head = /^\s*(\d+)\s+([\d.]+):\s*$/.exec(line);
    if (head) {
      cur = { tid: Number(head[1]), at: Number(head[2]) * 1000, frames: [] };
      samples.push(cur);
      continue;
    }
    const frame = /^\s+[0-9a-f]+\s+(.*)$/.exec(line);
    if (frame && cur) cur.frames.push(frame[1].replace(/\(.*$/, "").slice(0, 80));
  }
  return samples;
}

/**
 * The main thread's samples in [from, to]: how many, the most frequent leaf
 * frames, and the frames most often on the stack below the ones nearly every
 * sample shares (the event loop's), which name the activity.
 */
function topFrames(samples: StackSample[], main: number, from: number, to: number): string {
  const leaf = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let n = 0;
  for (const s of samples) {
    if (s.tid !== main || s.at < from || s.at > to) continue;
    n++;
    const l = s.frames[0] ?? "?";
    leaf.set(l, (leaf.get(l) ?? 0) + 1);
    for (const f of new Set(s.frames)) inclusive.set(f, (inclusive.get(f) ?? 0) + 1);
  }
  const top = (m: Map<string, number>) =>
    [...m]
      .filter(([, v]) => m !== inclusive || v < 0.8 * n)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([k, v]) => `${k} ${v}`)
      .join("; ");
  return `${n} samples; leaves: ${top(leaf)} | on the stack: ${top(inclusive)}`;
}

/** Whether run `run` binds the metrics shards (PROBE_SHARDS=alt: on, off, on, …). */
function shardsOn(run: number): boolean {
  const v = process.env.PROBE_SHARDS;
  return v === "alt" ? run % 2 === 0 : v !== "0";
}

async function main() {
  const { path, body } = DECISION_REQUESTS[route];
  const text = JSON.stringify(body);
  const script =
    target === "noop"
      ? bundleWorker(fileURLToPath(new URL("./noop/wrangler.toml", import.meta.url)))
      : bundleWorker();
  for (let run = 0; run < RUNS; run++) {
    const logLines: number[] = [];
    const inspectorPort = profile ? await benchPort(500) : undefined;
    const w = await startWorker(
      script,
      await benchPort(0),
      0,
      (chunk) => {
        const t = mono();
        for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) logLines.push(t);
      },
      bindings,
      inspectorPort,
      { pin: true, objects: target !== "noop", shards: shardsOn(run) },
    );
    try {
      await autocannon({
        url: `${w.url}${path}`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body: text,
        connections: 16,
        amount: Number(process.env.PROBE_WARMUP ?? 2000),
      });
      const insp = profile ? await connectInspector(inspectorPort as number) : undefined;
      if (insp) {
        await insp.send("Profiler.enable");
        await insp.send("Profiler.setSamplingInterval", { interval: 500 });
        await insp.send("Profiler.start");
      }
      gcs.length = 0;
      const perfFile = `/tmp/open-probe-${process.pid}.data`;
      const rec = perf
        ? spawn(
            "perf",
            [
              "record",
              "-k",
              "mono",
              "-C",
              "1",
              "-e",
              "sched:sched_switch",
              "-e",
              "syscalls:sys_enter_fsync",
              "-e",
              "syscalls:sys_exit_fsync",
              "-e",
              "syscalls:sys_enter_fdatasync",
              "-e",
              "syscalls:sys_exit_fdatasync",
              "-o",
              perfFile,
            ],
            { stdio: "ignore" },
          )
        : undefined;
      const stackFile = `/tmp/open-probe-stacks-${process.pid}.data`;
      const srec = stacks
        ? spawn("perf", ["record", "-k", "mono", "-F", "1999", "-g", "-p", String(w.pid), "-o", stackFile], {
            stdio: "ignore",
          })
        : undefined;
      if (rec || srec) await new Promise((d) => setTimeout(d, 1500));
      const cpu0 = w.cpuSeconds();
      const r = await openLoop(`${w.url}${path}`, text, logLines);
      const cpu = w.cpuSeconds() - cpu0;
      let samples: StackSample[] | undefined;
      if (srec) {
        srec.kill("SIGINT");
        await new Promise((d) => srec.on("exit", d));
        samples = readStacks(stackFile);
        console.log(
          `  workerd main thread, whole run: ${topFrames(samples, w.pid as number, -Infinity, Infinity)}`,
        );
      }
      let sched: Sched | undefined;
      if (rec) {
        rec.kill("SIGINT");
        await new Promise((d) => rec.on("exit", d));
        sched = readSched(perfFile, w.pid as number);
        const tot = new Map<string, number>();
        for (const sl of sched.slices) {
          if (sl.end < r.due[0] || sl.start > r.due[r.due.length - 1]) continue;
          const k = sl.who.startsWith("swapper")
            ? "idle"
            : sl.who === "workerd" || sl.who.startsWith("V8")
              ? `${sl.who} ${sl.tid}`
              : "others";
          tot.set(k, (tot.get(k) ?? 0) + sl.end - sl.start);
        }
        console.log(
          `  CPU 1 over the run (ms): ${[...tot]
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${v.toFixed(0)}`)
            .join(", ")}`,
        );
        console.log(
          `  workerd ${w.pid} threads: ${spawnSync("sh", ["-c", `for t in /proc/${w.pid}/task/*; do echo $(basename $t):$(cat $t/comm); done`], { encoding: "utf8" }).stdout.replace(/\n/g, " ")}`,
        );
      }
      let prof: { startTime: number; samples: number[]; timeDeltas: number[]; nodes: ProfNode[] } | undefined;
      if (insp) {
        prof = ((await insp.send("Profiler.stop")) as { profile: typeof prof }).profile;
        insp.close();
      }
      const arrivals = Float64Array.from(r.arrive).sort();
      const t0 = r.due[0];
      const lat = Float64Array.from(r.arrive, (a, i) => a - r.due[i]).sort();
      const q = (p: number) => lat[Math.min(lat.length - 1, Math.ceil(p * lat.length) - 1)];
      console.log(
        `\nrun ${run + 1} ${target} ${route} ${RATE}/s: p50 ${q(0.5).toFixed(1)} p99 ${q(0.99).toFixed(1)} max ${q(1).toFixed(1)} ms; workerd CPU ${((cpu * 1e6) / r.due.length).toFixed(0)} µs/req; log lines ${logLines.length}`,
      );
      // sample times of the profile, on the monotonic clock in ms
      let sampleAt: Float64Array | undefined;
      let nodeName: Map<number, string> | undefined;
      if (prof !== undefined) {
        sampleAt = new Float64Array(prof.samples.length);
        let t = prof.startTime;
        for (let i = 0; i < prof.samples.length; i++) sampleAt[i] = (t += prof.timeDeltas[i]) / 1000;
        nodeName = new Map(
          prof.nodes.map((n) => [
            n.id,
            `${n.callFrame.functionName || "(anon)"}${n.callFrame.url ? `@${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}` : ""}`,
          ]),
        );
        // whole-run tally
        const tally = new Map<string, number>();
        for (const s of prof.samples) {
          const n = nodeName.get(s) as string;
          const k = n.startsWith("(") ? n : "js";
          tally.set(k, (tally.get(k) ?? 0) + 1);
        }
        console.log(
          `  profile: ${prof.samples.length} samples, ${[...tally].map(([k, v]) => `${k} ${v}`).join(", ")}`,
        );
        // GC bursts: runs of (garbage collector) samples spanning > 5 ms
        let s = -1;
        for (let i = 0; i <= prof.samples.length; i++) {
          const gc = i < prof.samples.length && nodeName.get(prof.samples[i]) === "(garbage collector)";
          if (gc && s < 0) s = i;
          if (!gc && s >= 0) {
            const span = sampleAt[i - 1] - sampleAt[s];
            if (span > 5)
              console.log(
                `  GC burst at +${(sampleAt[s] - t0).toFixed(0)} ms for ${span.toFixed(1)} ms (${i - s} samples)`,
              );
            s = -1;
          }
        }
        // the longest gaps between samples (the isolate thread not sampled)
        const gaps: { at: number; gap: number }[] = [];
        for (let i = 1; i < sampleAt.length; i++)
          if (sampleAt[i] - sampleAt[i - 1] > 20)
            gaps.push({ at: sampleAt[i - 1], gap: sampleAt[i] - sampleAt[i - 1] });
        for (const g of gaps)
          console.log(`  sample gap at +${(g.at - t0).toFixed(0)} ms for ${g.gap.toFixed(1)} ms`);
      }
      if (process.env.PROBE_BRIEF === "1") {
        let long = 0;
        let worst = 0;
        for (let i = 1; i < arrivals.length; i++) {
          const gap = arrivals[i] - arrivals[i - 1];
          worst = Math.max(worst, gap);
          if (gap >= SILENCE) long++;
        }
        const mainSyncs = sched?.syncs.filter((x) => x.tid === sched?.main) ?? [];
        console.log(
          `  BRIEF shards=${shardsOn(run) ? "on" : "off"} p99 ${q(0.99).toFixed(1)} max ${q(1).toFixed(1)} silences>=${SILENCE}: ${long}, longest ${worst.toFixed(1)}; main-thread fsyncs ${mainSyncs.length}, longest ${Math.max(0, ...mainSyncs.map((x) => x.end - x.start)).toFixed(1)} ms, total ${mainSyncs.reduce((a, x) => a + x.end - x.start, 0).toFixed(1)} ms; generator gaps>20: ${r.ticks.filter((t) => t.gap > 20).length}`,
        );
        continue;
      }
      for (let i = 1; i < arrivals.length; i++) {
        const gap = arrivals[i] - arrivals[i - 1];
        if (gap < SILENCE) continue;
        const from = arrivals[i - 1];
        const to = arrivals[i];
        const pending = r.due.filter((d, j) => d < to && r.arrive[j] >= to).length;
        console.log(
          `  silence +${(from - t0).toFixed(0)} ms .. +${(to - t0).toFixed(0)} ms (${gap.toFixed(1)} ms), ${pending} requests waiting`,
        );
        for (const t of r.ticks)
          if (t.at + t.gap > from - 50 && t.at < to + 50)
            console.log(`    generator timer gap at +${(t.at - t0).toFixed(0)} for ${t.gap.toFixed(1)} ms`);
        for (const g of gcs)
          if (g.at + g.ms > from - 50 && g.at < to + 50 && g.ms > 1)
            console.log(`    node GC kind ${g.kind} at +${(g.at - t0).toFixed(0)} for ${g.ms.toFixed(1)} ms`);
        if (sched) describeSched(sched, from, to);
        if (samples)
          console.log(`    workerd main thread inside: ${topFrames(samples, w.pid as number, from, to)}`);
        const ll = logLines.filter((t) => t > from && t < to).length;
        console.log(`    workerd log lines that reached node inside it: ${ll}`);
        if (prof !== undefined && sampleAt !== undefined && nodeName !== undefined) {
          const tally = new Map<string, number>();
          let n = 0;
          for (let j = 0; j < sampleAt.length; j++) {
            if (sampleAt[j] < from || sampleAt[j] > to) continue;
            n++;
            const name = nodeName.get(prof.samples[j]) as string;
            tally.set(name, (tally.get(name) ?? 0) + 1);
          }
          const top = [...tally].sort((a, b) => b[1] - a[1]).slice(0, 8);
          console.log(`    isolate samples inside: ${n}: ${top.map(([k, v]) => `${k} ${v}`).join("; ")}`);
        }
      }
      const bigTicks = r.ticks.filter((t) => t.gap > 20);
      console.log(
        `  generator timer gaps > 20 ms: ${bigTicks.map((t) => `+${(t.at - t0).toFixed(0)}:${t.gap.toFixed(0)}`).join(" ") || "none"}`,
      );
      const bigGc = gcs.filter((g) => g.ms > 5);
      console.log(
        `  node GC > 5 ms: ${bigGc.map((g) => `+${(g.at - t0).toFixed(0)}:${g.ms.toFixed(1)}(k${g.kind})`).join(" ") || "none"}`,
      );
    } finally {
      await w.stop();
    }
  }
}

await main();
