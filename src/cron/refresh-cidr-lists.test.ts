import { beforeEach, describe, expect, it } from "vitest";
import type { UrlSource } from "../engines/limits/index.js";
import { urlSourceOf } from "../engines/limits/identifiers.js";
import type { Env } from "../env.js";
import {
  cidrListKey,
  cidrListsFor,
  cidrListStatus,
  clearCidrListCache,
  type CidrListRecord,
  type LimitsPolicy,
} from "../state/cidr-lists.js";
import { refreshSources, type Fetcher } from "./refresh-cidr-lists.js";

/** The part of KV the list store uses, in memory, counting reads. */
class MemoryKv {
  readonly data = new Map<string, string>();
  reads = 0;
  async get(key: string, type?: string): Promise<unknown> {
    this.reads++;
    const v = this.data.get(key);
    if (v === undefined) return null;
    return type === "json" ? JSON.parse(v) : v;
  }
  async put(key: string, value: string): Promise<void> {
    this.data.set(key, value);
  }
}

function makeEnv(refreshSeconds = "5"): { env: Env; kv: MemoryKv } {
  const kv = new MemoryKv();
  return {
    env: { POLICIES: kv as unknown as KVNamespace, BUNDLE_REFRESH_SECONDS: refreshSeconds } as Env,
    kv,
  };
}

/** A fetcher serving a mutable table of URL → reply, counting requests. */
function fakeServer() {
  const replies = new Map<string, () => Response>();
  const calls: string[] = [];
  const fetcher: Fetcher = async (url) => {
    calls.push(url);
    const reply = replies.get(url);
    if (!reply) throw new TypeError("connection refused");
    return reply();
  };
  const serve = (url: string, body: string, status = 200) =>
    replies.set(url, () => new Response(body, { status }));
  return { fetcher, calls, serve };
}

const source = (url: string, extra: Partial<UrlSource> = {}): UrlSource => ({
  source: url,
  updateSeconds: 3600,
  retrySeconds: 600,
  failState: false,
  ...extra,
});

const T0 = Date.UTC(2026, 5, 1, 12);
const stored = (kv: MemoryKv, url: string) =>
  JSON.parse(kv.data.get(cidrListKey(url)) ?? "null") as CidrListRecord | null;

beforeEach(() => clearCidrListCache());

describe("refreshSources", () => {
  it("stores the parsed list with its success time and next due time", async () => {
    const { env, kv } = makeEnv();
    const { fetcher, serve } = fakeServer();
    serve("http://l/a", "# c\n192.0.2.1/24\n198.51.100.7\nbogus\n\n");
    const report = await refreshSources(env, [source("http://l/a")], T0, fetcher);
    expect(report).toEqual({
      at: new Date(T0).toISOString(),
      sources: [{ source: "http://l/a", action: "fetched", count: 2 }],
    });
    expect(stored(kv, "http://l/a")).toEqual({
      source: "http://l/a",
      entries: ["192.0.2.0/24", "198.51.100.7/32"],
      last_success: new Date(T0).toISOString(),
      last_failure: null,
      last_error: null,
      next_due: new Date(T0 + 3_600_000).toISOString(),
      count: 2,
      successes: 1,
      failures: 0,
    });
  });

  it("skips a list until its due time, then fetches again", async () => {
    const { env } = makeEnv();
    const { fetcher, serve, calls } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(env, [source("http://l/a")], T0, fetcher);
    expect(
      (await refreshSources(env, [source("http://l/a")], T0 + 3_599_999, fetcher)).sources[0].action,
    ).toBe("skipped");
    expect(
      (await refreshSources(env, [source("http://l/a")], T0 + 3_600_000, fetcher)).sources[0].action,
    ).toBe("fetched");
    expect(calls).toHaveLength(2);
  });

  it("records a failure, keeps the last good entries and retries `retry` later", async () => {
    const { env, kv } = makeEnv();
    const { fetcher, serve } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(env, [source("http://l/a")], T0, fetcher);
    serve("http://l/a", "oops", 500);
    const t1 = T0 + 3_600_000;
    const report = await refreshSources(env, [source("http://l/a")], t1, fetcher);
    expect(report.sources[0]).toEqual({
      source: "http://l/a",
      action: "failed",
      count: 1,
      error: "HTTP status 500",
    });
    expect(stored(kv, "http://l/a")).toMatchObject({
      entries: ["192.0.2.0/24"],
      last_success: new Date(T0).toISOString(),
      last_failure: new Date(t1).toISOString(),
      last_error: "HTTP status 500",
      next_due: new Date(t1 + 600_000).toISOString(),
      count: 1,
      successes: 1,
      failures: 1,
    });
  });

  it("stops reading a list that passes 8 MiB without declaring its length, and cancels the rest", async () => {
    const { env, kv } = makeEnv();
    const chunk = new TextEncoder().encode("10.0.0.0/8\n".repeat(6000));
    let sent = 0;
    let cancelled = false;
    // 64 MiB on offer, sent as the reader asks for it, with no content-length
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 64 << 20) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const fetcher: Fetcher = async () => new Response(body, { status: 200 });
    const report = await refreshSources(env, [source("http://l/big")], T0, fetcher);
    expect(report.sources[0].error).toBe("list larger than 8388608 bytes");
    expect(cancelled).toBe(true);
    expect(sent).toBeLessThan((8 << 20) + 4 * chunk.byteLength);
    expect(stored(kv, "http://l/big")).toMatchObject({ entries: [], last_success: null });
  });

  it("records a network failure before any success with no entries", async () => {
    const { env, kv } = makeEnv();
    const { fetcher } = fakeServer();
    const report = await refreshSources(env, [source("http://l/none")], T0, fetcher);
    expect(report.sources[0].error).toBe("fetch failed: connection refused");
    expect(stored(kv, "http://l/none")).toMatchObject({ entries: [], last_success: null, count: 0 });
  });

  it("runs the transform on the JSON body and fails on bad JSON or a transform error", async () => {
    const { env, kv } = makeEnv();
    const { fetcher, serve } = fakeServer();
    const transform = (body: unknown) =>
      Array.isArray(body) ? { text: body.join("\n") } : { error: "Cannot iterate over object" };
    serve("http://l/json", '["192.0.2.0/24", "198.51.100.0/24"]');
    serve("http://l/obj", '{"a": 1}');
    serve("http://l/text", "192.0.2.0/24");
    const report = await refreshSources(
      env,
      [
        source("http://l/json", { transform }),
        source("http://l/obj", { transform }),
        source("http://l/text", { transform }),
      ],
      T0,
      fetcher,
    );
    expect(report.sources.map((s) => [s.action, s.count])).toEqual([
      ["fetched", 2],
      ["failed", 0],
      ["failed", 0],
    ]);
    expect(report.sources[1].error).toBe("transform failed: Cannot iterate over object");
    expect(report.sources[2].error).toMatch(/^body is not valid JSON: /);
    expect(stored(kv, "http://l/json")?.entries).toEqual(["192.0.2.0/24", "198.51.100.0/24"]);
  });

  it("fails a transform whose output is nested past 100 levels with the depth error, not a stack overflow", async () => {
    const { env } = makeEnv();
    const { fetcher, serve } = fakeServer();
    serve("http://l/deep", '["192.0.2.0/24"]');
    const compiled = urlSourceOf({
      source: "http://l/deep",
      update: "PT1H",
      retry: "PT10M",
      transform: { script: ".[], reduce range(20000) as $i (0; [.])" },
    });
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error));
    const report = await refreshSources(env, [compiled.value], T0, fetcher);
    expect(report.sources[0].action).toBe("failed");
    expect(report.sources[0].error).toBe(
      "transform failed: an output of the transform is nested more than 100 levels deep (the limit is 100)",
    );
    // 100 levels are written as they are
    serve("http://l/deep", '["192.0.2.0/24"]');
    const ok100 = urlSourceOf({
      source: "http://l/deep",
      update: "PT1H",
      retry: "PT10M",
      transform: { script: '.[], (reduce range(99) as $i ("x"; [.]) | tostring | length | tostring)' },
    });
    if (!ok100.ok) throw new Error(JSON.stringify(ok100.error));
    expect(ok100.value.transform?.(["192.0.2.0/24"])).toEqual({
      text: "192.0.2.0/24\n" + String(99 * 2 + 3),
    });
  });

  it("judges due times by the policy in force, so shorter intervals apply at once", async () => {
    const { env } = makeEnv();
    const { fetcher, serve, calls } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(env, [source("http://l/a", { updateSeconds: 86_400 })], T0, fetcher);
    const shorter = source("http://l/a", { updateSeconds: 300 });
    expect((await refreshSources(env, [shorter], T0 + 299_000, fetcher)).sources[0].action).toBe("skipped");
    expect((await refreshSources(env, [shorter], T0 + 300_000, fetcher)).sources[0].action).toBe("fetched");
    serve("http://l/a", "down", 503);
    await refreshSources(env, [shorter], T0 + 600_000, fetcher);
    const retryLater = source("http://l/a", { updateSeconds: 300, retrySeconds: 60 });
    expect((await refreshSources(env, [retryLater], T0 + 659_000, fetcher)).sources[0].action).toBe(
      "skipped",
    );
    expect((await refreshSources(env, [retryLater], T0 + 660_000, fetcher)).sources[0].action).toBe("failed");
    expect(calls).toHaveLength(4);
  });

  it("fetches a URL named by several identifiers once, with the first one's schedule", async () => {
    const { env, kv } = makeEnv();
    const { fetcher, serve, calls } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(
      env,
      [source("http://l/a"), source("http://l/a", { updateSeconds: 60 })],
      T0,
      fetcher,
    );
    expect(calls).toHaveLength(1);
    expect(stored(kv, "http://l/a")?.next_due).toBe(new Date(T0 + 3_600_000).toISOString());
  });
});

describe("cidrListsFor", () => {
  it("answers undefined for a list never fetched successfully, and a set after a success", async () => {
    const { env } = makeEnv("0");
    const { fetcher, serve } = fakeServer();
    let lists = await cidrListsFor(env, ["http://l/a"], T0);
    expect(lists("http://l/a")).toBeUndefined();
    serve("http://l/a", "oops", 503);
    await refreshSources(env, [source("http://l/a")], T0, fetcher);
    lists = await cidrListsFor(env, ["http://l/a"], T0 + 1);
    expect(lists("http://l/a")).toBeUndefined();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(env, [source("http://l/a")], T0 + 600_000, fetcher);
    lists = await cidrListsFor(env, ["http://l/a"], T0 + 600_001);
    expect(lists("http://l/a")).toBeDefined();
    expect(lists("http://l/other")).toBeUndefined();
  });

  it("reads KV at most every BUNDLE_REFRESH_SECONDS and rebuilds only after a new success", async () => {
    const { env, kv } = makeEnv("5");
    const { fetcher, serve } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n");
    await refreshSources(env, [source("http://l/a")], T0, fetcher);
    const readsBefore = kv.reads;
    const first = (await cidrListsFor(env, ["http://l/a"], T0))("http://l/a");
    expect(kv.reads).toBe(readsBefore + 1);
    const second = (await cidrListsFor(env, ["http://l/a"], T0 + 4_999))("http://l/a");
    expect(kv.reads).toBe(readsBefore + 1);
    expect(second).toBe(first);
    const third = (await cidrListsFor(env, ["http://l/a"], T0 + 5_000))("http://l/a");
    expect(kv.reads).toBe(readsBefore + 2);
    expect(third).toBe(first);
    await refreshSources(env, [source("http://l/a")], T0 + 3_600_000, fetcher);
    const fourth = (await cidrListsFor(env, ["http://l/a"], T0 + 10_000))("http://l/a");
    expect(fourth).not.toBe(first);
  });
});

describe("cidrListStatus", () => {
  it("lists every source of the policy with its fetch history", async () => {
    const { env } = makeEnv();
    const { fetcher, serve } = fakeServer();
    serve("http://l/a", "192.0.2.0/24\n198.51.100.0/24\n");
    await refreshSources(env, [source("http://l/a")], T0, fetcher);
    const policy = {
      urlSources: [source("http://l/a"), source("http://l/b"), source("http://l/a")],
    } as unknown as LimitsPolicy;
    expect(await cidrListStatus(env, policy)).toEqual([
      {
        source: "http://l/a",
        last_success: new Date(T0).toISOString(),
        last_failure: null,
        last_error: null,
        count: 2,
        next_due: new Date(T0 + 3_600_000).toISOString(),
      },
      {
        source: "http://l/b",
        last_success: null,
        last_failure: null,
        last_error: null,
        count: 0,
        next_due: null,
      },
    ]);
  });
});
