/**
 * `npm run bench:hostile`: the CPU time each hostile decision of issue 12
 * (test/hostile/rows.ts) takes in workerd, at an attacker input of 30 and of
 * 10,000 characters. The Worker is bundled as `wrangler deploy` bundles it and
 * served by workerd through Miniflare with the verdict cache off; each row's
 * policy is published through the admin API, then its request is sent
 * repeatedly and the workerd process's CPU time (from /proc, Linux only, 10 ms
 * ticks) is divided by the number of requests. The goal is every row under
 * 50 ms; rows marked `awaiting` are listed, not sent (they would hang workerd).
 * Then the hostile policy sources of issue 24 (test/hostile/compile-rows.ts),
 * each validated at about 100 KB and 1 MB: CPU per request and per MiB, the
 * goal being at most 1 s per MiB at both sizes (work linear in the size).
 * Then the policy rows (bench/hostile-policies.ts): CPU per validate of
 * hostile YAML, and of the first decision after publishing thousands of rules.
 * DECISION_BUDGET in this process's environment is passed to the Worker;
 * HOSTILE_ONLY=<text> measures only the rows whose name contains the text (in
 * every table; the rule-count and memory tables are then left out);
 * `-- --policies` runs only the placement policy rows.
 * A last table (issue 24 item 10) gives what a fresh Worker's isolate keeps
 * after 1,500 and 6,000 distinct decisions (bench/memory.ts; heap after a full
 * collection and workerd's RSS): a bounded isolate keeps about the same at both.
 */
import { COMPILE_ROWS, type CompileRow } from "../test/hostile/compile-rows.js";
import { DEEP_ROWS } from "../test/hostile/deep-rows.js";
import { HOSTILE_ROWS, type HostileRow } from "../test/hostile/rows.js";
import { policyRows } from "./hostile-policies.js";
import { measureMemory, memoryRows } from "./memory.js";
import { bundleWorker, startWorker, type RunningWorker } from "./workerd.js";

const LENGTHS = [30, 10_000];
/** CPU time to accumulate per measurement, for a resolution well under the 10 ms tick. */
const TARGET_CPU_S = 0.5;
const MAX_REQUESTS = 200;
const GOAL_MS = 50;
/** Sizes of the hostile policy sources, in characters, and the goal per MiB of source. */
const SOURCE_BYTES = [100_000, 1_000_000];
const GOAL_MS_PER_MIB = 1000;

async function send(base: string, row: HostileRow, n: number): Promise<{ status: number; body: unknown }> {
  const r = row.request(n);
  const res = await fetch(`${base}${r.path}`, {
    method: r.method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(r.body),
  });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

async function publish(base: string, row: HostileRow): Promise<void> {
  if (!row.policy) return;
  const res = await fetch(`${base}/v1/policies/${row.policy.engine}`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: row.policy.source,
  });
  if (res.status !== 200)
    throw new Error(`${row.name}: publishing its policy answered ${res.status}: ${await res.text()}`);
}

/** Validates one hostile source through the admin API: the answer's status and body. */
async function validateSource(
  base: string,
  row: CompileRow,
  source: string,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}/v1/policies/${row.engine}/validate`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: source,
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** CPU ms per validation of one source, and whether its answer was the documented one. */
async function measureSource(
  worker: RunningWorker,
  row: CompileRow,
  bytes: number,
): Promise<{ ms: number; problem: string | null }> {
  const source = row.source(bytes);
  const first = await validateSource(worker.url, row, source);
  const problem = row.check(first.status, first.body);
  const cpu0 = worker.cpuSeconds();
  let requests = 0;
  while (requests < 50 && (requests < 3 || worker.cpuSeconds() - cpu0 < TARGET_CPU_S)) {
    await validateSource(worker.url, row, source);
    requests++;
  }
  return { ms: ((worker.cpuSeconds() - cpu0) * 1000) / requests, problem };
}

/** CPU ms per request of one row at one length, and whether its answer was the documented one. */
async function measureRow(
  worker: RunningWorker,
  row: HostileRow,
  n: number,
): Promise<{ ms: number; requests: number; problem: string | null }> {
  const base = worker.url;
  const first = await send(base, row, n);
  const problem = row.check(first.status, first.body);
  await send(base, row, n);
  const cpu0 = worker.cpuSeconds();
  let requests = 0;
  while (requests < MAX_REQUESTS && (requests < 3 || worker.cpuSeconds() - cpu0 < TARGET_CPU_S)) {
    await send(base, row, n);
    requests++;
  }
  return { ms: ((worker.cpuSeconds() - cpu0) * 1000) / requests, requests, problem };
}

const extra: Record<string, string> = process.env.DECISION_BUDGET
  ? { DECISION_BUDGET: process.env.DECISION_BUDGET }
  : {};
const script = bundleWorker();
const worker = await startWorker(script, 0, 0, () => {}, extra);
const lines: string[] = [];
let over = 0;
try {
  if (Number.isNaN(worker.cpuSeconds()))
    throw new Error("no workerd child process found (this benchmark reads /proc, Linux only)");
  const idle0 = worker.cpuSeconds();
  for (let i = 0; i < 200; i++) await fetch(`${worker.url}/healthz`).then((r) => r.arrayBuffer());
  const idle = ((worker.cpuSeconds() - idle0) * 1000) / 200;
  lines.push(`| hostile decision | CPU ms, n = 30 | CPU ms, n = 10,000 | answer |`, `| --- | ---: | ---: | --- |`);
  const only = process.env.HOSTILE_ONLY;
  const policiesOnly = process.argv.includes("--policies");
  const rows = policiesOnly ? [] : [...HOSTILE_ROWS, ...DEEP_ROWS];
  for (const row of only ? rows.filter((r) => r.name.includes(only)) : rows) {
    // a `|` inside a cell would end it (GitHub tables), even inside code
    const name = row.name.replace(/\|/g, "\\|");
    if (row.awaiting) {
      lines.push(`| ${name} | — | — | not sent: ${row.awaiting} |`);
      continue;
    }
    await publish(worker.url, row);
    const cells: string[] = [];
    const problems: string[] = [];
    for (const n of LENGTHS) {
      const m = await measureRow(worker, row, n);
      cells.push(m.ms.toFixed(1));
      if (m.ms > GOAL_MS) over++;
      if (m.problem) problems.push(`n=${n}: ${m.problem}`);
    }
    lines.push(
      `| ${name} | ${cells.join(" | ")} | ${problems.length === 0 ? "as documented" : problems.join("; ")} |`,
    );
  }
  lines.push(
    "",
    `| hostile policy source (validate) | CPU ms, 100 KB | CPU ms, 1 MB | CPU ms per MiB (100 KB / 1 MB) | answer |`,
    `| --- | ---: | ---: | ---: | --- |`,
  );
  for (const row of policiesOnly ? [] : COMPILE_ROWS.filter((r) => !only || r.name.includes(only))) {
    const name = row.name.replace(/\|/g, "\\|");
    const cells: string[] = [];
    const perMib: string[] = [];
    const problems: string[] = [];
    for (const bytes of SOURCE_BYTES) {
      const m = await measureSource(worker, row, bytes);
      const mib = (m.ms * 1_048_576) / row.source(bytes).length;
      cells.push(m.ms.toFixed(1));
      perMib.push(mib.toFixed(0));
      if (mib > GOAL_MS_PER_MIB) over++;
      if (m.problem) problems.push(`${bytes} bytes: ${m.problem}`);
    }
    lines.push(
      `| ${name} | ${cells.join(" | ")} | ${perMib.join(" / ")} | ${problems.length === 0 ? "as documented" : problems.join("; ")} |`,
    );
  }
  lines.push(...(await policyRows(worker, only)));
  lines.push("", `GET /healthz: ${idle.toFixed(2)} CPU ms per request (the floor every row includes).`);
  lines.push(
    `DECISION_BUDGET: ${process.env.DECISION_BUDGET ?? "default"}. Rows over ${GOAL_MS} ms (decisions) or ${GOAL_MS_PER_MIB} ms per MiB (sources): ${over}.`,
  );
} finally {
  await worker.stop();
}
if (!process.env.HOSTILE_ONLY) {
  lines.push(
    "",
    "What the isolate keeps after distinct decisions (limits, place and match in turn; a fresh Worker, verdict cache off):",
    "",
  );
  lines.push(...memoryRows(await measureMemory(script, [1500, 6000])));
}
console.log(lines.join("\n"));
if (over > 0) process.exitCode = 1;
