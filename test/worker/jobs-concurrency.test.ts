import { env, runInDurableObject, SELF } from "cloudflare:test";
import { expect, it } from "vitest";
import type { Env } from "../../src/env.js";
import type { JobQueue } from "../../src/state/job-queue.js";

const BASE = "http://arbiter.test";

it("200 simultaneous submissions against RATE_LIMIT 10 never run more than 10", async () => {
  const q = "burst";
  const add = await SELF.fetch(`${BASE}/v1/queues/${q}/filters`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ action: ["RATE_LIMIT", 10] }),
  });
  expect(add.status).toBe(200);
  const answers = await Promise.all(
    Array.from({ length: 200 }, () =>
      SELF.fetch(`${BASE}/v1/queues/${q}/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ opcodes: [{ OP_ID: "OP_INSTANCE_REPLACE_DISKS" }] }),
      }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as { job_id: number; run: boolean; action: string },
      })),
    ),
  );
  expect(answers.every((a) => a.status === 200)).toBe(true);
  expect(new Set(answers.map((a) => a.body.job_id)).size).toBe(200);
  expect(answers.filter((a) => a.body.run).length).toBe(10);
  expect(answers.filter((a) => a.body.action === "RATE_LIMITED").length).toBe(190);
  const e = env as unknown as Env;
  const stub = e.JOB_QUEUE.get(e.JOB_QUEUE.idFromName(q)) as unknown as DurableObjectStub<JobQueue>;
  const running = await runInDurableObject(
    stub,
    (_instance: JobQueue, state) =>
      state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM jobs WHERE state = 'running'").one().n,
  );
  expect(running).toBe(10);
  // 200 requests through workerd: on a shared 2-core machine this can outlast the default 5 s
}, 30_000);
