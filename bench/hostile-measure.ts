/**
 * How `npm run bench:hostile` measures one cell: the workerd process's CPU
 * time (from /proc, 10 ms ticks) over repeated requests, divided by their
 * number, taken as SAMPLES samples and reported as their median, so that one
 * noisy sample does not decide a row. The CPU of the `/healthz` probes that
 * answered during a sample (bench/healthz-probe.ts) is taken out of it, at the
 * cost per probe measured on the idle Worker.
 */
import type { CompileRow } from "../test/hostile/compile-rows.js";
import type { HostileRow } from "../test/hostile/rows.js";
import type { HealthProbe } from "./healthz-probe.js";
import type { RunningWorker } from "./workerd.js";

/**
 * From now on, sends every `fetch` of this thread with `Connection: close`, so
 * each request goes on a connection of its own; returns the undo. Local
 * workerd reads the next request of a kept-alive connection as soon as it has
 * answered one and looks at its other connections only when it has nothing
 * else queued, so the bench's back-to-back requests on a kept connection go
 * ahead of a `/healthz` probe that arrived earlier; a new connection waits in
 * the same poll as the probe's, in arrival order (docs/performance.md, "Why
 * `/healthz` waits behind later requests").
 */
export function freshConnections(): () => void {
  const real = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    headers.set("connection", "close");
    return real(input, { ...init, headers });
  }) as typeof fetch;
  return () => {
    globalThis.fetch = real;
  };
}

/** Samples per cell; the cell is their median. */
export const SAMPLES = 3;
/** CPU time to accumulate per sample, for a resolution well under the 10 ms tick. */
const TARGET_CPU_S = 0.25;
/** At most this many requests per sample of a decision row, and of a policy source. */
const MAX_REQUESTS = 100;
const MAX_SOURCE_REQUESTS = 20;

/** The Worker under test, the prober running beside it, and the CPU ms one probe costs. */
export interface Target {
  worker: RunningWorker;
  probe: HealthProbe;
  probeCpuMs: number;
}

/** The median of some numbers (the middle one, or the mean of the two middle ones). */
export function median(xs: number[]): number {
  const s = xs.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function answer(res: Response): Promise<{ status: number; body: unknown }> {
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** Sends a row's request for an attacker input of length `n`: the answer's status and body. */
export async function send(
  base: string,
  row: HostileRow,
  n: number,
): Promise<{ status: number; body: unknown }> {
  const r = row.request(n);
  const res = await fetch(`${base}${r.path}`, {
    method: r.method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(r.body),
  });
  return answer(res);
}

/** Publishes a row's policy through the admin API (nothing for rows without one). */
export async function publish(base: string, row: HostileRow): Promise<void> {
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
  return answer(res);
}

/** CPU ms per call of `once` over one sample: at least `min` calls and TARGET_CPU_S, at most `max` calls. */
async function sample(t: Target, once: () => Promise<unknown>, min: number, max: number): Promise<number> {
  const cpu0 = t.worker.cpuSeconds();
  const probes0 = t.probe.count();
  let calls = 0;
  while (calls < max && (calls < min || t.worker.cpuSeconds() - cpu0 < TARGET_CPU_S)) {
    await once();
    calls++;
  }
  const ms = (t.worker.cpuSeconds() - cpu0) * 1000 - (t.probe.count() - probes0) * t.probeCpuMs;
  return Math.max(0, ms) / calls;
}

/** The median of SAMPLES samples of `once`. */
async function cell(t: Target, once: () => Promise<unknown>, min: number, max: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) samples.push(await sample(t, once, min, max));
  return median(samples);
}

/** The two parts of measuring a row at one length: its first requests (`first`), then the repeated ones measured (`repeated`). */
export type RowPhase = "first" | "repeated";

/**
 * CPU ms per request of one row at one length (median of SAMPLES), and whether
 * its answer was the documented one. The first two requests (which may meet a
 * cold isolate, a new Durable Object or ads not yet cached) are not measured;
 * `phase` is told when they begin and when the measured ones do.
 */
export async function measureRow(
  t: Target,
  row: HostileRow,
  n: number,
  phase: (p: RowPhase) => void = () => {},
): Promise<{ ms: number; problem: string | null }> {
  const base = t.worker.url;
  phase("first");
  const first = await send(base, row, n);
  const problem = row.check(first.status, first.body);
  await send(base, row, n);
  phase("repeated");
  const ms = await cell(t, () => send(base, row, n), 3, MAX_REQUESTS);
  return { ms, problem };
}

/** CPU ms per request of one POST (median of SAMPLES), and its first answer's status. */
export async function measurePost(
  t: Target,
  path: string,
  body: string,
  type: string,
): Promise<{ ms: number; status: number }> {
  const once = async () =>
    (
      await fetch(`${t.worker.url}${path}`, { method: "POST", headers: { "content-type": type }, body }).then(
        answer,
      )
    ).status;
  const status = await once();
  const ms = await cell(t, once, 2, MAX_SOURCE_REQUESTS);
  return { ms, status };
}

/** CPU ms per validation of one source (median of SAMPLES), and whether its answer was the documented one. */
export async function measureSource(
  t: Target,
  row: CompileRow,
  source: string,
): Promise<{ ms: number; problem: string | null }> {
  const first = await validateSource(t.worker.url, row, source);
  const problem = row.check(first.status, first.body);
  const ms = await cell(t, () => validateSource(t.worker.url, row, source), 2, MAX_SOURCE_REQUESTS);
  return { ms, problem };
}
