/**
 * `npm run bench:hostile`: the CPU time each hostile decision of issue 12
 * (test/hostile/rows.ts) takes in workerd, at an attacker input of 30 and of
 * 10,000 characters. The Worker is bundled as `wrangler deploy` bundles it and
 * served by workerd through Miniflare with the verdict cache off; each row's
 * policy is published through the admin API, then its request is sent
 * repeatedly and the workerd process's CPU time (from /proc, Linux only, 10 ms
 * ticks) is divided by the number of requests; each cell is the median of 3
 * such samples (bench/hostile-measure.ts). The goal is every row under
 * 50 ms; rows marked `awaiting` are listed, not sent (they would hang workerd).
 * Then the hostile policy sources of issue 24 (test/hostile/compile-rows.ts),
 * each validated at about 100 KB and 1 MB: CPU per request and per MiB, the
 * goal being at most 1 s per MiB at both sizes (work linear in the size).
 * Then the large sources of test/hostile/lint-diff-rows.ts, linted at about
 * 100 KB and 1 MB and diffed as two sides of half that (`POST
 * /v1/policies/{engine}/lint` and `/diff`): CPU per request and per MiB of
 * body, the same goal for lint; a diff's decisions spend a fixed `DIFF_WORK`
 * whatever the size, so a diff is held to its growth from 100 KB to 1 MB per
 * MiB (its compiles, linear) and to 200 ms at 100 KB (`HOSTILE_ONLY=lint/diff`
 * runs this table alone).
 * Then the policy rows (bench/hostile-policies.ts): CPU per validate of
 * hostile YAML, and of the first decision after publishing thousands of rules.
 * Throughout these tables a thread of this process sends `GET /healthz` to the
 * same workerd every 20 ms (bench/healthz-probe.ts); each row prints the worst
 * latency it saw, the goal being 100 ms (issue 24, "How we know"), and the
 * probes' own CPU is taken out of the rows' figures. A decision row prints it
 * twice: over the repeated requests it measures, and over publishing its
 * policy and its first two requests (the coordinator's compile, KV and SQLite
 * writes, the first load of the new bundle, a new Durable Object: work that
 * local workerd does on the same thread as the Worker's requests and that the
 * CPU cells leave out); then how late the probing thread's own timer woke at
 * worst (its own wait for a CPU, which every probe it sent meanwhile also
 * counts) and the load average. A row's `/healthz` counts against the goal
 * when either of its figures passes 100 ms.
 * The bench's requests go on kept-alive connections, as a client's would, and
 * local workerd serves a kept connection's next request ahead of a probe on
 * another connection that arrived earlier (it reads that connection again as
 * soon as it has answered, and polls the others only when it has nothing else
 * queued); HOSTILE_CONNECTIONS=fresh sends each of the bench's requests on a
 * connection of its own, admitted through the same poll as the probe's, in
 * arrival order, to measure `/healthz` without that (docs/performance.md, "Why
 * `/healthz` waits behind later requests").
 * Miniflare keeps the Worker's KV, Durable Object and cache data in a folder
 * on tmpfs (/dev/shm) that is removed at the end: local workerd runs the
 * Durable Objects (job queues, the policy coordinator, the metrics shards) and
 * KV in the Worker's process on its request thread, and SQLite's fsync there
 * blocks every request, `/healthz` too, for as long as the disk takes (on the
 * shared development disk 1–40 ms per commit, hundreds of ms per row of job
 * submissions); on Cloudflare those writes happen elsewhere. HOSTILE_STORAGE=disk
 * keeps Miniflare's default folder on disk (docs/performance.md, "What makes
 * `/healthz` wait").
 * DECISION_BUDGET in this process's environment is passed to the Worker;
 * HOSTILE_ONLY=<text> measures only the rows whose name contains the text, or
 * one of its `||`-separated parts (`HOSTILE_ONLY="from_entries||40 deep"`) (in
 * every table; the memory table is then left out, and the rule-count table
 * unless its name contains the text: `HOSTILE_ONLY="placement rules"`);
 * `-- --policies` runs only the placement policy rows, `-- --sources` every
 * policy-source table (compile rows, placement policy and rule-count rows)
 * without the decision rows.
 * A last table (issue 24 item 10) gives what a fresh Worker's isolate keeps
 * after 1,500 and 6,000 distinct decisions (bench/memory.ts; heap after a full
 * collection and workerd's RSS): a bounded isolate keeps about the same at both.
 */
import { COMPILE_ROWS } from "../test/hostile/compile-rows.js";
import { LINT_DIFF_ROWS } from "../test/hostile/lint-diff-rows.js";
import { DEEP_ROWS } from "../test/hostile/deep-rows.js";
import { HOSTILE_ROWS } from "../test/hostile/rows.js";
import { startHealthProbe } from "./healthz-probe.js";
import { policyRows } from "./hostile-policies.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import {
  freshConnections,
  measurePost,
  measureRow,
  measureSource,
  publish,
  type RowPhase,
  type Target,
} from "./hostile-measure.js";
import { measureMemory, memoryRows } from "./memory.js";
import { bundleWorker, startWorker } from "./workerd.js";

const LENGTHS = [30, 10_000];
const GOAL_MS = 50;
/** Sizes of the hostile policy sources, in characters, and the goal per MiB of source. */
const SOURCE_BYTES = [100_000, 1_000_000];
const GOAL_MS_PER_MIB = 1000;
/** A diff's whole CPU at the smaller size: its fixed share (the decisions' DIFF_WORK) and the compiles of 100 KB. */
const DIFF_FIXED_GOAL_MS = 200;
/** The longest `/healthz` may take to answer while a row runs. */
const HEALTHZ_GOAL_MS = 100;

/** A diff's body of at most `bytes` characters: two sides of the row's source, smaller until JSON's escapes fit. */
function diffBody(row: (typeof LINT_DIFF_ROWS)[number], bytes: number): string {
  for (let side = bytes / 2; ; side *= 0.9) {
    const body = JSON.stringify({ old: row.source(side, 0), new: row.source(side, 1) });
    if (body.length <= bytes) return body;
  }
}

const extra: Record<string, string> = process.env.DECISION_BUDGET
  ? { DECISION_BUDGET: process.env.DECISION_BUDGET }
  : {};
const loadAtStart = loadavg()
  .map((l) => l.toFixed(2))
  .join(", ");
const script = bundleWorker();
const fresh = process.env.HOSTILE_CONNECTIONS === "fresh";
if (fresh) freshConnections();
// KV, Durable Objects and the cache in memory (tmpfs) unless HOSTILE_STORAGE=disk: see the header
const storage =
  process.env.HOSTILE_STORAGE !== "disk" && existsSync("/dev/shm")
    ? mkdtempSync("/dev/shm/arbiter-hostile-")
    : undefined;
const worker = await startWorker(script, 0, 0, () => {}, extra, undefined, { storage });
const lines: string[] = [];
let over = 0;
let healthzOver = 0;
let worstHealthz = { ms: 0, row: "" };
/** The worst lateness of the probing thread's own timer over the run, ms. */
let worstLate = 0;
/** The machine's load average over the last minute, as a cell. */
const loadAverage = (): string => loadavg()[0].toFixed(1);
try {
  if (Number.isNaN(worker.cpuSeconds()))
    throw new Error("no workerd child process found (this benchmark reads /proc, Linux only)");
  for (let i = 0; i < 20; i++) await fetch(`${worker.url}/healthz`).then((r) => r.arrayBuffer());
  const idle0 = worker.cpuSeconds();
  for (let i = 0; i < 300; i++) await fetch(`${worker.url}/healthz`).then((r) => r.arrayBuffer());
  const idle = ((worker.cpuSeconds() - idle0) * 1000) / 300;
  const probe = startHealthProbe(worker.url);
  const t: Target = { worker, probe, probeCpuMs: idle };
  let failed = 0;
  /** Starts a row's `/healthz` window. */
  const healthzStart = (): void => {
    probe.reset();
    failed = probe.failures();
  };
  /**
   * Closes a row's `/healthz` window and starts the next: counts the row when
   * its worst latency `ms` passed the goal or a probe failed; returns the note
   * on failed probes (empty when none) for the row's cell.
   */
  const closeHealthz = (name: string, ms: number, late: number): string => {
    const failures = probe.failures() - failed;
    healthzStart();
    if (ms > worstHealthz.ms) worstHealthz = { ms, row: name };
    if (late > worstLate) worstLate = late;
    if (ms > HEALTHZ_GOAL_MS || failures > 0) healthzOver++;
    return failures > 0 ? ` (${failures} failed)` : "";
  };
  /** The worst `/healthz` latency since the row began, as a cell; counts the row when over the goal or a probe failed. */
  const healthzCell = (name: string): string => {
    const ms = probe.worst();
    return `${ms.toFixed(0)}${closeHealthz(name, ms, probe.late())}`;
  };
  try {
    lines.push(
      `| hostile decision | CPU ms, n = 30 | CPU ms, n = 10,000 | worst /healthz ms, repeated requests | worst /healthz ms, publishing and first requests | probing thread late ms | load | answer |`,
      `| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |`,
    );
    const only = process.env.HOSTILE_ONLY;
    /** Whether a row's name contains HOSTILE_ONLY, or one of its `||`-separated parts ("from_entries||40 deep"). */
    const picked = (name: string): boolean => !only || only.split("||").some((part) => name.includes(part));
    const policiesOnly = process.argv.includes("--policies");
    const sourcesOnly = process.argv.includes("--sources");
    const rows = policiesOnly || sourcesOnly ? [] : [...HOSTILE_ROWS, ...DEEP_ROWS];
    for (const row of rows.filter((r) => picked(r.name))) {
      // a `|` inside a cell would end it (GitHub tables), even inside code
      const name = row.name.replace(/\|/g, "\\|");
      if (row.awaiting) {
        lines.push(`| ${name} | — | — | — | not sent: ${row.awaiting} |`);
        continue;
      }
      // the worst /healthz of each part of the row (publishing and first requests, repeated requests)
      const worst = { first: 0, repeated: 0 };
      let late = 0;
      let part: RowPhase = "first";
      const phase = (next: RowPhase): void => {
        worst[part] = Math.max(worst[part], probe.worst());
        late = Math.max(late, probe.late());
        probe.reset();
        part = next;
      };
      healthzStart();
      await publish(worker.url, row);
      const cells: string[] = [];
      const problems: string[] = [];
      for (const n of LENGTHS) {
        const m = await measureRow(t, row, n, phase);
        cells.push(m.ms.toFixed(1));
        if (m.ms > GOAL_MS) over++;
        if (m.problem) problems.push(`n=${n}: ${m.problem}`);
      }
      phase("first");
      const failures = closeHealthz(row.name, Math.max(worst.first, worst.repeated), late);
      lines.push(
        `| ${name} | ${cells.join(" | ")} | ${worst.repeated.toFixed(0)} | ${worst.first.toFixed(0)}${failures} | ${late.toFixed(0)} | ${loadAverage()} | ${problems.length === 0 ? "as documented" : problems.join("; ")} |`,
      );
    }
    lines.push(
      "",
      `| hostile policy source (validate) | CPU ms, 100 KB | CPU ms, 1 MB | CPU ms per MiB (100 KB / 1 MB) | worst /healthz ms | answer |`,
      `| --- | ---: | ---: | ---: | ---: | --- |`,
    );
    for (const row of policiesOnly ? [] : COMPILE_ROWS.filter((r) => picked(r.name))) {
      const name = row.name.replace(/\|/g, "\\|");
      const cells: string[] = [];
      const perMib: string[] = [];
      const problems: string[] = [];
      healthzStart();
      for (const bytes of SOURCE_BYTES) {
        const source = row.source(bytes);
        const m = await measureSource(t, row, source);
        const mib = (m.ms * 1_048_576) / source.length;
        cells.push(m.ms.toFixed(1));
        perMib.push(mib.toFixed(0));
        if (mib > GOAL_MS_PER_MIB) over++;
        if (m.problem) problems.push(`${bytes} bytes: ${m.problem}`);
      }
      lines.push(
        `| ${name} | ${cells.join(" | ")} | ${perMib.join(" / ")} | ${healthzCell(row.name)} | ${problems.length === 0 ? "as documented" : problems.join("; ")} |`,
      );
    }
    lines.push(
      "",
      `| large source (lint, diff) | CPU ms, 100 KB | CPU ms, 1 MB | CPU ms per MiB (100 KB / 1 MB; diff: from 100 KB to 1 MB) | worst /healthz ms | answer |`,
      `| --- | ---: | ---: | ---: | ---: | --- |`,
    );
    // HOSTILE_ONLY=lint/diff runs this table alone
    const lintDiffRows = LINT_DIFF_ROWS.filter((r) => picked(`lint/diff: ${r.name}`));
    for (const row of policiesOnly ? [] : lintDiffRows) {
      for (const kind of ["lint", "diff"] as const) {
        const name = `${kind}: ${row.name}`.replace(/\|/g, "\\|");
        const cells: string[] = [];
        const perMib: string[] = [];
        const statuses = new Set<number | string>();
        const sizes: Array<{ ms: number; length: number }> = [];
        healthzStart();
        for (const bytes of SOURCE_BYTES) {
          const body = kind === "lint" ? row.source(bytes) : diffBody(row, bytes);
          const type = kind === "lint" ? "text/plain" : "application/json";
          process.stderr.write(`${name}, ${body.length} characters\n`);
          const m = await measurePost(t, `/v1/policies/${row.engine}/${kind}`, body, type).catch(
            (e: Error) => ({
              ms: NaN,
              status: `failed (${e.cause instanceof Error ? e.cause.message : e.message})`,
            }),
          );
          const mib = (m.ms * 1_048_576) / body.length;
          cells.push(m.ms.toFixed(1));
          perMib.push(mib.toFixed(0));
          // a diff's decisions spend a fixed DIFF_WORK whatever the size (docs/operations.md), so its
          // bound per MiB is the growth from one size to the next: the compiles, linear in the size
          if (kind === "lint" && !(mib <= GOAL_MS_PER_MIB)) over++;
          sizes.push({ ms: m.ms, length: body.length });
          statuses.add(m.status);
        }
        if (kind === "diff") {
          const [small, large] = [sizes[0], sizes[sizes.length - 1]];
          const growth = ((large.ms - small.ms) * 1_048_576) / (large.length - small.length);
          perMib.push(`growth ${growth.toFixed(0)}`);
          if (!(growth <= GOAL_MS_PER_MIB) || !(small.ms <= DIFF_FIXED_GOAL_MS)) over++;
        }
        const answer = [...statuses].join(", ");
        lines.push(
          `| ${name} | ${cells.join(" | ")} | ${perMib.join(" / ")} | ${healthzCell(name)} | ${answer === "200" ? "200" : `status ${answer}`} |`,
        );
      }
    }
    lines.push(...(await policyRows(t, { start: healthzStart, cell: healthzCell }, only)));
    lines.push(
      "",
      `GET /healthz: ${idle.toFixed(2)} CPU ms per request (the floor every row includes; the probes' share is taken out of every row).`,
      `GET /healthz every 20 ms throughout: ${probe.count()} probes, ${probe.failures()} failed; worst ${worstHealthz.ms.toFixed(0)} ms (${worstHealthz.row || "none"}); rows over ${HEALTHZ_GOAL_MS} ms or with a failed probe: ${healthzOver}; the probing thread's own timer up to ${worstLate.toFixed(0)} ms late.`,
      `The bench's requests: ${fresh ? "each on a connection of its own (HOSTILE_CONNECTIONS=fresh)" : "on kept-alive connections"}; the probes: on one kept-alive connection.`,
      `Load average (1, 5, 15 min) at the start: ${loadAtStart}; at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(", ")}.`,
      `DECISION_BUDGET: ${process.env.DECISION_BUDGET ?? "default"}. Rows over ${GOAL_MS} ms (decisions) or ${GOAL_MS_PER_MIB} ms per MiB (sources; a diff: its growth per MiB, and ${DIFF_FIXED_GOAL_MS} ms at 100 KB), and rows whose /healthz passed ${HEALTHZ_GOAL_MS} ms: ${over + healthzOver}.`,
    );
    over += healthzOver;
  } finally {
    await probe.stop();
  }
} finally {
  await worker.stop();
  if (storage !== undefined) rmSync(storage, { recursive: true, force: true });
}
if (!process.env.HOSTILE_ONLY && !process.argv.includes("--sources")) {
  lines.push(
    "",
    "What the isolate keeps after distinct decisions (limits, place and match in turn; a fresh Worker, verdict cache off):",
    "",
  );
  lines.push(...memoryRows(await measureMemory(script, [1500, 6000])));
}
console.log(lines.join("\n"));
if (over > 0) process.exitCode = 1;
