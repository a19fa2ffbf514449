import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HISTORY_KEPT } from "../../src/state/policy-history.js";

const BASE = "http://arbiter.test";

interface HistoryRecord {
  sequence: number;
  revision: string;
  previous: string;
  action: string;
  engines: { engine: string; source_sha256: string | null; previous_sha256: string | null }[];
  at: string;
  role: string;
  note?: string;
}

/** The active placement source with a comment of its own: the same policy under a new revision. */
async function placementVariant(tag: string): Promise<string> {
  const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
  return `${source.replace(/\n# history-test .*$/s, "")}\n# history-test ${tag}\n`;
}

async function publish(source: string, headers: Record<string, string> = {}): Promise<{ revision: string }> {
  const res = await SELF.fetch(`${BASE}/v1/policies/placement`, { method: "PUT", body: source, headers });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as { revision: string };
}

async function history(limit = HISTORY_KEPT): Promise<HistoryRecord[]> {
  const res = await SELF.fetch(`${BASE}/v1/policies/history?limit=${limit}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { kept: number; history: HistoryRecord[] };
  expect(body.kept).toBe(HISTORY_KEPT);
  return body.history;
}

function rollback(revision: string, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${BASE}/v1/policies/rollback`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ revision }),
  });
}

describe("policy history and rollback", () => {
  it("records a publish with its engines, digests and change note, newest first", async () => {
    const before = (await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as {
      revision: string;
      engines: Record<string, { source_sha256: string }>;
    };
    const { revision } = await publish(await placementVariant(crypto.randomUUID()), {
      "X-Arbiter-Change-Note": "ticket 42: tidy comments",
    });
    const record = (await history()).find((r) => r.revision === revision);
    expect(record).toMatchObject({ action: "publish", role: "open", note: "ticket 42: tidy comments" });
    expect(record!.engines).toHaveLength(1);
    expect(record!.engines[0].engine).toBe("placement");
    expect(record!.engines[0].previous_sha256).not.toBe(record!.engines[0].source_sha256);
    if (record!.previous === before.revision)
      expect(record!.engines[0].previous_sha256).toBe(before.engines.placement.source_sha256);
    const all = await history();
    for (let i = 1; i < all.length; i++) expect(all[i - 1].sequence).toBeGreaterThan(all[i].sequence);
  });

  it("rolls back to a kept revision, conditionally, and records the rollback", async () => {
    const first = await publish(await placementVariant(`a-${crypto.randomUUID()}`));
    const second = await publish(await placementVariant(`b-${crypto.randomUUID()}`));
    const stale = await rollback(first.revision, { "If-Match": `"${first.revision}"` });
    expect(stale.status).toBe(412);
    const res = await rollback(first.revision, {
      "If-Match": `"${second.revision}"`,
      "X-Arbiter-Change-Note": "back out b",
    });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await res.json()).toEqual({ revision: first.revision, previous: second.revision });
    expect(res.headers.get("etag")).toBe(`"${first.revision}"`);
    expect(await env.POLICIES.get("bundle:current")).toBe(first.revision);
    const record = (await history()).find((r) => r.action === "rollback" && r.previous === second.revision);
    expect(record).toMatchObject({ revision: first.revision, note: "back out b" });
    // The active policy answers decisions after the rollback.
    const place = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ user: "sarah", groups: ["dev_app"], tags: { namespace: "newapp" } }),
    });
    expect(((await place.json()) as { revision: string }).revision).toBe(first.revision);
  });

  it("refuses bad requests with the field named", async () => {
    expect((await rollback("no-such-revision")).status).toBe(404);
    const bad = await SELF.fetch(`${BASE}/v1/policies/rollback`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toContain("revision");
    for (const limit of ["0", "101", "x", "1.5"]) {
      const res = await SELF.fetch(`${BASE}/v1/policies/history?limit=${limit}`);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain("`limit`");
    }
    const long = await SELF.fetch(`${BASE}/v1/policies/placement`, {
      method: "PUT",
      body: await placementVariant("long"),
      headers: { "X-Arbiter-Change-Note": "x".repeat(1001) },
    });
    expect(long.status).toBe(400);
  });

  it("keeps the last records only, deletes the bundles no kept record names, and cannot roll back to them", async () => {
    const revisions: string[] = [];
    for (let i = 0; i < HISTORY_KEPT + 2; i++)
      revisions.push((await publish(await placementVariant(`bound-${i}-${crypto.randomUUID()}`))).revision);
    const kept = await history();
    expect(kept).toHaveLength(HISTORY_KEPT);
    expect(kept.some((r) => r.revision === revisions[0] || r.previous === revisions[0])).toBe(false);
    expect(await env.POLICIES.get(`bundle:${revisions[0]}`)).toBeNull();
    expect((await rollback(revisions[0])).status).toBe(404);
    const last = revisions[revisions.length - 1];
    expect(await env.POLICIES.get(`bundle:${revisions[revisions.length - 2]}`)).not.toBeNull();
    expect(kept[0].revision === last || kept.some((r) => r.revision === last)).toBe(true);
  }, 120_000);
});
