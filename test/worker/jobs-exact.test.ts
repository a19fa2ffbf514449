import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// Issue 13 (Ganeti): reason-trail timestamps in nanoseconds stay exact end to end, and UUIDs are
// lower-case hex only, as Ganeti's isUUID (src/Ganeti/Utils.hs). Issue 17 item 5: the filter
// priority range is Ganeti's (NonNegative Int, 64 bits).

const BASE = "http://arbiter.test";

async function raw(method: string, path: string, body?: string): Promise<{ status: number; text: string }> {
  const init: RequestInit = { method, headers: { "content-type": "application/json" } };
  if (body !== undefined) init.body = body;
  const res = await SELF.fetch(BASE + path, init);
  return { status: res.status, text: await res.text() };
}

// As lib/rapi/client.py sends it: time.time() in nanoseconds, past 2^53.
const NS = "1795482117065516288";
const NS_PLUS_ONE = "1795482117065516289";

describe("nanosecond timestamps", () => {
  it("come back from a filter rule digit for digit, and the luxid entry is exact too", async () => {
    const q = `ns-${crypto.randomUUID().slice(0, 8)}`;
    const added = await raw(
      "POST",
      `/v1/queues/${q}/filters`,
      `{"action": "PAUSE", "reason": [["gnt:user", "drain", ${NS}]]}`,
    );
    expect(added.status).toBe(200);
    const uuid = JSON.parse(added.text) as string;
    const rule = await raw("GET", `/v1/queues/${q}/filters/${uuid}`);
    expect(rule.text).toContain(`["gnt:user","drain",${NS}]`);
    const luxid = /\["luxid","",(\d+)\]/.exec(rule.text)![1];
    expect(luxid).toMatch(/^\d{19}$/);
    expect(BigInt(luxid) % 1_000_000n).toBe(0n);
    const bulk = await raw("GET", `/v1/queues/${q}/filters?bulk=1`);
    expect(bulk.text).toContain(`${NS}]`);
  });

  it("compare exactly in a timestamp predicate against a submitted job's trail", async () => {
    const q = `ns-${crypto.randomUUID().slice(0, 8)}`;
    const rule = `{"action": "REJECT", "predicates": [["reason", [">", "timestamp", ${NS}]]]}`;
    expect((await raw("POST", `/v1/queues/${q}/filters`, rule)).status).toBe(200);
    const job = (ts: string) =>
      `{"opcodes": [{"OP_ID": "OP_TEST_DELAY", "reason": [["gnt:client:gnt-debug", "delay", ${ts}]]}]}`;
    const same = JSON.parse((await raw("POST", `/v1/queues/${q}/jobs`, job(NS))).text) as { action: string };
    expect(same.action).toBe("ACCEPT");
    const later = JSON.parse((await raw("POST", `/v1/queues/${q}/jobs`, job(NS_PLUS_ONE))).text) as {
      action: string;
    };
    expect(later.action).toBe("REJECT");
  });

  it("are exact integers in the OpenAPI document", async () => {
    const doc = (await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json()) as Record<string, unknown>;
    const text = JSON.stringify(doc);
    expect(text).toContain('"format":"int64"');
    expect(text).toContain("nanoseconds since the epoch");
  });
});

describe("filter priority range", () => {
  it("accepts Ganeti's largest priority exactly and refuses anything larger", async () => {
    const q = `prio-${crypto.randomUUID().slice(0, 8)}`;
    const max = await raw("POST", `/v1/queues/${q}/filters`, `{"priority": 9223372036854775807}`);
    expect(max.status).toBe(200);
    const stored = await raw("GET", `/v1/queues/${q}/filters/${JSON.parse(max.text) as string}`);
    expect(stored.text).toContain('"priority":9223372036854775807');
    const huge = await raw("POST", `/v1/queues/${q}/filters`, `{"priority": 123456789012345678901234567890}`);
    expect(huge.status).toBe(400);
    expect(JSON.parse(huge.text)).toMatchObject({
      code: 400,
      message: "priority must be at most 9223372036854775807 (a 64-bit integer, as Ganeti stores it)",
    });
  });
});

describe("upper-case UUIDs", () => {
  it("are refused in a PUT path with Ganeti's message, and name no rule elsewhere", async () => {
    const q = `uuid-${crypto.randomUUID().slice(0, 8)}`;
    const lower = "0f0f0f0f-1111-4222-8333-444455556666";
    const upper = lower.toUpperCase();
    expect(await raw("PUT", `/v1/queues/${q}/filters/${upper}`, `{"action": "ACCEPT"}`)).toEqual({
      status: 400,
      text: JSON.stringify({
        code: 400,
        message: "Unable to parse UUID",
        explain: "Bad request syntax or unsupported method",
      }),
    });
    expect((await raw("PUT", `/v1/queues/${q}/filters/${lower}`, `{"action": "ACCEPT"}`)).status).toBe(200);
    expect((await raw("GET", `/v1/queues/${q}/filters/${upper}`)).status).toBe(404);
    const del = await raw("DELETE", `/v1/queues/${q}/filters/${upper}`);
    expect(del.status).toBe(404);
    expect(JSON.parse(del.text)).toMatchObject({ message: `Filter rule with UUID ${upper} does not exist` });
    expect((await raw("GET", `/v1/queues/${q}/filters/${lower}`)).status).toBe(200);
  });
});
