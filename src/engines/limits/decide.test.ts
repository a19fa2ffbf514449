import { describe, expect, it } from "vitest";
import type { LimitsContext } from "./context.js";
import { decideLimits, decideLimitsOffline } from "./decide.js";
import { loadLimitsText } from "./engine.js";
import type { LimitsPolicy } from "./policy.js";

const ctx: LimitsContext = { now: 0, explain: false, cidrList: () => undefined, localAddresses: [] };
const task = { test: { type: "rtt", spec: {} } };

function policy(limitsJson: unknown): LimitsPolicy {
  const r = loadLimitsText(JSON.stringify(limitsJson));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const simple = policy({
  schema: 1,
  identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
  classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
  limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
  applications: [{ apply: [{ require: "all", limits: ["ok"] }] }],
});

describe("decideLimits", () => {
  it("passes everything when no policy is configured", async () => {
    const d = await decideLimits(null, { requester: "192.0.2.1", task }, ctx);
    expect(d.verdict).toEqual({
      allowed: true,
      task: null,
      changes: [],
      identifiers: [],
      classifiers: [],
      priority: null,
      diagnostics: "No limits were applied",
    });
    expect(d.cacheable).toBe(true);
  });

  it("marks verdicts of runs as not cacheable and builds a trace only when asked", async () => {
    const plain = await decideLimits(simple, { requester: "192.0.2.1", task }, ctx);
    expect(plain.cacheable).toBe(true);
    expect(plain.trace).toBeUndefined();
    const run = await decideLimits(
      simple,
      { requester: "192.0.2.1", task, run: { start: "2026-06-01T12:00:00Z", duration: "PT1M" } },
      { ...ctx, explain: true },
    );
    expect(run.cacheable).toBe(false);
    expect(run.trace).toMatchObject({
      identifiers: [{ name: "a", identified: true }],
      classifiers: ["c"],
      limits: [{ limit: "ok", passed: true, reasons: [] }],
    });
  });

  it("does not modify the request's task when adding run_schedule", async () => {
    const own = { test: { type: "rtt", spec: {} } };
    await decideLimits(
      simple,
      { requester: "192.0.2.1", task: own, run: { start: "2026-06-01T12:00:00Z", duration: "PT1M" } },
      ctx,
    );
    expect(own).toEqual({ test: { type: "rtt", spec: {} } });
  });

  it("turns an internal failure into pScheduler's bug report", async () => {
    const broken: LimitsPolicy = {
      ...simple,
      identifiers: [
        {
          name: "x",
          invert: false,
          evaluate: () => {
            throw new RangeError("kaboom");
          },
        },
      ],
    };
    const d = await decideLimits(broken, { requester: "192.0.2.1", task }, ctx);
    expect(d.outcome).toBe("error");
    expect(d.verdict.allowed).toBe(false);
    expect(d.verdict.task).toEqual(task);
    expect(d.verdict.priority).toBeNull();
    expect(d.verdict.diagnostics).toBe(
      "Failed to process limits: processor threw an exception.\n\nRangeError: kaboom\n\nPlease report this as a bug.",
    );
  });
});

describe("decideLimitsOffline", () => {
  const dnsAndFetch = policy({
    schema: 3,
    identifiers: [
      { name: "bogon", description: "b", type: "ip-cymru-bogon", data: { "fail-result": true } },
      {
        name: "ptr",
        description: "p",
        type: "ip-reverse-dns",
        data: { match: { style: "contains", match: "x" }, timeout: "PT1S" },
      },
      { name: "a", description: "a", type: "always", data: {} },
    ],
    classifiers: [
      { name: "bogons", description: "b", identifiers: ["bogon"] },
      { name: "c", description: "c", identifiers: ["a"] },
    ],
    limits: [
      { name: "ok", description: "ok", type: "pass-fail", data: { pass: true } },
      {
        name: "ask",
        description: "ask",
        type: "url-fetch",
        data: { url: "http://127.0.0.1:9/", "fail-result": false },
      },
    ],
    applications: [
      { classifier: "bogons", apply: [{ require: "all", limits: ["ask"] }], "stop-on-failure": true },
      { classifier: "c", apply: [{ require: "all", limits: ["ok"] }] },
    ],
  });

  it("answers at once, as decideLimits does, when there is no resolver and no fetcher", async () => {
    for (const requester of ["192.0.2.1", "2001:db8::1", "not-an-address"]) {
      const request = { requester, task, run: { start: "2026-06-01T12:00:00Z", duration: "PT1M" } };
      const offline = decideLimitsOffline(dnsAndFetch, request, { ...ctx, explain: true });
      expect(offline).toEqual(await decideLimits(dnsAndFetch, request, { ...ctx, explain: true }));
    }
    const d = decideLimitsOffline(dnsAndFetch, { requester: "192.0.2.1", task }, ctx);
    expect(d.verdict.classifiers).toEqual(["bogons", "c"]);
    expect(d.verdict.diagnostics).toContain("Couldn't connect to server");
  });

  it("refuses, as an error verdict, a step that would wait for a resolver", () => {
    const resolver = { lookup: () => new Promise<never>(() => undefined) };
    const d = decideLimitsOffline(dnsAndFetch, { requester: "192.0.2.1", task }, { ...ctx, dns: resolver });
    expect(d.outcome).toBe("error");
    expect(d.verdict.diagnostics).toContain("waited for an answer");
  });
});
