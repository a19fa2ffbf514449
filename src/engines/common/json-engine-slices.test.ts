// Issue 24, "/healthz answers within 100 ms": the JSON engines (limits, customs, jobfilter)
// compiled their policies, and generated their diff requests, in one piece (limits about
// 0.8 s per MB, the limits diff's requester classes 0.4 s). Both now run as resumable steps
// (a limits identifier, classifier, limit or application, a customs network, a filters
// rule, a slice of hint sets or requests at a time). These tests check that the sliced and
// the one-piece runs agree, errors and their order included, and count the pauses a large
// source gets: on the old code these engines had no compileSteps and the generators no
// steps, so each of them ran in one piece.
import { describe, expect, it } from "vitest";
import { LINT_DIFF_ROWS } from "../../../test/hostile/lint-diff-rows.js";
import { diffPolicies, diffPoliciesSteps } from "../../bundle/diff.js";
import { lintSource, lintSourceSteps } from "../../bundle/lint.js";
import { ENGINES } from "../../bundle/registry.js";
import { customsDiffRequests, customsDiffRequestsSteps } from "../customs/diff-requests.js";
import { compileCustomsPolicy } from "../customs/policy.js";
import { jobfilterDiffRequests, jobfilterDiffRequestsSteps } from "../jobfilter/diff-requests.js";
import { compileFilters } from "../jobfilter/policy.js";
import { compileForDiff } from "../limits/diff-context.js";
import { limitsDiffRequests, limitsDiffRequestsSteps } from "../limits/diff-requests.js";
import type { EngineName } from "./engine.js";
import { finish, finishInSlices, type Steps } from "./slices.js";

/** Runs resumable work in slices, counting the pauses between them. */
async function sliced<T>(steps: Steps<T>): Promise<{ value: T; pauses: number }> {
  let pauses = 0;
  const value = await finishInSlices(steps, async () => void pauses++);
  return { value, pauses };
}

const row = (engine: EngineName) => LINT_DIFF_ROWS.find((r) => r.engine === engine)!;

/** A limits.json of `n` identifiers, classifiers, limits and applications, with `bad` written into entry `at` of its list. */
function limits(
  n: number,
  bad: (i: number) => Partial<Record<"identifier" | "classifier" | "limit" | "application", string>>,
): string {
  const part = (i: number) => ({
    identifier: `{"name": "id${i}", "description": "d", "type": "ip-cidr-list", "data": {"cidrs": ["10.${i % 250}.0.0/16", "2001:db8:${i}::/48"]}}`,
    classifier: `{"name": "c${i}", "description": "d", "identifiers": ["id${i}"]}`,
    limit: `{"name": "l${i}", "description": "d", "type": "jq", "data": {"script": ".test.type == \\"t${i}\\""}}`,
    application: `{"description": "d", "classifier": "c${i}", "apply": [{"require": "all", "limits": ["l${i}"]}]}`,
    ...bad(i),
  });
  const parts = Array.from({ length: n }, (_, i) => part(i));
  const list = (k: "identifier" | "classifier" | "limit" | "application") =>
    parts.map((p) => p[k]).join(",\n");
  return `{"schema": 3, "identifiers": [${list("identifier")}], "classifiers": [${list("classifier")}], "limits": [${list("limit")}], "applications": [${list("application")}]}`;
}

const N = 600;
const last = (i: number) => i === N - 1;

const SOURCES: { name: string; engine: EngineName; source: string }[] = [
  ...(["limits", "customs", "jobfilter"] as const).map((engine) => ({
    name: `${row(engine).name} (100 KB)`,
    engine,
    source: row(engine).source(100_000),
  })),
  {
    name: "a bad CIDR in the last identifier",
    engine: "limits",
    source: limits(N, (i) =>
      last(i)
        ? {
            identifier: `{"name": "id${i}", "description": "d", "type": "ip-cidr-list", "data": {"cidrs": ["10.0.0.0/33"]}}`,
          }
        : {},
    ),
  },
  {
    name: "a duplicate identifier late",
    engine: "limits",
    source: limits(N, (i) =>
      last(i) ? { identifier: `{"name": "id0", "description": "d", "type": "localif", "data": {}}` } : {},
    ),
  },
  {
    name: "schema errors in two late classifiers (the first wins)",
    engine: "limits",
    source: limits(N, (i) =>
      i >= N - 2 ? { classifier: `{"name": "c${i}", "identifiers": ["id${i}"]}` } : {},
    ),
  },
  {
    name: "a jq limit that does not compile, last",
    engine: "limits",
    source: limits(N, (i) =>
      last(i)
        ? { limit: `{"name": "l${i}", "description": "d", "type": "jq", "data": {"script": ".test | ( "}}` }
        : {},
    ),
  },
  {
    name: "unknown names in late applications",
    engine: "limits",
    source: limits(N, (i) =>
      i >= N - 3
        ? {
            application: `{"description": "d", "classifier": "cx${i}", "apply": [{"require": "all", "limits": ["lx${i}", "l${i}"]}]}`,
          }
        : {},
    ),
  },
  {
    name: "an unknown classifier identifier, last",
    engine: "limits",
    source: limits(N, (i) =>
      last(i) ? { classifier: `{"name": "c${i}", "description": "d", "identifiers": ["idx"]}` } : {},
    ),
  },
  {
    name: "bad addresses and fields in several networks",
    engine: "customs",
    source: `{"defaults": {"allow": ["10.0.0.0/8"]}, "networks": {${Array.from({ length: 400 }, (_, k) => `"${k}": {"maxLoad": ${k === 390 ? 0.1 : 1}, "allow": [${Array.from({ length: 30 }, (_, i) => `"10.${k % 250}.${i}.0/24"`).join(", ")}], "deny": ["${k % 97 === 5 ? "nope" : `172.16.0.${k % 250}`}"]${k === 399 ? ', "oops": 1' : ""}}`).join(", ")}}, "downFactor": -1}`,
  },
  {
    name: "errors in several rules and a duplicate uuid",
    engine: "jobfilter",
    source: `[${Array.from({ length: 2_000 }, (_, i) => `{"uuid": "00000000-0000-4000-8000-${String(i % 1_999).padStart(12, "0")}", "priority": ${i % 700 === 3 ? -1 : i}, "predicates": [["opcode", ["=", "OP_ID", "OP_X"]]${i === 1_500 ? ', ["bogus", null]' : ""}], "action": "${i === 1_800 ? "PAUS" : "PAUSE"}"}`).join(",\n")}]`,
  },
];

describe("the JSON engines' one-piece and sliced compiles agree", { timeout: 30_000 }, () => {
  for (const { name, engine, source } of SOURCES) {
    it(`${engine}: ${name}`, async () => {
      const def = ENGINES[engine];
      const one = def.compile(source);
      expect(def.compileSteps).toBeDefined();
      const again = finish(def.compileSteps!(source));
      const { value } = await sliced(def.compileSteps!(source));
      expect(again).toEqual(one);
      expect(value).toEqual(one);
      // and lint, which compiles first, answers alike
      const lint = await sliced(lintSourceSteps(engine, source));
      expect(lint.value).toEqual(lintSource(engine, source));
    });
  }

  it("gives the same first errors as before the slicing", () => {
    const [, , , bad, dup, schema, jq, unknown] = SOURCES;
    expect(ENGINES.limits.compile(bad.source)).toMatchObject({
      ok: false,
      error: [{ code: "limits_invalid_identifier" }],
    });
    expect(ENGINES.limits.compile(dup.source)).toMatchObject({
      ok: false,
      error: [{ code: "limits_duplicate_identifier", at: `/identifiers/${N - 1}` }],
    });
    expect(ENGINES.limits.compile(schema.source)).toMatchObject({
      ok: false,
      error: [{ at: `/classifiers/${N - 2}` }],
    });
    expect(ENGINES.limits.compile(jq.source)).toMatchObject({
      ok: false,
      error: [{ code: "limits_invalid_limit" }],
    });
    expect(ENGINES.limits.compile(unknown.source)).toMatchObject({
      ok: false,
      error: [{ code: "limits_unknown_reference" }],
    });
    const customs = compileCustomsPolicy(SOURCES[9].source);
    expect(customs.ok).toBe(false);
    if (!customs.ok) expect(customs.error.length).toBeGreaterThan(5);
    const filters = compileFilters(SOURCES[10].source);
    expect(filters.ok).toBe(false);
    if (!filters.ok) expect(filters.error.map((e) => e.code)).toContain("jobfilter_duplicate_uuid");
  });
});

describe("the JSON engines' one-piece and sliced diffs agree", { timeout: 60_000 }, () => {
  for (const engine of ["limits", "customs", "jobfilter"] as const) {
    it(`${engine}: ${row(engine).name} (2 × 50 KB)`, async () => {
      const a = row(engine).source(50_000, 0);
      const b = row(engine).source(50_000, 1);
      const { value } = await sliced(diffPoliciesSteps(engine, a, b));
      expect(value).toEqual(diffPolicies(engine, a, b));
      expect(value.ok).toBe(true);
    });
  }
});

describe(
  "a 1 MB JSON policy compiles, and its diff requests are made, in many slices",
  { timeout: 60_000 },
  () => {
    for (const engine of ["limits", "customs", "jobfilter"] as const) {
      it(`${engine}: compile`, async () => {
        const source = row(engine).source(1_000_000);
        const { value, pauses } = await sliced(ENGINES[engine].compileSteps!(source));
        expect(value.ok).toBe(true);
        // read in one piece, then compiled a slice (16,384 units, about a source's 16 KiB) at a time
        expect(pauses).toBeGreaterThan(30);
      });
    }

    it("limits: the requester classes of two 500 KB policies", async () => {
      const [a, b] = [0, 1].map((salt) => compileForDiff(row("limits").source(500_000, salt)));
      if (!a.ok || !b.ok) throw new Error("does not compile");
      const { value, pauses } = await sliced(limitsDiffRequestsSteps(a.value, b.value));
      expect(value).toEqual(limitsDiffRequests(a.value, b.value));
      // 20,000 hint sets, each classified under both policies' 1,000-odd identifiers
      expect(pauses).toBeGreaterThan(100);
    });

    it("customs: the requests of two 500 KB policies", async () => {
      const [a, b] = [0, 1].map((salt) => compileCustomsPolicy(row("customs").source(500_000, salt)));
      if (!a.ok || !b.ok) throw new Error("does not compile");
      const { value, pauses } = await sliced(customsDiffRequestsSteps(a.value, b.value));
      expect(value).toEqual(customsDiffRequests(a.value, b.value));
      expect(pauses).toBeGreaterThan(10);
    });

    it("jobfilter: the requests of two 500 KB rule lists", async () => {
      const [a, b] = [0, 1].map((salt) => compileFilters(row("jobfilter").source(500_000, salt)));
      if (!a.ok || !b.ok) throw new Error("does not compile");
      const { value, pauses } = await sliced(jobfilterDiffRequestsSteps(a.value, b.value));
      expect(value).toEqual(jobfilterDiffRequests(a.value, b.value));
      expect(pauses).toBeGreaterThan(10);
    });
  },
);
