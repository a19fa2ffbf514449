/** Runs jq 1.7.1's own test files against our engine, one vitest case per jq case. */
import { existsSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { haveSharedData } from "../support/shared-data.js";
import { describeShared } from "../support/shared-suite.js";
import { FILES, MODULES_DIR, needsModules, readCases, readSkips, runCase } from "./jq-test-file.js";

const skips = readSkips();
const counts = new Map<string, { passed: number; failed: number; skipped: number }>();

for (const file of FILES) {
  const tally = { passed: 0, failed: 0, skipped: 0 };
  counts.set(file, tally);
  describeShared(`jq conformance ${file}`, () => {
    for (const c of readCases(file)) {
      const name = `${file}:${c.line} ${c.fail ? "%%FAIL " : ""}${c.program}`;
      const skip =
        skips.find((s) => s.file === file && s.program === c.program) ??
        (needsModules(c) && !existsSync(MODULES_DIR)
          ? { reason: `module-on-disk: no test modules at ${MODULES_DIR}` }
          : undefined);
      if (skip) {
        tally.skipped++;
        it.skip(`${name} (${skip.reason})`, () => {});
        continue;
      }
      it(name, () => {
        const problem = runCase(c);
        if (problem === null) tally.passed++;
        else tally.failed++;
        expect(problem).toBeNull();
      });
    }
  });
}

afterAll(() => {
  if (haveSharedData)
    for (const [file, t] of counts)
      console.log(`jq conformance: ${file}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
});

describeShared("skips.yaml", () => {
  it("names only cases that exist, with an allowed reason, and stays under 3%", () => {
    const all = FILES.flatMap((f) => readCases(f));
    for (const s of skips) {
      expect(
        all.some((c) => c.file === s.file && c.line === s.line && c.program === s.program),
        `${s.file}:${s.line}: ${s.program}`,
      ).toBe(true);
      expect(s.reason).toMatch(/^(module-on-disk|sql-builtins|io|oniguruma|platform):/);
    }
    expect(skips.length / all.length).toBeLessThanOrEqual(0.03);
  });
});
