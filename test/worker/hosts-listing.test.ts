import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../src/env.js";
import { POOLS_PER_PAGE } from "../../src/http/host-listing.js";

// GET /v1/hosts over every network's pool (the KV pool registry) and over one (`?net=`), paged,
// against the real HostPool Durable Objects and KV. Other test files' pools share the registry, so
// each test looks only at the hosts it reported (names of its own).

const BASE = "http://arbiter.test";

interface Row {
  net: number;
  name: string;
  address: string;
  available: boolean;
  rating: number | null;
  reason?: string;
  down: boolean;
  jobs: number;
  pending: number;
  reported_at: string;
  permits: number[];
}
interface Page {
  net?: number;
  hosts: Row[];
  cursor: string | null;
}

const send = (method: string, path: string, body?: unknown) =>
  SELF.fetch(BASE + path, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** Reports an available host and waits until its pool is in the registry (the pool writes it after answering). */
async function report(name: string, net: number, extra: Record<string, unknown> = {}): Promise<void> {
  const body = {
    address: `10.${net % 256}.0.${name.length}`,
    net,
    load: 0,
    swapFreePct: 50,
    jobs: 0,
    idleSeconds: 2000,
    ...extra,
  };
  const res = await send("PUT", `/v1/hosts/${name}`, body);
  expect(res.status, await res.clone().text()).toBe(200);
  await vi.waitFor(
    async () => expect(await (env as unknown as Env).POLICIES.get(`pool:${net}`)).not.toBeNull(),
    { timeout: 5_000, interval: 20 },
  );
}

async function page(query: string): Promise<Page> {
  const res = await send("GET", `/v1/hosts${query}`);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Page;
}

/** Every page of a listing, following the cursors (at most 1,000 pages). */
async function pages(query: Record<string, string>): Promise<Page[]> {
  const out: Page[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ ...query, ...(cursor === null ? {} : { cursor }) }).toString();
    const p = await page(params === "" ? "" : `?${params}`);
    out.push(p);
    cursor = p.cursor;
  } while (cursor !== null && out.length < 1000);
  expect(cursor).toBeNull();
  return out;
}

const mine = (rows: Row[], prefix: string) =>
  rows.filter((h) => h.name.startsWith(prefix)).map((h) => `${h.net}/${h.name}`);

describe("GET /v1/hosts over every network", () => {
  it("lists the hosts of two networks, each naming its network, in one page and page by page", async () => {
    await report("lst1-a", 301);
    await report("lst1-b", 302, { load: 3 });
    await report("lst1-c", 301);

    const all = await pages({});
    const rows = all.flatMap((p) => p.hosts);
    expect(mine(rows, "lst1-").sort()).toEqual(["301/lst1-a", "301/lst1-c", "302/lst1-b"]);
    // a network's hosts in registration order
    expect(mine(rows, "lst1-").filter((r) => r.startsWith("301/"))).toEqual(["301/lst1-a", "301/lst1-c"]);
    expect(all.every((p) => p.net === undefined)).toBe(true);
    const b = rows.find((h) => h.name === "lst1-b")!;
    expect(b).toMatchObject({
      net: 302,
      available: false,
      reason: "AVAIL_LOAD",
      rating: null,
      down: false,
      jobs: 0,
      pending: 0,
      permits: [],
    });
    expect(Date.parse(b.reported_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(rows.find((h) => h.name === "lst1-a")).toMatchObject({
      net: 301,
      available: true,
      address: "10.45.0.6",
    });

    // one host per page: the cursor continues inside a network and across networks, never repeating a host
    const single = await pages({ limit: "1" });
    expect(single.every((p) => p.hosts.length <= 1)).toBe(true);
    const singleRows = single.flatMap((p) => p.hosts).map((h) => `${h.net}/${h.name}`);
    expect(new Set(singleRows).size).toBe(singleRows.length);
    expect(singleRows.sort()).toEqual(rows.map((h) => `${h.net}/${h.name}`).sort());
  });

  it("filters by network with ?net=, pages within it, and refuses another network's cursor", async () => {
    await report("lst2-a", 311);
    await report("lst2-b", 311);
    await report("lst2-c", 311);
    await report("lst2-x", 312);

    const one = await page("?net=311");
    expect(one.net).toBe(311);
    expect(one.cursor).toBeNull();
    expect(one.hosts.map((h) => `${h.net}/${h.name}`)).toEqual(["311/lst2-a", "311/lst2-b", "311/lst2-c"]);

    const paged = await pages({ net: "311", limit: "2" });
    expect(paged.map((p) => p.hosts.map((h) => h.name))).toEqual([["lst2-a", "lst2-b"], ["lst2-c"]]);
    expect(paged.every((p) => p.net === 311)).toBe(true);

    const first = await page("?net=311&limit=1");
    const other = await send("GET", `/v1/hosts?net=312&cursor=${encodeURIComponent(first.cursor!)}`);
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("`cursor`"),
    });
    expect((await page("?net=312")).hosts.map((h) => h.name)).toEqual(["lst2-x"]);
  });

  it("no longer lists a removed host, in its network or in all", async () => {
    await report("lst3-a", 321);
    await report("lst3-b", 321);
    await report("lst3-c", 322);
    const removed = await send("DELETE", "/v1/hosts/lst3-a?net=321");
    expect(removed.status).toBe(200);
    expect(
      mine(
        (await pages({})).flatMap((p) => p.hosts),
        "lst3-",
      ).sort(),
    ).toEqual(["321/lst3-b", "322/lst3-c"]);
    expect((await page("?net=321")).hosts.map((h) => h.name)).toEqual(["lst3-b"]);
    // the last host of a network removed: the network stays registered, with nothing to list
    expect((await send("DELETE", "/v1/hosts/lst3-c?net=322")).status).toBe(200);
    expect(
      mine(
        (await pages({})).flatMap((p) => p.hosts),
        "lst3-",
      ),
    ).toEqual(["321/lst3-b"]);
  });

  it(`asks at most ${POOLS_PER_PAGE} pools per page, and still reaches every network`, async () => {
    const nets = Array.from({ length: POOLS_PER_PAGE + 5 }, (_, i) => 400 + i);
    for (const net of nets) await report(`lst4-${net}`, net);
    const all = await pages({ limit: "500" });
    for (const p of all) expect(new Set(p.hosts.map((h) => h.net)).size).toBeLessThanOrEqual(POOLS_PER_PAGE);
    expect(
      mine(
        all.flatMap((p) => p.hosts),
        "lst4-",
      ).sort(),
    ).toEqual(nets.map((n) => `${n}/lst4-${n}`).sort());
    expect(all.length).toBeGreaterThan(1);
  });

  it("refuses a bad limit or cursor, naming the parameter", async () => {
    for (const query of [
      "?limit=0",
      "?limit=501",
      "?limit=x",
      "?cursor=nonsense",
      "?net=311&cursor=e30",
      "?net=-1",
    ]) {
      const res = await send("GET", `/v1/hosts${query}`);
      expect(res.status, query).toBe(400);
      const error = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe("invalid_request");
      expect(error.message).toMatch(/`(limit|cursor|net)`/);
    }
  });
});
