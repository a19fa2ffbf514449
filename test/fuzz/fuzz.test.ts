// Every fuzz target (test/fuzz/targets.ts) with a fixed seed and a modest run count, and every
// saved reproducer (test/fuzz/cases/, written by `npm run fuzz`) replayed: no input may make a
// parser or an engine throw. Long runs, with their time cap per input, are `npm run fuzz`.
import fc from "fast-check";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { FUZZ_TARGETS } from "./targets.js";

/** The seed of the runs in `npm test`: fixed, so a failure is the same failure on every machine. */
const SEED = 20_261_124;
const RUNS = 40;

const CASES_DIR = join(REPO_ROOT, "test/fuzz/cases");

/** A saved reproducer: the target, the input that failed, and how. */
interface Reproducer {
  target: string;
  input: unknown;
  failure: string;
}

describe("fuzz targets (fixed seed)", () => {
  for (const t of FUZZ_TARGETS) {
    it(t.name, async () => {
      await fc.assert(
        fc.asyncProperty(t.arbitrary, async (input) => {
          await t.run(input);
        }),
        { seed: SEED, numRuns: RUNS },
      );
    });
  }
});

describe("saved fuzz reproducers", () => {
  const files = readdirSync(CASES_DIR).filter((f) => f.endsWith(".json"));
  it("each names a known target", () => {
    for (const f of files) {
      const r = JSON.parse(readFileSync(join(CASES_DIR, f), "utf8")) as Reproducer;
      if (!FUZZ_TARGETS.some((t) => t.name === r.target)) throw new Error(`${f}: unknown target ${r.target}`);
    }
  });
  for (const f of files) {
    const r = JSON.parse(readFileSync(join(CASES_DIR, f), "utf8")) as Reproducer;
    it(`${f} (${r.failure})`, async () => {
      await FUZZ_TARGETS.find((t) => t.name === r.target)?.run(r.input);
    });
  }
});
