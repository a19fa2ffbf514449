// Lint and diff as resumable work (issue 24, "/healthz answering within 100 ms throughout"):
// the CLI runs them to the end in one go (lintSource, diffPolicies), the Worker's routes in
// slices with a pause between them (finishInSlices). Both drivers run the same steps, so they
// must give the same findings and the same report, and a large source must really be cut.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { diffPolicies, diffPoliciesSteps } from "../../src/bundle/diff.js";
import { lintSource, lintSourceSteps } from "../../src/bundle/lint.js";
import { ENGINES } from "../../src/bundle/registry.js";
import type { EngineName } from "../../src/engines/common/engine.js";
import { finishInSlices, type Steps } from "../../src/engines/common/slices.js";
import { LINT_DIFF_ROWS } from "../hostile/lint-diff-rows.js";
import { hardRule, placementWithRules } from "../../bench/fixtures.js";

/** Runs resumable work in slices, counting the pauses between them. */
async function sliced<T>(steps: Steps<T>): Promise<{ value: T; pauses: number }> {
  let pauses = 0;
  const value = await finishInSlices(steps, async () => {
    pauses++;
  });
  return { value, pauses };
}

const shipped = (engine: EngineName) => readFileSync(`policies/${ENGINES[engine].file}`, "utf8");

describe("lint gives the same findings run in one go and in slices", () => {
  for (const engine of Object.keys(ENGINES) as EngineName[]) {
    it(`the shipped ${engine} policy`, async () => {
      const source = shipped(engine);
      expect((await sliced(lintSourceSteps(engine, source))).value).toEqual(lintSource(engine, source));
    });
  }
  for (const row of LINT_DIFF_ROWS) {
    it(`${row.name}, 60 KB, and with a work bound that stops it`, async () => {
      const source = row.source(60_000);
      const once = lintSource(row.engine, source);
      expect(once.ok).toBe(true);
      const { value, pauses } = await sliced(lintSourceSteps(row.engine, source));
      expect(value).toEqual(once);
      expect(pauses).toBeGreaterThan(1);
      const bounded = { work: 20_000 };
      expect((await sliced(lintSourceSteps(row.engine, source, bounded))).value).toEqual(
        lintSource(row.engine, source, bounded),
      );
    }, 120_000);
  }
  it("an invalid source gives the same errors", async () => {
    const source = "partitions: [";
    const once = lintSource("placement", source);
    expect(once.ok).toBe(false);
    expect((await sliced(lintSourceSteps("placement", source))).value).toEqual(once);
  });
});

describe("diff gives the same report run in one go and in slices", () => {
  for (const row of LINT_DIFF_ROWS) {
    it(`${row.name}, two 30 KB sides`, async () => {
      const [a, b] = [row.source(30_000, 0), row.source(30_000, 1)];
      const once = diffPolicies(row.engine, a, b);
      expect(once.ok).toBe(true);
      const { value, pauses } = await sliced(diffPoliciesSteps(row.engine, a, b));
      expect(value).toEqual(once);
      expect(pauses).toBeGreaterThan(3);
    }, 120_000);
  }
  for (const engine of ["placement", "limits", "match", "customs", "jobfilter"] as const) {
    it(`the shipped ${engine} policy against itself`, async () => {
      const source = shipped(engine);
      expect((await sliced(diffPoliciesSteps(engine, source, source))).value).toEqual(
        diffPolicies(engine, source, source),
      );
    }, 120_000);
  }
  it("a side that does not validate", async () => {
    const bad = diffPolicies("jobfilter", "[]", "[");
    expect(bad.ok).toBe(false);
    expect((await sliced(diffPoliciesSteps("jobfilter", "[]", "["))).value).toEqual(bad);
  });
});

/** Runs resumable work to its end, counting its checkpoints. */
function checkpoints<T>(steps: Steps<T>): number {
  let n = 0;
  while (!steps.next().done) n++;
  return n;
}

describe("placement lint and diff cut their own work into slices", () => {
  const hard = (n: number) => placementWithRules(n, hardRule, ["{name: users, parent: true}"]);

  it("lint reads and validates the source once: as many checkpoints as the compile, not twice as many", () => {
    // 10,000 anchored keys (177 KB): reading and validating is nearly all the work, the checks are one queue's
    const head = "partitions:\n- name: default\n  queues:\n  - name: root\n    properties:\n";
    const source =
      head +
      Array.from({ length: 10_000 }, (_, i) => `      &${i.toString(36)} ${i.toString(36)}: v\n`).join("");
    const compile = checkpoints(ENGINES.placement.compileSteps!(source));
    expect(compile).toBeGreaterThan(10);
    // before, lint read and validated the source again after the compile: 26 checkpoints against 13
    expect(checkpoints(lintSourceSteps("placement", source))).toBeLessThanOrEqual(compile + 2);
  }, 120_000);

  it("a diff collects its witnesses and stores each side in slices, not in one piece each", () => {
    const [a, b] = [hard(2_000), hard(2_001)];
    const compiles =
      checkpoints(ENGINES.placement.compileSteps!(a)) + checkpoints(ENGINES.placement.compileSteps!(b));
    // a work bound of one unit stops before the first decision: what is left is compiling, generating and loading
    const diff = checkpoints(diffPoliciesSteps("placement", a, b, { work: 1 }));
    // before, the generation and each side's load were one piece each: 101 checkpoints against compiles' 98
    expect(diff - compiles).toBeGreaterThan(50);
  }, 120_000);

  it("the hard shape gives the same report in slices, stopped by the bound, with captured requests", async () => {
    const [a, b] = [hard(300), hard(301)];
    const requests = [
      { partition: "default", user: "x-t7abc", groups: ["g7"] },
      { partition: "default", user: "nobody", groups: [] },
      { user: 3 },
    ];
    for (const options of [{}, { work: 300_000 }, { requests }, { requests, work: 100_000 }]) {
      const once = diffPolicies("placement", a, b, options);
      expect(once.ok).toBe(true);
      const { value, pauses } = await sliced(diffPoliciesSteps("placement", a, b, options));
      expect(value).toEqual(once);
      expect(pauses).toBeGreaterThan(3);
    }
  }, 120_000);

  it("lint of filters that admit nobody gives the same findings in slices", async () => {
    const rules = Array.from({ length: 400 }, (_, i) =>
      i % 3 === 0
        ? `{name: user, create: true, filter: {type: allow, users: ["^dev team${i}.*"]}}`
        : i % 3 === 1
          ? `{name: user, create: true, filter: {type: allow, groups: ["^x y${i}"]}}`
          : `{name: fixed, value: q${i}, parent: {name: user, filter: {users: ["^a b${i}"]}}}`,
    );
    const source = placementWithRules(400, (i) => rules[i]);
    const once = lintSource("placement", source);
    if (!once.ok) throw new Error(once.error[0].message);
    expect(once.value.filter((f) => f.code === "placement_filter_matches_nothing")).toHaveLength(400);
    expect((await sliced(lintSourceSteps("placement", source))).value).toEqual(once);
  }, 120_000);
});
