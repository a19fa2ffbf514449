import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

const BASE = "http://arbiter.test";

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(BASE + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

async function verdict(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

function withoutId(v: Record<string, unknown>): Record<string, unknown> {
  const { decision_id: _id, ...rest } = v;
  return rest;
}

/** A request body no other test sends, so cache entries of other tests never interfere. */
function uniquePlace(tag: string) {
  return {
    user: `user-${tag}-${crypto.randomUUID().slice(0, 8)}`,
    groups: ["dev_app"],
    tags: { namespace: "newapp" },
  };
}

describe("verdict cache", () => {
  it("answers a repeated cacheable request from the cache, equal apart from decision_id", async () => {
    const body = uniquePlace("repeat");
    const first = await post("/v1/place", body);
    expect(first.headers.get("x-arbiter-cache")).toBe("miss");
    const fresh = await verdict(first);
    expect(fresh.cacheable).toBe(true);
    const second = await post("/v1/place", body);
    expect(second.headers.get("x-arbiter-cache")).toBe("hit");
    const cached = await verdict(second);
    expect(cached.decision_id).not.toBe(fresh.decision_id);
    expect(withoutId(cached)).toEqual(withoutId(fresh));
  });

  it("treats bodies that differ only in whitespace as one request, and key order as another", async () => {
    const body = uniquePlace("canonical");
    await post("/v1/place", body);
    const spaced = `{ "user": ${JSON.stringify(body.user)},\n "groups": ["dev_app"], "tags": {"namespace": "newapp"} }`;
    const same = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: spaced,
    });
    expect(same.headers.get("x-arbiter-cache")).toBe("hit");
    // Key order is visible to engines (jq's keys_unsorted, a rewritten task's order), so it is part of the key.
    const reordered = `{"tags":{"namespace":"newapp"},"groups":["dev_app"],"user":${JSON.stringify(body.user)}}`;
    const other = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: reordered,
    });
    expect(other.headers.get("x-arbiter-cache")).toBe("miss");
  });

  it("misses after a publish changes the revision", async () => {
    const body = uniquePlace("publish");
    const before = await verdict(await post("/v1/place", body));
    expect((await post("/v1/place", body)).headers.get("x-arbiter-cache")).toBe("hit");
    const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
    const published = await SELF.fetch(`${BASE}/v1/policies/placement`, {
      method: "PUT",
      body: `${source}\n# republished\n`,
    });
    expect(published.status).toBe(200);
    const { revision } = (await published.json()) as { revision: string };
    expect(revision).not.toBe(before.revision);
    let after = await post("/v1/place", body);
    for (
      let i = 0;
      i < 40 && ((await after.clone().json()) as { revision: string }).revision !== revision;
      i++
    ) {
      await new Promise((r) => setTimeout(r, 100));
      after = await post("/v1/place", body);
    }
    expect(after.headers.get("x-arbiter-cache")).toBe("miss");
    expect((await verdict(after)).revision).toBe(revision);
  });

  it("bypasses the cache when explain is asked for, and logs it as bypass", async () => {
    const body = uniquePlace("explain");
    await post("/v1/place", body);
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    let explained: Response;
    try {
      explained = await post("/v1/place?explain=true", body);
    } finally {
      spy.mockRestore();
    }
    expect(explained.headers.get("x-arbiter-cache")).toBe("bypass");
    const decided = await verdict(explained);
    expect(decided.trace).toBeDefined();
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.decision_id === decided.decision_id);
    expect(logged).toMatchObject({ engine: "placement", cache: "bypass" });
    // Whole milliseconds, under the name that says so (workerd's clock moves only across I/O).
    expect(Number.isInteger(logged?.ms)).toBe(true);
    expect(logged).not.toHaveProperty("micros");
  });

  it("never serves a verdict that is not cacheable", async () => {
    // A limits verdict about the connecting address depends on more than the body.
    const body = { task: { schema: 1, test: { type: "idle", spec: { schema: 1, duration: "PT1S" } } } };
    for (let i = 0; i < 3; i++) {
      const res = await post("/v1/limits/decide", body, { "cf-connecting-ip": `198.51.100.${i + 1}` });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-arbiter-cache")).not.toBe("hit");
      expect((await verdict(res)).cacheable).toBe(false);
    }
  });

  it("never answers a request whose auth fails from the cache", async () => {
    const body = uniquePlace("auth");
    await post("/v1/place", body);
    expect((await post("/v1/place", body)).headers.get("x-arbiter-cache")).toBe("hit");
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request(`${BASE}/v1/place`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer wrong" },
        body: JSON.stringify(body),
      }),
      { ...(env as unknown as Env), DECISION_TOKENS: "right" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(403);
    expect(res.headers.get("x-arbiter-cache")).toBeNull();
  });

  it("is off when VERDICT_CACHE_SECONDS is 0", async () => {
    const body = uniquePlace("off");
    for (let i = 0; i < 2; i++) {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}/v1/place`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        { ...(env as unknown as Env), VERDICT_CACHE_SECONDS: "0" },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      expect(res.headers.get("x-arbiter-cache")).toBe("bypass");
    }
  });
});
