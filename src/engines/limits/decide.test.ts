import { describe, expect, it } from "vitest";
import type { LimitsContext } from "./context.js";
import { decideLimits, decideLimitsNow, decideLimitsOffline } from "./decide.js";
import { loadLimitsText } from "./engine.js";
import type { LimitsPolicy } from "./policy.js";
import { DiagLines } from "./diag-lines.js";

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

  it("decides without a promise when nothing waits, and with one when a lookup does (decideLimitsNow)", async () => {
    const request = { requester: "192.0.2.1", task };
    const now = decideLimitsNow(simple, request, ctx);
    expect(now).not.toBeInstanceOf(Promise);
    expect(now).toEqual(await decideLimits(simple, request, ctx));
    expect(decideLimitsNow(null, request, ctx)).not.toBeInstanceOf(Promise);
    // a resolver that answers "no such name" after a turn: the decision waits for it, then goes on
    const resolver = { lookup: () => Promise.resolve({ status: "nxdomain" as const, answers: [], ttl: 60 }) };
    const waiting = decideLimitsNow(dnsAndFetch, request, { ...ctx, dns: resolver });
    expect(waiting).toBeInstanceOf(Promise);
    const d = await waiting;
    expect(d.verdict.classifiers).toEqual(["c"]);
    expect(d).toEqual(await decideLimits(dnsAndFetch, request, { ...ctx, dns: resolver }));
    // a lookup that fails is handed back to the steps, as decideLimits does
    const failing = { lookup: () => Promise.reject(new Error("resolver down")) };
    const f = await decideLimitsNow(dnsAndFetch, request, { ...ctx, dns: failing });
    expect(f).toEqual(await decideLimits(dnsAndFetch, request, { ...ctx, dns: failing }));
  });

  it("writes each group's and application's lines, for groups of up to 32 limits and past that", async () => {
    const many = Array.from({ length: 33 }, (_, i) => `ok${i}`);
    const p = policy({
      schema: 1,
      identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
      classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
      limits: [
        { name: "no", description: "no", type: "pass-fail", data: { pass: false } },
        ...many.map((name) => ({ name, description: name, type: "pass-fail", data: { pass: true } })),
      ],
      applications: [
        { description: "first", apply: [{ require: "any", limits: ["no", "ok0", "no"] }], invert: true },
        {
          apply: [
            { require: "all", limits: many },
            { require: "none", limits: ["no"] },
          ],
        },
      ],
    });
    const d = await decideLimits(p, { requester: "192.0.2.1", task }, ctx);
    const lines = d.verdict.diagnostics.split("\n");
    const from = lines.indexOf("Application: first");
    expect(lines.slice(from, from + 6)).toEqual([
      "Application: first",
      "  Group 1: Limit 'no' failed: Forced failure",
      "  Group 1: Limit 'ok0' passed",
      "  Group 1: Limit 'no' failed: Forced failure",
      "  Group 1: Want any, 1/3 passed, 2/3 failed: PASS",
      "  Application FAILS (Inverted)",
    ]);
    expect(lines.slice(from + 6, from + 45)).toEqual([
      "Application: (No description)",
      ...many.map((name) => `  Group 1: Limit '${name}' passed`),
      "  Group 1: Want all, 33/33 passed, 0/33 failed: PASS",
      "  Group 2: Limit 'no' failed: Forced failure",
      "  Group 2: Want none, 0/1 passed, 1/1 failed: PASS",
      "  Application PASSES",
      "Passed one application.  Stopping.",
    ]);
  });

  it("goes on from where a walk waited: the group's counts, its later limits, groups and applications", async () => {
    // url-fetch limits answer after a turn, in the middle of groups, so the walk resumes at each one
    const p = policy({
      schema: 1,
      identifiers: [
        { name: "a", description: "a", type: "always", data: {} },
        { name: "far", description: "f", type: "ip-cidr-list", data: { cidrs: ["203.0.113.0/24"] } },
      ],
      classifiers: [
        { name: "c", description: "c", identifiers: ["a"] },
        { name: "n", description: "n", identifiers: ["far"] },
      ],
      limits: [
        { name: "ok", description: "ok", type: "pass-fail", data: { pass: true } },
        { name: "no", description: "no", type: "pass-fail", data: { pass: false } },
        { name: "y", description: "y", type: "url-fetch", data: { url: "http://192.0.2.1/yes" } },
        { name: "n", description: "n", type: "url-fetch", data: { url: "http://192.0.2.1/no" } },
      ],
      applications: [
        { description: "skipped", classifier: "n", apply: [{ require: "all", limits: ["ok"] }] },
        {
          description: "first",
          apply: [
            { require: "any", limits: ["ok", "n", "no", "y"] },
            { require: "all", limits: ["y", "n", "ok"] },
          ],
        },
        { description: "second", apply: [{ require: "all", limits: ["y", "ok"] }] },
      ],
    });
    const asked: string[] = [];
    const fetcher = {
      get: (r: { url: string }) => {
        asked.push(r.url);
        const yes = r.url.includes("/yes");
        return Promise.resolve({ status: 200, text: JSON.stringify({ passed: yes, message: "said no" }) });
      },
    };
    const waiting = decideLimitsNow(
      p,
      { requester: "192.0.2.1", task },
      { ...ctx, explain: true, fetcher, fetchBudget: 10 },
    );
    expect(waiting).toBeInstanceOf(Promise);
    const d = await waiting;
    expect(d.verdict.allowed).toBe(true);
    expect(d.verdict.diagnostics.split("\n").slice(4, -1)).toEqual([
      "Application: first",
      "  Group 1: Limit 'ok' passed",
      "  Group 1: Limit 'n' failed: said no",
      "  Group 1: Limit 'no' failed: Forced failure",
      "  Group 1: Limit 'y' passed",
      "  Group 1: Want any, 2/4 passed, 2/4 failed: PASS",
      "  Group 2: Limit 'y' passed",
      "  Group 2: Limit 'n' failed: said no",
      "  Group 2: Limit 'ok' passed",
      "  Group 2: Want all, 2/3 passed, 1/3 failed: FAIL",
      "  Application FAILS",
      "Application: second",
      "  Group 1: Limit 'y' passed",
      "  Group 1: Limit 'ok' passed",
      "  Group 1: Want all, 2/2 passed, 0/2 failed: PASS",
      "  Application PASSES",
      "Passed one application.  Stopping.",
      "Proposal meets limits",
    ]);
    const trace = d.trace as { limits: { limit: string; passed: boolean }[] };
    expect(trace.limits.map((l) => `${l.limit} ${l.passed}`)).toEqual([
      "ok true",
      "n false",
      "no false",
      "y true",
      "y true",
      "n false",
      "ok true",
      "y true",
      "ok true",
    ]);
    expect(asked).toHaveLength(5);
    // the same walk again answers the same (nothing of one walk is left for the next)
    expect(
      await decideLimitsNow(
        p,
        { requester: "192.0.2.1", task },
        { ...ctx, explain: true, fetcher, fetchBudget: 10 },
      ),
    ).toEqual(d);
  });

  it("refuses, as an error verdict, a step that would wait for a resolver", () => {
    const resolver = { lookup: () => new Promise<never>(() => undefined) };
    const d = decideLimitsOffline(dnsAndFetch, { requester: "192.0.2.1", task }, { ...ctx, dns: resolver });
    expect(d.outcome).toBe("error");
    expect(d.verdict.diagnostics).toContain("waited for an answer");
  });
});

describe("DiagLines", () => {
  it("gives the lines joined by newlines, a line given with its newline as one given without", () => {
    const lines = ["Hints:", "  requester: 'x'", "", "Application: A", "  Group 1: Want all, 1/1 passed"];
    for (let mask = 0; mask < 1 << lines.length; mask++) {
      const d = new DiagLines();
      lines.forEach((l, i) => ((mask >> i) & 1 ? d.addAfterNewline(`\n${l}`) : d.add(l)));
      expect(d.text).toBe(lines.join("\n"));
      expect(d.count).toBe(lines.length);
    }
    const one = new DiagLines();
    one.addAfterNewline("\nonly");
    expect(one.text).toBe("only");
  });
});
