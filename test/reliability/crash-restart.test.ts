import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import type { HostPool } from "../../src/state/host-pool.js";
import type { JobQueue } from "../../src/state/job-queue.js";

// Issue 17: kill the Durable Object (not the process) in the middle of a burst of writes. Every
// write that was acknowledged must survive, and no write may appear twice, even though clients
// retry what failed and what they never heard back about (an answer lost in flight), each retry
// with the Idempotency-Key of its first attempt.

const BASE = "http://arbiter.test";
const e = env as unknown as Env;

interface Answer {
  status: number;
  body: Record<string, unknown> | null;
}

async function send(path: string, body: unknown, key: string): Promise<Answer> {
  try {
    const res = await SELF.fetch(BASE + path, {
      method: "POST",
      headers: { "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  } catch {
    return { status: 0, body: null };
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Kills the object: `ctx.abort()` resets it, dropping whatever it had not yet committed. */
async function kill(stub: DurableObjectStub<JobQueue> | DurableObjectStub<HostPool>): Promise<boolean> {
  try {
    await runInDurableObject(stub as DurableObjectStub<JobQueue>, (_o: JobQueue, state) =>
      state.abort("crash test"),
    );
    return false;
  } catch {
    return true;
  }
}

/**
 * Fires `count` writes a millisecond apart, kills the object after half of them
 * have been sent, then retries every write whose answer failed or is treated
 * as lost (every fifth acknowledged one), until each has an answer.
 */
async function burstWithCrash(
  path: string,
  bodyOf: (i: number) => unknown,
  stub: DurableObjectStub<JobQueue> | DurableObjectStub<HostPool>,
  count: number,
) {
  const first: Promise<Answer>[] = [];
  let killed: Promise<boolean> | undefined;
  for (let i = 0; i < count; i++) {
    first.push(send(path, bodyOf(i), `w-${i}`));
    if (i === Math.floor(count / 2)) killed = kill(stub);
    await pause(1);
  }
  const answers = await Promise.all(first);
  expect(await killed).toBe(true);
  const acknowledged = new Map<number, Record<string, unknown>>();
  answers.forEach((a, i) => {
    if (a.status === 200) acknowledged.set(i, a.body!);
  });
  const lost = [...acknowledged.keys()].filter((i) => i % 5 === 0);
  const final = new Map<number, Record<string, unknown>>();
  for (const [i, body] of acknowledged) if (!lost.includes(i)) final.set(i, body);
  for (let i = 0; i < count; i++) {
    if (final.has(i)) continue;
    for (let attempt = 0; attempt < 5 && !final.has(i); attempt++) {
      const again = await send(path, bodyOf(i), `w-${i}`);
      if (again.status === 200) final.set(i, again.body!);
    }
  }
  return { answers, acknowledged, lost, final };
}

/** Bursts at fresh queues until the kill lands while a write is in flight (on a busy machine it can fall between two). */
async function jobBurstCutByCrash(count: number, tries: number) {
  for (let t = 0; ; t++) {
    const q = `crash-${crypto.randomUUID().slice(0, 8)}`;
    const stub = e.JOB_QUEUE.get(e.JOB_QUEUE.idFromName(q)) as unknown as DurableObjectStub<JobQueue>;
    const run = await burstWithCrash(
      `/v1/queues/${q}/jobs`,
      (i) => ({ opcodes: [{ OP_ID: "OP_TEST_DELAY", tag: `job-${i}` }] }),
      stub,
      count,
    );
    if (run.answers.some((a) => a.status !== 200) || t + 1 >= tries) return { q, ...run };
  }
}

it("a job queue killed mid-burst keeps every acknowledged job, and none twice", async () => {
  const count = 60;
  const { q, answers, acknowledged, lost, final } = await jobBurstCutByCrash(count, 5);
  // The crash really cut the burst: some first attempts failed, some were acknowledged.
  expect(answers.some((a) => a.status !== 200)).toBe(true);
  expect(acknowledged.size).toBeGreaterThan(0);
  expect(lost.length).toBeGreaterThan(0);
  expect(final.size).toBe(count);
  // A retry after a lost answer gets that answer back.
  for (const i of lost) expect(final.get(i)!.job_id).toBe(acknowledged.get(i)!.job_id);

  // A stub whose object was aborted stays broken; a fresh one reaches the restarted object.
  const fresh = e.JOB_QUEUE.get(e.JOB_QUEUE.idFromName(q)) as unknown as DurableObjectStub<JobQueue>;
  const stored = await runInDurableObject(fresh, (_q: JobQueue, state) =>
    state.storage.sql.exec<{ id: number; job: string }>("SELECT id, job FROM jobs").toArray(),
  );
  const tagOf = new Map(
    stored.map((r) => [r.id, (JSON.parse(r.job) as { opcodes: { tag: string }[] }).opcodes[0].tag]),
  );
  expect(stored).toHaveLength(count);
  expect(new Set(tagOf.values()).size).toBe(count);
  for (const [i, body] of acknowledged)
    expect(tagOf.get(body.job_id as number), `acknowledged job ${i}`).toBe(`job-${i}`);
  for (const [i, body] of final) expect(tagOf.get(body.job_id as number)).toBe(`job-${i}`);
});

it("a host pool killed mid-burst hands out one permit per acknowledged allocation, and none twice", async () => {
  const net = 190;
  for (const name of ["ws0", "host1", "host22"]) {
    const res = await SELF.fetch(`${BASE}/v1/hosts/${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        address: `10.${net}.0.${name.length}`,
        net,
        load: 0,
        idleSeconds: 3600,
        swapFreePct: 90,
        jobs: 0,
        maxJobs: 1000,
      }),
    });
    expect(res.status).toBe(200);
  }
  const stub = e.HOST_POOL.get(e.HOST_POOL.idFromName(String(net))) as unknown as DurableObjectStub<HostPool>;
  const count = 40;
  const { acknowledged, lost, final } = await burstWithCrash(
    "/v1/hosts/allocate",
    (i) => ({ client: "ws0", net, fromAddress: `10.${net}.0.200`, user: `u${i}` }),
    stub,
    count,
  );
  expect(final.size).toBe(count);
  for (const i of lost) expect(final.get(i)!.permit).toEqual(acknowledged.get(i)!.permit);
  const fresh = e.HOST_POOL.get(
    e.HOST_POOL.idFromName(String(net)),
  ) as unknown as DurableObjectStub<HostPool>;
  const permits = await runInDurableObject(fresh, (_p: HostPool, state) =>
    state.storage.sql.exec<{ id: number; user: string }>("SELECT id, user FROM permits").toArray(),
  );
  // An allocation may find no host free (the answer says so, and no permit exists); the others hold one each.
  const granted = [...final].filter(([, body]) => body.permit !== null);
  expect(granted.length).toBeGreaterThan(0);
  expect(permits).toHaveLength(granted.length);
  const userOf = new Map(permits.map((p) => [p.id, p.user]));
  expect(new Set(userOf.values()).size).toBe(permits.length);
  for (const [i, body] of granted) expect(userOf.get((body.permit as { id: number }).id)).toBe(`u${i}`);
});
