import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";
import { impliedBest, type MatchAnswer } from "../support/match-best.js";

const BASE = "http://arbiter.test";

/**
 * A match request of n machines that exercises every kind of line the answer
 * has: matches of equal and distinct ranks, machines the job rejects, machines
 * the embedded pool policy discards (too little memory) or rejects (a gpu
 * partition), names that need escaping in JSON and machines without a Name.
 * `tag` makes the body one no other test sends.
 */
function matchBody(n: number, tag: string) {
  const machines = Array.from({ length: n }, (_, i) => {
    const name =
      i % 97 === 5
        ? ""
        : i % 31 === 3
          ? `Name = "slot\\"${i}\\" é"; `
          : `Name = "slot${i}@node.example.org"; `;
    const memory = i % 13 === 0 ? 256 : 1024 * (1 + (i % 7));
    const partition = i % 17 === 2 ? 'Partition = "gpu"; ' : "";
    return `[ ${name}${partition}Memory = ${memory}; Cpus = 4; Requirements = ${i % 11 === 4 ? "false" : "true"} ]`;
  });
  return {
    job: `[ Requirements = TARGET.Memory >= 2048; Rank = TARGET.Memory; Owner = "alice"; Tag = "${tag}"; GlobalJobId = "sub#1.0#\\"x\\"" ]`,
    machines,
    schedd: { Name: "submit1.example.org" },
  };
}

async function answerText(
  body: unknown,
  cacheSeconds?: string,
): Promise<{ cache: string | null; text: string }> {
  const request = new Request(`${BASE}/v1/match`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (cacheSeconds === undefined) {
    const res = await SELF.fetch(request);
    expect(res.status).toBe(200);
    return { cache: res.headers.get("x-arbiter-cache"), text: await res.text() };
  }
  const ctx = createExecutionContext();
  const res = await app.fetch(
    request,
    { ...(env as unknown as Env), VERDICT_CACHE_SECONDS: cacheSeconds },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  return { cache: res.headers.get("x-arbiter-cache"), text: await res.text() };
}

/** The answer's text with its decision id and the log's timestamps blanked, the parts that differ between two answers. */
function withoutId(text: string): string {
  return text
    .replace(/^\{"decision_id":"[0-9a-f-]{36}",/, '{"decision_id":"",')
    .replace(/"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z /g, '"ts ');
}

/** Where two texts first differ, with some context (a failure does not print two 400 kB answers). */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at ${i}: ${a.slice(Math.max(0, i - 60), i + 60)} / ${b.slice(Math.max(0, i - 60), i + 60)}`;
}

describe("POST /v1/match answers", () => {
  it.each([1, 8, 500, 2000])(
    "are the same text with the cache off, on a miss and on a hit (%i machines)",
    async (n) => {
      const body = matchBody(n, crypto.randomUUID());
      const bypass = await answerText(body, "0");
      const miss = await answerText(body);
      const hit = await answerText(body);
      expect([bypass.cache, miss.cache, hit.cache]).toEqual(["bypass", "miss", "hit"]);
      expect(firstDifference(withoutId(miss.text), withoutId(bypass.text))).toBeNull();
      expect(firstDifference(withoutId(hit.text), withoutId(bypass.text))).toBeNull();
      expect(miss.text.length).toBe(bypass.text.length);
      // the documented shape, in the order the API writes it, and the text JSON.stringify gives for it
      const v = JSON.parse(miss.text) as {
        machines: { name: string | number; discarded: boolean; match: boolean; rank: number }[];
        log: string[];
        best: string | number | null;
      };
      expect(Object.keys(v)).toEqual([
        "decision_id",
        "revision",
        "cacheable",
        "job",
        "machines",
        "best",
        "log",
        "schedd",
      ]);
      expect(firstDifference(JSON.stringify(v), miss.text)).toBeNull();
      expect(v.machines).toHaveLength(n);
      const matched = v.machines.filter((m) => m.match);
      expect(v.log.filter((l) => l.includes(" Matched ")).length).toBe(matched.length);
      if (n >= 8) {
        expect(v.machines.some((m) => m.discarded)).toBe(true);
        expect(v.log.some((l) => l.includes("reason=NEGOTIATOR_PE_RESOURCE_EXPR"))).toBe(true);
      }
      if (matched.length > 0)
        expect(v.best).toBe(v.log.find((l) => l.includes(" Matched "))?.match(/machine=(.*) rank=/)?.[1]);
    },
  );

  it("with ?explain=true carry the trace last, the text JSON.stringify gives", async () => {
    const body = matchBody(8, crypto.randomUUID());
    const res = await SELF.fetch(`${BASE}/v1/match?explain=true`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-arbiter-cache")).toBe("bypass");
    const text = await res.text();
    const v = JSON.parse(text) as { trace: { pairs: unknown[]; analysis: unknown } };
    expect(Object.keys(v)).toEqual([
      "decision_id",
      "revision",
      "cacheable",
      "job",
      "machines",
      "best",
      "log",
      "schedd",
      "trace",
    ]);
    expect(v.trace.pairs.length).toBeGreaterThan(0);
    expect(firstDifference(JSON.stringify(v), text)).toBeNull();
  });
});

/** POSTs a match body through the Worker (caching as deployed) and returns the status, cache header and parsed answer. */
async function post(body: unknown): Promise<{ status: number; cache: string | null; text: string }> {
  const res = await SELF.fetch(`${BASE}/v1/match`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, cache: res.headers.get("x-arbiter-cache"), text: await res.text() };
}

/** An answer without its envelope, the log's timestamps blanked. */
function verdictOf(text: string): MatchAnswer {
  const {
    decision_id: _d,
    revision: _r,
    cacheable: _c,
    ...rest
  } = JSON.parse(withoutId(text)) as Record<string, unknown>;
  return rest as unknown as MatchAnswer;
}

describe("POST /v1/match with best", () => {
  it.each([1, 3, 40, 2000])(
    "lists the best %i machines and counts the rest as the full answer implies",
    async (n) => {
      const body = matchBody(500, crypto.randomUUID());
      const full = await post(body);
      const best = await post({ ...body, best: n });
      expect([full.status, best.status]).toEqual([200, 200]);
      const fullVerdict = verdictOf(full.text);
      expect(verdictOf(best.text)).toEqual(impliedBest(fullVerdict, n));
      const v = JSON.parse(best.text) as Record<string, unknown>;
      expect(Object.keys(v)).toEqual([
        "decision_id",
        "revision",
        "cacheable",
        "job",
        "machines",
        "best",
        "counts",
        "log",
        "schedd",
      ]);
      expect(firstDifference(JSON.stringify(v), best.text)).toBeNull();
      // the fixture has every fate the counts tell apart
      const counts = v.counts as Record<string, number>;
      expect(
        counts.discarded * counts.rejected_by_resource_expr * counts.unmatched * counts.matched,
      ).toBeGreaterThan(0);
    },
  );

  it("caches each N apart: a hit only for the same N", async () => {
    const body = matchBody(60, crypto.randomUUID());
    const three = await post({ ...body, best: 3 });
    const five = await post({ ...body, best: 5 });
    const again = await post({ ...body, best: 3 });
    const all = await post(body);
    expect([three.cache, five.cache, again.cache, all.cache]).toEqual(["miss", "miss", "hit", "miss"]);
    expect(verdictOf(three.text).machines).toHaveLength(3);
    expect(verdictOf(five.text).machines).toHaveLength(5);
    expect(verdictOf(again.text)).toEqual(verdictOf(three.text));
    expect(verdictOf(all.text).machines).toHaveLength(60);
  });

  it.each([0, -2, 2.5, 2001, "3", null, true])("answers best = %j with 400 naming the field", async (n) => {
    const r = await post({ ...matchBody(2, crypto.randomUUID()), best: n });
    expect(r.status).toBe(400);
    const e = (JSON.parse(r.text) as { error: { code: string; message: string; details: { at: string }[] } })
      .error;
    expect(e.code).toBe("invalid_request");
    expect(e.message).toBe("`best`: must be an integer from 1 to 2000");
    expect(e.details[0].at).toBe("/best");
  });
});
