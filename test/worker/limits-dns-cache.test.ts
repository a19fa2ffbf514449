import { SELF } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import toolkitDefault from "../../policies/limits.json?raw";
import { isolateDnsCache } from "../../src/http/dns.js";
import { BASE, dohHits, publishLimits, setDoh, setDohRecords, throughputTask } from "./fakes.js";

// Limits verdicts that used DNS answers are cached for the shortest TTL they depended on, under the
// toolkit default policy (its `bogons` identifier asks the Cymru bogon zone for every requester), with
// the DoH fake on loopback answering. A verdict after a failed lookup is not cached.

let counter = 0;
/** A fresh TEST-NET-3 address per test, from .231 up, which no other test file sends (their decisions ask the same DoH fake, whose hit counts are shared), so no answer cached or counted by another test applies. */
function freshAddress(): string {
  counter += 1;
  return `203.0.113.${230 + counter}`;
}
const bogonName = (ipv4: string) => `${ipv4.split(".").reverse().join(".")}.v4.fullbogons.cymru.com`;

async function decide(body: unknown): Promise<{ cache: string | null; verdict: Record<string, unknown> }> {
  const res = await SELF.fetch(`${BASE}/v1/limits/decide`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return {
    cache: res.headers.get("x-arbiter-cache"),
    verdict: (await res.json()) as Record<string, unknown>,
  };
}

const withoutId = ({ decision_id: _id, ...rest }: Record<string, unknown>) => rest;

beforeEach(async () => {
  await publishLimits(toolkitDefault);
});

describe("limits verdicts that used DNS answers", () => {
  it("are answered from the verdict cache the second time, the resolver asked once", async () => {
    const requester = freshAddress();
    await setDohRecords(bogonName(requester), "A", ["127.0.0.9"], 60);
    const body = { requester, task: throughputTask() };
    const first = await decide(body);
    expect(first.cache).toBe("miss");
    expect(first.verdict.cacheable).toBe(true);
    const second = await decide(body);
    expect(second.cache).toBe("hit");
    expect(withoutId(second.verdict)).toEqual(withoutId(first.verdict));
    expect(await dohHits(bogonName(requester), "A")).toBe(1);
  });

  it("are kept no longer than the DNS answer's TTL", async () => {
    const requester = freshAddress();
    await setDohRecords(bogonName(requester), "A", ["127.0.0.9"], 2);
    const body = { requester, task: throughputTask({ duration: "PT20S" }) };
    const started = Date.now();
    expect((await decide(body)).cache).toBe("miss");
    expect((await decide(body)).cache).toBe("hit");
    // past the 2 s TTL both the verdict and the DNS answer are gone
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 2_100 - Date.now())));
    const later = await decide(body);
    expect(later.cache).toBe("miss");
    expect(later.verdict.cacheable).toBe(true);
    expect(await dohHits(bogonName(requester), "A")).toBe(2);
    expect((await decide(body)).cache).toBe("hit");
  });

  it("are not cached when the lookup failed, and the resolver is asked again", async () => {
    const requester = freshAddress();
    await setDoh(bogonName(requester), "A", { body: { Status: 2 } });
    const body = { requester, task: throughputTask() };
    const first = await decide(body);
    expect(first.verdict.cacheable).toBe(false);
    const second = await decide(body);
    expect(second.cache).not.toBe("hit");
    expect(second.verdict.cacheable).toBe(false);
    expect(await dohHits(bogonName(requester), "A")).toBe(2);
  });

  it("take a DNS answer from the Cache API when the isolate does not have it (as a fresh isolate would)", async () => {
    const requester = freshAddress();
    await setDohRecords(bogonName(requester), "A", ["127.0.0.9"], 60);
    await decide({ requester, task: throughputTask() });
    expect(isolateDnsCache.size).toBeGreaterThan(0);
    isolateDnsCache.clear();
    // another task (not a verdict cache hit) from the same requester: the bogon answer again
    const other = await decide({ requester, task: throughputTask({ duration: "PT15S" }) });
    expect(other.cache).toBe("miss");
    expect(other.verdict.cacheable).toBe(true);
    expect(await dohHits(bogonName(requester), "A")).toBe(1);
    expect(isolateDnsCache.size).toBeGreaterThan(0);
  });
});
