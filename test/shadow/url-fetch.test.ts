import { describe, expect, it } from "vitest";
import { BLOCKED_NETWORK_POLICY } from "../support/blocked-network-policy.js";
import { send } from "./support.js";

// Issue 15, "The originals' servers ask Arbiter": GET /v1/limits/url-fetch answers pScheduler's
// url-fetch limit (limitprocessor/limit/urlfetch.py): 200 with {"passed": bool, "message": str}.
// The whole loop (a url-fetch limit asking this route over HTTP) is test/cli/integrations.test.ts.

const task = { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1", count: 10 } } };
const url = (params: Record<string, string>) =>
  `/v1/limits/url-fetch?${new URLSearchParams(params).toString()}`;

describe("GET /v1/limits/url-fetch", () => {
  it("answers {passed, message} with the decide route's verdict and diagnostics", async () => {
    expect((await send("PUT", "/v1/policies/limits", BLOCKED_NETWORK_POLICY)).status).toBe(200);
    for (const requester of ["203.0.113.9", "198.51.100.9"]) {
      const asked = await send("GET", url({ task: JSON.stringify(task), requester }));
      expect(asked.status).toBe(200);
      expect(asked.res.headers.get("content-type")).toMatch(/^application\/json/);
      const decided = (await send("POST", "/v1/limits/decide", { task, requester })).body as {
        allowed: boolean;
        diagnostics: string;
      };
      expect(asked.body).toEqual({ passed: decided.allowed, message: decided.diagnostics });
      expect(Object.keys(asked.body as object)).toEqual(["passed", "message"]);
    }
    const refused = (await send("GET", url({ task: JSON.stringify(task), requester: "198.51.100.9" })))
      .body as { passed: boolean; message: string };
    expect(refused.passed).toBe(false);
    expect(refused.message).toContain("Limit 'no-blocked' failed");
    expect(refused.message).toContain("requester: 198.51.100.9");
  });

  it("falls back to the connecting address, and ignores parameters it does not know", async () => {
    const asked = await send(
      "GET",
      url({ task: JSON.stringify(task), foo: "123" }),
      undefined,
      {},
      { "cf-connecting-ip": "198.51.100.200" },
    );
    expect(asked.body).toMatchObject({ passed: false });
    expect((asked.body as { message: string }).message).toContain("requester: 198.51.100.200");
    const empty = await send(
      "GET",
      url({ task: JSON.stringify(task), requester: "" }),
      undefined,
      {},
      { "cf-connecting-ip": "203.0.113.200" },
    );
    expect(empty.body).toMatchObject({ passed: true });
  });

  it("answers a repeated question from the verdict cache in the same shape", async () => {
    const path = url({ task: JSON.stringify({ ...task, reference: "cache" }), requester: "203.0.113.10" });
    const first = await send("GET", path);
    const second = await send("GET", path);
    expect(second.res.headers.get("x-arbiter-cache")).toBe("hit");
    expect(second.body).toEqual(first.body);
  });

  it("refuses a missing or malformed task with a 400 naming the parameter", async () => {
    const missing = await send("GET", url({ requester: "203.0.113.9" }));
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: { code: "invalid_request", details: [{ at: "/task" }] } });
    const malformed = await send("GET", url({ task: "{", requester: "203.0.113.9" }));
    expect(malformed.status).toBe(400);
    expect((malformed.body as { error: { message: string } }).error.message).toMatch(
      /^the `task` parameter is not JSON/,
    );
    const notATask = await send("GET", url({ task: JSON.stringify({ test: 5 }) }));
    expect(notATask.status).toBe(400);
    expect((notATask.body as { error: { message: string } }).error.message).toContain("`task.test`");
  });
});
