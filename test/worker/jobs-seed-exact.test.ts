import { SELF } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";

// Seed rules of a published filters.json keep integers past 2^53 on their whole way: the
// coordinator's bundle compile, the bundle in KV, the isolate's load, and the queue's seeding.

const BASE = "http://arbiter.test";

async function raw(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method, headers: { "content-type": "application/json" } };
  if (body !== undefined) init.body = body;
  const res = await SELF.fetch(BASE + path, init);
  return { status: res.status, text: await res.text() };
}

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
// Two priorities one apart past 2^53 (one double), so only exact reading orders B first.
const SEEDS =
  `[{"uuid": "${A}", "priority": 9007199254740993, "watermark": 9007199254740993, "action": "REJECT"},` +
  ` {"uuid": "${B}", "priority": 9007199254740992, "action": "PAUSE"}]`;

afterAll(async () => {
  await raw("PUT", "/v1/policies/jobfilter", "[]");
});

describe("seed rules past 2^53", () => {
  it("seed a new queue digit for digit and decide in exact priority order", async () => {
    const published = await raw("PUT", "/v1/policies/jobfilter", SEEDS);
    expect(published.status).toBe(200);
    // Isolates pick up the new pointer within their refresh interval: a queue first used after that is seeded.
    let bulk = "";
    let q = "";
    for (let i = 0; i < 50 && !bulk.includes(A); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 100));
      q = `seed-${crypto.randomUUID().slice(0, 8)}`;
      bulk = (await raw("GET", `/v1/queues/${q}/filters?bulk=1`)).text;
    }
    expect(bulk).toContain('"watermark":9007199254740993,"priority":9007199254740993');
    expect(bulk).toContain('"priority":9007199254740992');
    const job = await raw("POST", `/v1/queues/${q}/jobs`, `{"opcodes": [{"OP_ID": "OP_TEST_DELAY"}]}`);
    expect(JSON.parse(job.text)).toMatchObject({ action: "PAUSE", rule: B });
  });
});
