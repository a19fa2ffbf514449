// Issue 24, item 8: values a policy's jq script builds thousands of levels deep never reach
// the answer writers (the verdict's JSON, the trace, the decision log line): the limits
// rewriter's and prioritizer's results are held to a request's depth, so the decision is a
// denial naming the field, on the playground and on the decision routes alike, and the
// Worker keeps answering. On the old code these were 500 internal_error (a stack overflow
// writing the verdict) or diagnostics reading "RangeError … Please report this as a bug".
import { describe, expect, it } from "vitest";
import { DEEP_ROWS } from "./deep-rows.js";
import { hostile, publish } from "./support.js";

describe("deep values built by jq end as documented denials", () => {
  for (const row of DEEP_ROWS) {
    it(row.name, async () => {
      for (const n of [30, 50_000]) {
        const r = row.request(n);
        const a = await hostile(r.method, r.path, r.body);
        expect(row.check(a.status, a.body), `n = ${n}`).toBeNull();
      }
    });
  }

  it("on the decision routes too: POST /v1/limits/decide and GET /v1/limits/url-fetch", async () => {
    const r = DEEP_ROWS[0].request(8000).body as {
      policy: string;
      request: { requester: string; task: unknown };
    };
    await publish("limits", r.policy);
    for (const explain of ["", "?explain=true"]) {
      const a = await hostile("POST", `/v1/limits/decide${explain}`, r.request);
      expect(DEEP_ROWS[0].check(a.status, a.body)).toBeNull();
    }
    const q = new URLSearchParams({ task: JSON.stringify(r.request.task), requester: r.request.requester });
    const a = await hostile("GET", `/v1/limits/url-fetch?${q}`, undefined);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      passed: false,
      message: expect.stringContaining("is nested more than 100 levels deep"),
    });
  });
});
