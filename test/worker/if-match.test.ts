import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";
import { embeddedBundle } from "../../src/state/policy-store.js";

// Issue 25, item 5: `If-Match` on a publish is RFC 9110's strong comparison. An empty or
// blank header is a malformed precondition (400), never "no precondition"; a weak tag
// `W/"…"` never matches (412), even when it names the active revision. The publishes here
// send the active placement source unchanged, so the ones that go through change nothing
// (the same sources compile to the same revision) for the other files of this project.
//
// workerd drops a request header whose value is empty before the Worker sees it (checked with
// `workerd serve` alone, no wrangler: `curl -H 'If-Match;'` reaches the Worker without it), and
// HTTP trims blanks, so over the wire an empty If-Match is indistinguishable from none. The
// empty cases therefore hand the Request, header kept, straight to the app.

const BASE = "http://arbiter.test";

type Answer = {
  status: number;
  body: { revision?: string; error?: { code: string; message: string } };
  etag: string | null;
};

async function publish(
  source: string,
  ifMatch: string | undefined,
  path = "/v1/policies/placement",
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": "text/plain" };
  if (ifMatch !== undefined) headers["if-match"] = ifMatch;
  const res = await SELF.fetch(BASE + path, { method: "PUT", headers, body: source });
  return { status: res.status, body: (await res.json()) as Answer["body"], etag: res.headers.get("etag") };
}

let placement = "";
const active = async () =>
  ((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { revision: string }).revision;

beforeAll(async () => {
  placement = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
});

describe("If-Match on PUT /v1/policies/{engine}", () => {
  it.each([
    ["empty", ""],
    ["blank", "   "],
    ["a tab", "\t"],
    ["only commas", " , ,"],
  ])("answers 400 invalid_request for an If-Match that is %s", async (_what, value) => {
    for (const path of ["/v1/policies/placement", "/v1/policies/placement?stage=candidate"]) {
      const ctx = createExecutionContext();
      const request = new Request(BASE + path, {
        method: "PUT",
        headers: { "content-type": "text/plain", "if-match": value },
        body: placement,
      });
      expect(request.headers.has("if-match")).toBe(true);
      const res = await app.fetch(request, env as unknown as Env, ctx);
      await waitOnExecutionContext(ctx);
      const body = (await res.json()) as Answer["body"];
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.error?.code).toBe("invalid_request");
      expect(body.error?.message).toContain("If-Match");
    }
  });

  it.skip("answers 400 for an empty If-Match sent over HTTP (workerd drops empty-valued request headers before the Worker sees them; see above)", () => {});

  it("answers 412 for a weak tag naming the active revision, and writes nothing", async () => {
    const revision = await active();
    const before = placement;
    const answer = await publish(`${placement}\n# weak tags never match\n`, `W/"${revision}"`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(412);
    expect(answer.body.error?.code).toBe("precondition_failed");
    expect(answer.etag).toBe(`"${revision}"`);
    expect(await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text()).toBe(before);
  });

  it("answers 412 for a list of weak tags, and publishes when a strong tag of the list matches", async () => {
    const revision = await active();
    expect((await publish(placement, `W/"${revision}", W/"other"`)).status).toBe(412);
    const strong = await publish(placement, `W/"${revision}", "${revision}"`);
    expect(strong.status, JSON.stringify(strong.body)).toBe(200);
    expect(strong.body.revision).toBe(revision);
  });

  it("still takes a strong tag, a bare revision and *", async () => {
    const revision = await active();
    for (const value of [`"${revision}"`, revision, ` "${revision}" `, "*"]) {
      const answer = await publish(placement, value);
      expect(answer.status, `${value}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
  });

  it("answers 400 for an entity tag it cannot read", async () => {
    for (const value of [`"unterminated`, `W/`, `"a"b"`, `"a" "b"`]) {
      const answer = await publish(placement, value);
      expect(answer.status, `${value}: ${JSON.stringify(answer.body)}`).toBe(400);
      expect(answer.body.error?.code).toBe("invalid_request");
    }
  });

  it("applies the same reading when staging a candidate and when promoting one", async () => {
    // Both routes read If-Match before anything reaches the coordinator, so no candidate is staged here.
    expect((await publish(placement, `"a" "b"`, "/v1/policies/placement?stage=candidate")).status).toBe(400);
    const res = await SELF.fetch(`${BASE}/v1/candidate/promote`, {
      method: "POST",
      headers: { "if-match": "W/" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Answer["body"]).error?.code).toBe("invalid_request");
  });

  it("applies the same reading to a rollback: a weak tag is 412 and nothing moves, an empty one 400", async () => {
    const revision = await active();
    const rollback = (ifMatch: string) =>
      new Request(`${BASE}/v1/policies/rollback`, {
        method: "POST",
        headers: { "content-type": "application/json", "if-match": ifMatch },
        body: JSON.stringify({ revision: embeddedBundle().revision }),
      });
    const weak = await SELF.fetch(rollback(`W/"${revision}"`));
    expect(weak.status, await weak.clone().text()).toBe(412);
    expect(await active()).toBe(revision);
    const ctx = createExecutionContext();
    const empty = await app.fetch(rollback(""), env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect(empty.status, await empty.clone().text()).toBe(400);
    expect(await active()).toBe(revision);
  });
});
