import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const BASE = "http://arbiter.test";

function post(path: string, body: unknown): Promise<Response> {
  return SELF.fetch(BASE + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

describe("POST /v1/match", () => {
  it("matches symmetrically and picks the best-ranked machine", async () => {
    const res = await post("/v1/match", {
      job: '[ Requirements = TARGET.Memory >= 1024; Rank = TARGET.Memory; Owner = "alice" ]',
      machines: [
        '[ Name = "small"; Memory = 512; Requirements = true ]',
        '[ Name = "big"; Memory = 4096; Requirements = true ]',
        '[ Name = "picky"; Memory = 8192; Requirements = TARGET.Owner == "bob" ]',
        { Name: "json", Memory: 2048, Requirements: true },
      ],
    });
    expect(res.status).toBe(200);
    const v = (await res.json()) as {
      best: string;
      machines: { name: string; match: boolean; rank: number }[];
      cacheable: boolean;
    };
    expect(v.best).toBe("big");
    expect(v.machines.map((m) => [m.name, m.match])).toEqual([
      ["small", false],
      ["big", true],
      ["picky", false],
      ["json", true],
    ]);
    expect(v.machines[1].rank).toBe(4096);
    expect(v.cacheable).toBe(true);
  });

  it("marks verdicts that read the clock as not cacheable", async () => {
    const res = await post("/v1/match", {
      job: "[ Requirements = time() > 0 ]",
      machines: ['[ Name = "m"; Requirements = true ]'],
    });
    const v = (await res.json()) as { cacheable: boolean; best: string };
    expect(v.best).toBe("m");
    expect(v.cacheable).toBe(false);
  });

  it("answers an ad that does not parse with 400 naming its field", async () => {
    const res = await post("/v1/match", {
      job: "[ Requirements = true ]",
      machines: ['[ Name = "a" ]', "[ broken = ; ]"],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { at: string }[] };
    };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("machines[1]");
    expect(body.error.details[0].at).toBe("/machines/1");
  });

  it("refuses more than 2,000 machines", async () => {
    const machines = Array.from({ length: 2001 }, () => "[ Requirements = true ]");
    const res = await post("/v1/match", { job: "[ Requirements = true ]", machines });
    expect(res.status).toBe(400);
  });
});

describe("POST /v1/ads/check", () => {
  it("answers whether the embedded pool policy would discard an ad", async () => {
    const check = async (ad: string) => {
      const res = await post("/v1/ads/check", { kind: "job", ad });
      expect(res.status).toBe(200);
      return ((await res.json()) as { discarded: boolean }).discarded;
    };
    // policies/pool.conf blocks the owners mallory and guest (case-insensitively).
    expect(await check('[ Owner = "alice"; Requirements = true ]')).toBe(false);
    expect(await check('[ Owner = "Mallory"; Requirements = true ]')).toBe(true);
  });
});
