import { describe, expect, it } from "vitest";
import {
  DnsCache,
  dohResolver,
  interpret,
  resolverFor,
  UNREACHABLE_BACKOFF_MS,
  WARN_INTERVAL_MS,
} from "./dns.js";

type Reply = { status?: number; body?: unknown; delayMs?: number; raw?: string };

/** A fetch that answers from a table keyed by `name type` and records every query it saw. */
function fakeFetch(table: Record<string, Reply>) {
  const seen: string[] = [];
  const impl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const key = `${url.searchParams.get("name")} ${url.searchParams.get("type")}`;
    seen.push(key);
    expect(new Headers(init?.headers).get("accept")).toBe("application/dns-json");
    const reply = table[key] ?? { body: { Status: 3 } };
    if (reply.delayMs) {
      await new Promise<void>((resolve, reject) => {
        const t = setTimeout(resolve, reply.delayMs);
        init?.signal?.addEventListener("abort", () => {
          clearTimeout(t);
          reject(new DOMException("aborted", "AbortError"));
        });
      });
    }
    return new Response(reply.raw ?? JSON.stringify(reply.body), { status: reply.status ?? 200 });
  }) as typeof fetch;
  return { impl, seen };
}

const ptr = (data: string, ttl = 300) => ({ Status: 0, Answer: [{ name: "x", type: 12, TTL: ttl, data }] });

describe("dohResolver", () => {
  it("returns the records of the asked type in resolver order, skipping CNAMEs", async () => {
    const { impl } = fakeFetch({
      "host.example A": {
        body: {
          Status: 0,
          Answer: [
            { name: "host.example", type: 5, TTL: 60, data: "real.example." },
            { name: "real.example", type: 1, TTL: 60, data: "192.0.2.9" },
            { name: "real.example", type: 1, TTL: 60, data: "192.0.2.8" },
          ],
        },
      },
    });
    const r = dohResolver("http://doh.test/dns-query", new DnsCache(), { fetch: impl });
    expect(await r.lookup("host.example", "A", 1000)).toEqual({
      status: "ok",
      answers: ["192.0.2.9", "192.0.2.8"],
      ttl: 60,
    });
  });

  it("caches an answer for its TTL and asks again once it expires", async () => {
    let now = 1_000_000;
    const { impl, seen } = fakeFetch({ "7.100.51.198.in-addr.arpa PTR": { body: ptr("a.example.", 30) } });
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl, now: () => now });
    await r.lookup("7.100.51.198.in-addr.arpa", "PTR", 1000);
    now += 29_000;
    // the TTL left comes with a cached answer: a verdict that uses it is kept no longer
    expect(await r.lookup("7.100.51.198.in-addr.ARPA", "PTR", 1000)).toEqual({
      status: "ok",
      answers: ["a.example."],
      ttl: 1,
    });
    expect(seen).toHaveLength(1);
    now += 1_000;
    await r.lookup("7.100.51.198.in-addr.arpa", "PTR", 1000);
    expect(seen).toHaveLength(2);
  });

  it("treats a name with and without the root's trailing dot as one cache entry", async () => {
    const { impl, seen } = fakeFetch({
      "host.example. A": { body: { Status: 0, Answer: [{ type: 1, TTL: 60, data: "192.0.2.5" }] } },
    });
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl });
    expect((await r.lookup("host.example.", "A", 500)).answers).toEqual(["192.0.2.5"]);
    expect((await r.lookup("HOST.example", "A", 500)).answers).toEqual(["192.0.2.5"]);
    expect(seen).toHaveLength(1);
  });

  it("uses the smallest TTL of the answers taken", () => {
    const got = interpret(
      {
        Status: 0,
        Answer: [
          { type: 1, TTL: 500, data: "192.0.2.1" },
          { type: 1, TTL: 20, data: "192.0.2.2" },
        ],
      },
      1,
    );
    expect(got.ttl).toBe(20);
  });

  it("maps NXDOMAIN and keeps it for the SOA TTL", async () => {
    let now = 0;
    const { impl, seen } = fakeFetch({
      "gone.example A": {
        body: { Status: 3, Authority: [{ name: "example", type: 6, TTL: 10, data: "soa" }] },
      },
    });
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl, now: () => now });
    expect(await r.lookup("gone.example", "A", 500)).toEqual({ status: "nxdomain", answers: [], ttl: 10 });
    now = 9_999;
    await r.lookup("gone.example", "A", 500);
    expect(seen).toHaveLength(1);
    now = 10_000;
    await r.lookup("gone.example", "A", 500);
    expect(seen).toHaveLength(2);
  });

  it("maps SERVFAIL, HTTP errors and malformed replies to error, and does not cache them", async () => {
    const { impl, seen } = fakeFetch({
      "servfail.example A": { body: { Status: 2 } },
      "http.example A": { status: 502, body: { Status: 0 } },
      "junk.example A": { raw: "<html>" },
      "array.example A": { body: [1, 2] },
      "huge.example A": { raw: JSON.stringify({ Status: 0, Answer: [], pad: "x".repeat(100_000) }) },
    });
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl, warn: () => {} });
    const reasons: Record<string, string> = {
      "servfail.example": "doh.test answered DNS status 2",
      "http.example": "doh.test answered HTTP 502",
      "junk.example": "doh.test answered something other than DNS JSON",
      "array.example": "doh.test answered something other than DNS JSON",
      "huge.example": "doh.test answered more than 65536 bytes",
    };
    for (const [name, reason] of Object.entries(reasons)) {
      expect(await r.lookup(name, "A", 500)).toEqual({ status: "error", answers: [], reason });
    }
    await r.lookup("servfail.example", "A", 500);
    expect(seen).toHaveLength(6);
  });

  it("answers timeout when the resolver is slower than the identifier's timeout, and does not cache it", async () => {
    const { impl, seen } = fakeFetch({ "slow.example AAAA": { delayMs: 200, body: ptr("x") } });
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl, warn: () => {} });
    const started = Date.now();
    expect(await r.lookup("slow.example", "AAAA", 30)).toEqual({
      status: "timeout",
      answers: [],
      reason: "doh.test gave no answer within 30 ms",
    });
    expect(Date.now() - started).toBeLessThan(180);
    await r.lookup("slow.example", "AAAA", 30);
    expect(seen).toHaveLength(2);
  });

  it("treats a zero timeout as an immediate timeout without asking", async () => {
    const { impl, seen } = fakeFetch({});
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: impl });
    expect((await r.lookup("a.example", "A", 0)).status).toBe("timeout");
    expect(seen).toHaveLength(0);
  });

  it("maps a network failure to error, saying why", async () => {
    const failing = (async () => {
      throw new TypeError("connection refused");
    }) as typeof fetch;
    const r = dohResolver("http://doh.test/q", new DnsCache(), { fetch: failing, warn: () => {} });
    expect(await r.lookup("a.example", "A", 500)).toEqual({
      status: "error",
      answers: [],
      reason: "doh.test unreachable: connection refused",
    });
  });

  it("after the resolver was unreachable, answers error at once until the backoff ends, then asks again", async () => {
    let calls = 0;
    let up = false;
    const impl = (async () => {
      calls++;
      if (!up) throw new TypeError("DNS lookup failed");
      return new Response(JSON.stringify({ Status: 3 }));
    }) as typeof fetch;
    let now = 1_000_000;
    const r = dohResolver("http://doh.test/q", new DnsCache(), {
      fetch: impl,
      now: () => now,
      warn: () => {},
    });
    expect((await r.lookup("a.example", "A", 500)).reason).toBe("doh.test unreachable: DNS lookup failed");
    const during = await r.lookup("b.example", "A", 500);
    expect(during.status).toBe("error");
    expect(during.reason).toMatch(/^doh\.test unreachable: DNS lookup failed \(not asked again until /);
    expect(calls).toBe(1);
    up = true;
    now += UNREACHABLE_BACKOFF_MS;
    expect((await r.lookup("b.example", "A", 500)).status).toBe("nxdomain");
    expect(calls).toBe(2);
  });

  it("warns once per interval with one structured line, counting the failures it did not print", async () => {
    const lines: Record<string, unknown>[] = [];
    const impl = (async () => new Response("", { status: 503 })) as typeof fetch;
    let now = 5_000_000;
    const r = dohResolver("http://doh.test/q?secret=x", new DnsCache(), {
      fetch: impl,
      now: () => now,
      warn: (l) => lines.push(l),
    });
    for (let i = 0; i < 5; i++) await r.lookup(`h${i}.example`, "A", 500);
    expect(lines).toEqual([
      {
        ts: new Date(5_000_000).toISOString(),
        event: "dns_resolver_failed",
        resolver: "doh.test",
        error: "doh.test answered HTTP 503",
        suppressed: 0,
      },
    ]);
    now += WARN_INTERVAL_MS;
    await r.lookup("h9.example", "A", 500);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatchObject({ suppressed: 4 });
    // Neither the looked-up names (they carry requesters' addresses) nor the URL's query are logged.
    expect(JSON.stringify(lines)).not.toMatch(/example|secret/);
  });

  it("NOERROR with no record of the type is an empty ok answer", () => {
    expect(interpret({ Status: 0, Answer: [{ type: 5, TTL: 5, data: "c." }] }, 1).answer).toEqual({
      status: "ok",
      answers: [],
    });
  });

  it("appends the query to a URL that already has parameters", async () => {
    const urls: string[] = [];
    const impl = (async (input: RequestInfo | URL) => {
      urls.push(String(input));
      return new Response(JSON.stringify({ Status: 3 }));
    }) as typeof fetch;
    await dohResolver("http://doh.test/q?ct=x", new DnsCache(), { fetch: impl }).lookup(
      "a b.example",
      "A",
      100,
    );
    expect(urls).toEqual(["http://doh.test/q?ct=x&name=a%20b.example&type=A"]);
  });
});

describe("DnsCache", () => {
  it("evicts the oldest entry when full", () => {
    const cache = new DnsCache(2);
    const a = { status: "ok" as const, answers: ["1"] };
    cache.set("a", a, 100, 0);
    cache.set("b", a, 100, 0);
    cache.set("c", a, 100, 0);
    expect(cache.size).toBe(2);
    expect(cache.get("a", 0)).toBeUndefined();
    expect(cache.get("c", 0)).toEqual({ ...a, ttl: 100 });
  });

  it("evicts the least recently used entry, not the oldest one read since", () => {
    const cache = new DnsCache(2);
    const a = { status: "ok" as const, answers: ["1"] };
    cache.set("a", a, 100, 0);
    cache.set("b", a, 100, 0);
    expect(cache.get("a", 0)).toBeDefined();
    cache.set("c", a, 100, 0);
    expect(cache.get("b", 0)).toBeUndefined();
    expect(cache.get("a", 0)).toEqual({ ...a, ttl: 100 });
    expect(cache.get("a", 40_500)).toEqual({ ...a, ttl: 59 });
  });

  it("does not keep answers with a zero TTL", () => {
    const cache = new DnsCache();
    cache.set("a", { status: "ok", answers: [] }, 0, 0);
    expect(cache.size).toBe(0);
  });
});

describe("resolverFor", () => {
  it("is undefined without a DOH_URL and stable for the same one", () => {
    expect(resolverFor(undefined)).toBeUndefined();
    expect(resolverFor("  ")).toBeUndefined();
    expect(resolverFor("http://a.test/q")).toBe(resolverFor("http://a.test/q"));
    expect(resolverFor("http://b.test/q")).not.toBe(resolverFor("http://a.test/q"));
  });
});
