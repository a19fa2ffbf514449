import {
  createExecutionContext,
  createScheduledController,
  env,
  SELF,
  waitOnExecutionContext,
} from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runScheduled } from "../../src/cron/index.js";
import type { Env } from "../../src/env.js";
import type { CidrListRecord } from "../../src/state/cidr-lists.js";
import worker from "../../src/worker.js";
import {
  BASE,
  decideLimits,
  listHits,
  listUrl,
  publishLimits,
  setList,
  throughputTask,
  uniqueId,
} from "./fakes.js";

// The scheduled refresh of ip-cidr-list-url lists against the loopback list fake, then decisions
// through the Worker that read the stored lists. Each test publishes its own policy naming its own
// list ids, so tests never see each other's lists.

interface UrlIdentifier {
  name: string;
  source: string;
  failState?: boolean;
  exclude?: string[];
  transform?: { script: string | string[]; "output-raw"?: boolean };
  update?: string;
  retry?: string;
}

/** A policy that lets everything through and reports which identifiers identified. */
function listPolicy(ids: UrlIdentifier[]) {
  return {
    schema: 1,
    identifiers: [
      { name: "everybody", description: "all", type: "always", data: {} },
      ...ids.map((i) => ({
        name: i.name,
        description: `list ${i.name}`,
        type: "ip-cidr-list-url",
        data: {
          source: i.source,
          update: i.update ?? "PT1H",
          retry: i.retry ?? "PT10M",
          ...(i.failState !== undefined ? { "fail-state": i.failState } : {}),
          ...(i.exclude ? { exclude: i.exclude } : {}),
          ...(i.transform ? { transform: i.transform } : {}),
        },
      })),
    ],
    classifiers: [{ name: "default", description: "d", identifiers: ["everybody"] }],
    limits: [{ name: "always", description: "a", type: "pass-fail", data: { pass: true } }],
    applications: [{ apply: [{ require: "all", limits: ["always"] }] }],
  };
}

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const MINUTE = 60_000;
const testEnv = env as unknown as Env;

/** One cron tick at a chosen scheduled time, through runScheduled as the Worker calls it. */
async function tick(at: number) {
  return runScheduled(testEnv, createScheduledController({ scheduledTime: at, cron: "*/5 * * * *" }));
}

async function stored(source: string): Promise<CidrListRecord | null> {
  return testEnv.POLICIES.get<CidrListRecord>(`cidrlist:${source}`, "json");
}

async function identifiersOf(requester: string): Promise<string[]> {
  const { status, body } = await decideLimits({ requester, task: throughputTask() });
  expect(status).toBe(200);
  return body.identifiers;
}

/** Lets the isolate's list cache (BUNDLE_REFRESH_SECONDS = 1 in tests) expire. */
const cacheExpiry = () => new Promise((resolve) => setTimeout(resolve, 1100));

describe("ip-cidr-list-url before the first fetch", () => {
  it("answers each identifier's fail-state, without a requester too, and never fetches while deciding", async () => {
    const open = uniqueId("open");
    const closed = uniqueId("closed");
    await setList(open, { body: "198.51.100.0/24\n" });
    await publishLimits(
      listPolicy([
        { name: "fails-open", source: listUrl(open), failState: true },
        { name: "fails-closed", source: listUrl(closed) },
      ]),
    );
    expect(await identifiersOf("203.0.113.1")).toEqual(["everybody", "fails-open"]);
    const noRequester = await decideLimits({ task: throughputTask() });
    expect(noRequester.body.identifiers).toEqual(["everybody", "fails-open"]);
    expect(noRequester.body.cacheable).toBe(false);
    expect(await listHits(open)).toBe(0);
  });
});

describe("the scheduled refresh", () => {
  it("fetches a due list, stores the parsed entries and lets decisions use them", async () => {
    const id = uniqueId("ok");
    await setList(id, {
      body: "# networks that may test\n198.51.100.0/24\n  203.0.113.5   # one host\n\nnot-an-address\n192.0.2.77/28\n2001:db8:1::/48\n",
    });
    await publishLimits(listPolicy([{ name: "listed", source: listUrl(id), update: "PT2H" }]));

    const report = await tick(T0);
    expect(report.sources).toEqual([{ source: listUrl(id), action: "fetched", count: 4 }]);
    const record = await stored(listUrl(id));
    expect(record).toMatchObject({
      source: listUrl(id),
      count: 4,
      last_success: new Date(T0).toISOString(),
      last_failure: null,
      last_error: null,
      next_due: new Date(T0 + 120 * MINUTE).toISOString(),
    });
    expect(record?.entries).toHaveLength(4);
    expect(record?.entries).toContain("192.0.2.64/28");

    expect(await identifiersOf("198.51.100.7")).toContain("listed");
    expect(await identifiersOf("203.0.113.5")).toContain("listed");
    expect(await identifiersOf("192.0.2.70")).toContain("listed");
    expect(await identifiersOf("2001:db8:1::9")).toContain("listed");
    expect(await identifiersOf("203.0.113.6")).not.toContain("listed");
    const verdict = await decideLimits({ requester: "198.51.100.7", task: throughputTask() });
    expect(verdict.body.cacheable).toBe(false);

    // Not due again until `update` has passed.
    expect((await tick(T0 + 115 * MINUTE)).sources[0].action).toBe("skipped");
    expect(await listHits(id)).toBe(1);
    expect((await tick(T0 + 120 * MINUTE)).sources[0].action).toBe("fetched");
    expect(await listHits(id)).toBe(2);
  });

  it("after a failure keeps the previous list and retries `retry` later", async () => {
    const id = uniqueId("flaky");
    const source = listUrl(id);
    await setList(id, { status: 503, body: "down" });
    await publishLimits(
      listPolicy([{ name: "listed", source, failState: true, retry: "PT15M", update: "PT1H" }]),
    );

    const first = await tick(T0);
    expect(first.sources[0]).toMatchObject({ action: "failed", count: 0, error: "HTTP status 503" });
    expect(await stored(source)).toMatchObject({
      last_success: null,
      last_failure: new Date(T0).toISOString(),
      last_error: "HTTP status 503",
      next_due: new Date(T0 + 15 * MINUTE).toISOString(),
      count: 0,
    });
    // Still never fetched successfully: fail-state (true) for everyone.
    expect(await identifiersOf("203.0.113.1")).toContain("listed");

    await setList(id, { body: "198.51.100.0/24\n" });
    expect((await tick(T0 + 10 * MINUTE)).sources[0].action).toBe("skipped");
    expect(await listHits(id)).toBe(1);
    expect((await tick(T0 + 15 * MINUTE)).sources[0].action).toBe("fetched");
    expect(await listHits(id)).toBe(2);

    await cacheExpiry();
    expect(await identifiersOf("203.0.113.1")).not.toContain("listed");
    expect(await identifiersOf("198.51.100.1")).toContain("listed");

    // A later failure keeps the entries of the last success.
    await setList(id, { status: 404, body: "gone" });
    const later = await tick(T0 + 75 * MINUTE);
    expect(later.sources[0]).toMatchObject({ action: "failed", count: 1 });
    expect(await stored(source)).toMatchObject({
      last_success: new Date(T0 + 15 * MINUTE).toISOString(),
      last_failure: new Date(T0 + 75 * MINUTE).toISOString(),
      last_error: "HTTP status 404",
      next_due: new Date(T0 + 90 * MINUTE).toISOString(),
      count: 1,
    });
    await cacheExpiry();
    expect(await identifiersOf("198.51.100.1")).toContain("listed");
  });

  it("fails on an unreachable server and records why", async () => {
    const source = "http://127.0.0.1:9/list.txt";
    await publishLimits(listPolicy([{ name: "listed", source }]));
    const report = await tick(T0);
    expect(report.sources[0].action).toBe("failed");
    expect((await stored(source))?.last_error).toMatch(/fetch failed|timed out/);
  });

  it("applies the jq transform to a JSON body, with raw output", async () => {
    const id = uniqueId("json");
    await setList(id, {
      contentType: "application/json",
      body: {
        prefixes: [
          { ip_prefix: "198.51.100.0/25", service: "A" },
          { ip_prefix: "203.0.113.0/24", service: "B" },
          { ip_prefix: "192.0.2.0/24", service: "A" },
        ],
      },
    });
    await publishLimits(
      listPolicy([
        {
          name: "service-a",
          source: listUrl(id),
          transform: { script: [".prefixes[]", '| select(.service == "A")', "| .ip_prefix"] },
        },
      ]),
    );
    expect((await tick(T0)).sources[0]).toMatchObject({ action: "fetched", count: 2 });
    expect((await stored(listUrl(id)))?.entries).toEqual(
      expect.arrayContaining(["198.51.100.0/25", "192.0.2.0/24"]),
    );
    expect(await identifiersOf("198.51.100.5")).toContain("service-a");
    expect(await identifiersOf("192.0.2.5")).toContain("service-a");
    expect(await identifiersOf("203.0.113.5")).not.toContain("service-a");
    expect(await identifiersOf("198.51.100.200")).not.toContain("service-a");
  });

  it("counts a body that is not JSON as a failure when there is a transform", async () => {
    const id = uniqueId("notjson");
    await setList(id, { body: "198.51.100.0/24\n" });
    await publishLimits(
      listPolicy([{ name: "l", source: listUrl(id), transform: { script: ".[]" }, retry: "PT5M" }]),
    );
    const report = await tick(T0);
    expect(report.sources[0].action).toBe("failed");
    const record = await stored(listUrl(id));
    expect(record?.last_error).toMatch(/not valid JSON/);
    expect(record?.next_due).toBe(new Date(T0 + 5 * MINUTE).toISOString());
  });

  it("counts a failing transform as a failure", async () => {
    const id = uniqueId("badjq");
    await setList(id, { body: { prefixes: 3 } });
    await publishLimits(
      listPolicy([{ name: "l", source: listUrl(id), transform: { script: ".prefixes[]" } }]),
    );
    const report = await tick(T0);
    expect(report.sources[0].action).toBe("failed");
    expect((await stored(listUrl(id)))?.last_error).toMatch(/^transform failed: /);
  });

  it("honours `exclude` when deciding", async () => {
    const id = uniqueId("excl");
    await setList(id, { body: "198.51.100.0/24\n" });
    await publishLimits(
      listPolicy([{ name: "listed", source: listUrl(id), exclude: ["198.51.100.129/25"] }]),
    );
    await tick(T0);
    expect(await identifiersOf("198.51.100.7")).toContain("listed");
    expect(await identifiersOf("198.51.100.200")).not.toContain("listed");
  });

  it("treats a fetched list with no valid line as the fail-state", async () => {
    const id = uniqueId("empty");
    await setList(id, { body: "# nothing here\nnonsense\n" });
    await publishLimits(listPolicy([{ name: "listed", source: listUrl(id), failState: true }]));
    expect((await tick(T0)).sources[0]).toMatchObject({ action: "fetched", count: 0 });
    expect(await identifiersOf("203.0.113.1")).toContain("listed");
  });

  it("fetches a URL shared by two identifiers once", async () => {
    const id = uniqueId("shared");
    await setList(id, { body: "198.51.100.0/24\n" });
    await publishLimits(
      listPolicy([
        { name: "one", source: listUrl(id) },
        { name: "two", source: listUrl(id), exclude: ["198.51.100.0/28"] },
      ]),
    );
    expect((await tick(T0)).sources).toHaveLength(1);
    expect(await listHits(id)).toBe(1);
    expect(await identifiersOf("198.51.100.7")).toEqual(["everybody", "one"]);
    expect(await identifiersOf("198.51.100.77")).toEqual(["everybody", "one", "two"]);
  });
});

describe("the Worker's scheduled handler and /v1/status", () => {
  it("refreshes through the Worker's scheduled export and reports each list in /v1/status", async () => {
    const good = uniqueId("status-ok");
    const bad = uniqueId("status-bad");
    await setList(good, { body: "198.51.100.0/24\n203.0.113.0/24\n" });
    await setList(bad, { status: 500, body: "no" });
    await publishLimits(
      listPolicy([
        { name: "good", source: listUrl(good) },
        { name: "bad", source: listUrl(bad) },
      ]),
    );

    const before = (await (await SELF.fetch(`${BASE}/v1/status`)).json()) as {
      cidr_lists: Array<Record<string, unknown>>;
    };
    expect(before.cidr_lists).toEqual(
      expect.arrayContaining([
        {
          source: listUrl(good),
          last_success: null,
          last_failure: null,
          last_error: null,
          count: 0,
          next_due: null,
        },
      ]),
    );

    const controller = createScheduledController({ scheduledTime: T0, cron: "*/5 * * * *" });
    const ctx = createExecutionContext();
    await worker.scheduled(controller, testEnv, ctx);
    await waitOnExecutionContext(ctx);
    expect(await listHits(good)).toBe(1);
    expect(await listHits(bad)).toBe(1);

    const after = (await (await SELF.fetch(`${BASE}/v1/status`)).json()) as {
      cidr_lists: Array<Record<string, unknown>>;
    };
    const bySource = new Map(after.cidr_lists.map((l) => [l.source, l]));
    expect(bySource.get(listUrl(good))).toMatchObject({ last_success: new Date(T0).toISOString(), count: 2 });
    expect(bySource.get(listUrl(bad))).toMatchObject({
      last_success: null,
      last_failure: new Date(T0).toISOString(),
      last_error: "HTTP status 500",
      count: 0,
    });
  });
});
