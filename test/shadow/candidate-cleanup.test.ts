import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

// Staged candidates are one per deployment: this file runs in the shadow project, whose files run one at a time.
const BASE = "http://arbiter.test";

/** The active placement source with a comment of its own: the same policy under a new revision. */
async function placementVariant(tag: string): Promise<string> {
  const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
  return `${source}\n# candidate-cleanup ${tag}\n`;
}

describe("candidate bundles in KV", () => {
  it("deletes a candidate's bundle when it is replaced or dropped", async () => {
    const stage = async (tag: string) => {
      const res = await SELF.fetch(`${BASE}/v1/policies/placement?stage=candidate`, {
        method: "PUT",
        body: await placementVariant(tag),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { revision: string }).revision;
    };
    const a = await stage(`cand-a-${crypto.randomUUID()}`);
    expect(await env.POLICIES.get(`bundle:${a}`)).not.toBeNull();
    const b = await stage(`cand-b-${crypto.randomUUID()}`);
    expect(await env.POLICIES.get(`bundle:${a}`)).toBeNull();
    expect((await SELF.fetch(`${BASE}/v1/candidate`, { method: "DELETE" })).status).toBe(200);
    expect(await env.POLICIES.get(`bundle:${b}`)).toBeNull();
  });
});
