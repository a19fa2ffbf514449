import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE, throughputTask } from "./fakes.js";

interface ErrorAnswer {
  error: {
    code: string;
    message: string;
    details?: { code: string; message: string; at: string; suggestion?: string }[];
  };
}

async function post(path: string, body: unknown): Promise<{ status: number; body: ErrorAnswer }> {
  const res = await SELF.fetch(`${BASE}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as ErrorAnswer };
}

describe("did-you-mean on unknown request keys", () => {
  it("suggests `requester` for `requestor` in the message and the detail", async () => {
    const { status, body } = await post("/v1/limits/decide", {
      requestor: "203.0.113.5",
      task: throughputTask(),
    });
    expect(status).toBe(400);
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("`requestor`");
    expect(body.error.message).toContain("did you mean `requester`?");
    expect(body.error.details?.[0]).toMatchObject({
      code: "unrecognized_keys",
      at: "/requestor",
      suggestion: "requester",
    });
  });

  it("suggests `user` for `username` on /v1/place", async () => {
    const { status, body } = await post("/v1/place", { username: "alice", application_id: "app-1" });
    expect(status).toBe(400);
    const detail = body.error.details?.find((d) => d.at === "/username");
    expect(detail?.suggestion).toBe("user");
    expect(detail?.message).toContain("did you mean `user`?");
  });

  it("suggests nothing for a key far from every known one", async () => {
    const { body } = await post("/v1/limits/decide", { zzzzzzzz: 1, task: throughputTask() });
    const detail = body.error.details?.find((d) => d.at === "/zzzzzzzz");
    expect(detail).toBeDefined();
    expect(detail?.suggestion).toBeUndefined();
    expect(detail?.message).not.toContain("did you mean");
  });
});

describe("did-you-mean on engine names", () => {
  it("names the engine for pool.conf", async () => {
    const res = await SELF.fetch(`${BASE}/v1/policies/pool`, { method: "PUT", body: "x = 1\n" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorAnswer;
    expect(body.error.code).toBe("unknown_engine");
    expect(body.error.message).toContain("the engine for pool.conf is `match`");
    expect(body.error.details?.[0]?.suggestion).toBe("match");
  });

  it("suggests the closest engine name", async () => {
    const res = await SELF.fetch(`${BASE}/v1/policies/limts`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorAnswer;
    expect(body.error.message).toContain("did you mean `limits`?");
    expect(body.error.details?.[0]?.suggestion).toBe("limits");
  });
});
