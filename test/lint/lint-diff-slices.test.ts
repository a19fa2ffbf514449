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
