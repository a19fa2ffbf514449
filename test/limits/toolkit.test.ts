import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json, JsonObject } from "../../src/engines/common/json.js";
import {
  decideLimits,
  limitsEngine,
  loadLimitsText,
  urlSources,
  type LimitsRequest,
} from "../../src/engines/limits/index.js";
import { REPO_ROOT } from "../support/cases.js";
import { readSharedData } from "../support/shared-data.js";
import { describeShared } from "../support/shared-suite.js";
import { contextOf } from "./harness.js";

const embedded = readFileSync(resolve(REPO_ROOT, "policies/limits.json"), "utf8");
/** The toolkit default as pScheduler ships it (empty when ../shared is absent; its suites are then skipped). */
const toolkit = readSharedData("pscheduler", "toolkit-default-limits.json") ?? "";

function load(text: string) {
  const c = limitsEngine.compile(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return limitsEngine.load(c.value);
}

describe("policies/limits.json", () => {
  it("compiles", () => {
    expect(limitsEngine.compile(embedded).ok).toBe(true);
  });
});

describeShared("policies/limits.json against the toolkit default", () => {
  it("decides exactly like the toolkit default it adapts", async () => {
    const ours = load(embedded);
    const theirs = load(toolkit);
    const ctx = contextOf({
      local_addresses: ["192.0.2.1"],
      dns: { "1.0.64.100.v4.fullbogons.cymru.com A": { status: "ok", answers: ["127.0.0.2"] } },
    });
    const requests: LimitsRequest[] = [
      {
        requester: "203.0.113.9",
        task: { test: { type: "throughput", spec: { duration: "PT2S", parallel: 8 } } },
      },
      {
        requester: "192.0.2.1",
        task: { test: { type: "throughput", spec: { duration: "PT30S", parallel: 12 } } },
      },
      { requester: "198.51.100.7", task: { test: { type: "rtt", spec: {} } } },
      { requester: "100.64.0.1", task: { test: { type: "latency", spec: {} } } },
      {
        requester: "203.0.113.9",
        prioritize: true,
        rewrite: false,
        task: { priority: 3, test: { type: "idle", spec: { duration: "PT1S" } } },
        run: { start: "2026-06-01T12:00:00Z", duration: "PT10S" },
      },
    ];
    for (const r of requests) {
      const a = await decideLimits(ours, r, ctx);
      const b = await decideLimits(theirs, r, ctx);
      expect(a.verdict).toEqual(b.verdict);
    }
  });
});

describe("robustness", () => {
  it("compiling any JSON gives a policy or an error, never an exception", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const r = limitsEngine.compile(JSON.stringify(v));
        expect(typeof r.ok).toBe("boolean");
      }),
    );
  });
});

describeShared("robustness on the toolkit file", () => {
  it("compiling the toolkit file with one member replaced never throws", () => {
    const base = JSON.parse(toolkit) as JsonObject;
    const paths: (string | number)[][] = [];
    const walk = (v: Json, path: (string | number)[]): void => {
      paths.push(path);
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
      else if (v !== null && typeof v === "object")
        for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
    };
    walk(base, []);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: paths.length - 1 }), fc.jsonValue(), (i, replacement) => {
        const copy = JSON.parse(toolkit) as JsonObject;
        const path = paths[i];
        let parent: Json = copy;
        for (const k of path.slice(0, -1)) parent = (parent as Record<string | number, Json>)[k];
        (parent as Record<string | number, Json>)[path[path.length - 1]] = replacement as Json;
        const r = limitsEngine.compile(JSON.stringify(copy));
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 300 },
    );
  });

  it("any task spec gets a verdict with diagnostics", async () => {
    const policy = load(toolkit);
    const ctx = contextOf(undefined);
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 20 }),
        fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 })),
        async (type, spec) => {
          const d = await decideLimits(
            policy,
            { requester: "203.0.113.9", task: { test: { type, spec: spec as JsonObject } } },
            ctx,
          );
          expect(typeof d.verdict.diagnostics).toBe("string");
          expect(d.outcome === "error").toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("urlSources", () => {
  it("runs a list transform with raw output, one entry per line", () => {
    const r = loadLimitsText(
      JSON.stringify({
        schema: 1,
        identifiers: [
          {
            name: "cloud",
            description: "published prefixes",
            type: "ip-cidr-list-url",
            data: {
              source: "https://ip-ranges.example/ranges.json",
              update: "P1D",
              retry: "PT1H",
              transform: { script: ".prefixes[] | .ip_prefix" },
            },
          },
        ],
        classifiers: [],
        limits: [],
        applications: [],
      }),
    );
    if (!r.ok) throw new Error(r.error.message);
    const [src] = urlSources(r.value);
    expect(
      src.transform?.({ prefixes: [{ ip_prefix: "192.0.2.0/24" }, { ip_prefix: "2001:db8::/32" }] }),
    ).toEqual({ text: "192.0.2.0/24\n2001:db8::/32" });
    expect(src.transform?.({ prefixes: 5 })).toHaveProperty("error");
  });
});
