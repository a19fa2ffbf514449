/**
 * gojq's command-line suite (cli/test.yaml) against `arbiter jq`, keeping only the cases jq 1.7.1
 * itself passes (test/jq/gojq-not-jq.yaml lists the others); our own remaining differences are
 * skipped with a reason (test/jq/gojq-skips.yaml). The suite file is fetched, not committed: see
 * test/jq/gojq-cli-cases.ts for where it is looked for.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runJqCommand } from "../../src/cli/jq-command.js";
import { GOJQ_TEST, haveGojqTest, judge, readGojqCases } from "./gojq-cli-cases.js";

interface Listed {
  case: string;
  reason: string;
}

const listed = (file: string): Listed[] =>
  (parseYaml(readFileSync(path.join(import.meta.dirname, file), "utf8")) as Listed[] | null) ?? [];
const notJq = new Map(listed("gojq-not-jq.yaml").map((l) => [l.case, l.reason]));
const skips = new Map(listed("gojq-skips.yaml").map((l) => [l.case, l.reason]));
const tally = { passed: 0, failed: 0, skipped: 0, left: 0 };

describe.skipIf(!haveGojqTest)(
  haveGojqTest ? "gojq cli/test.yaml" : `gojq cli/test.yaml: absent (no ${GOJQ_TEST}; set GOJQ_CLI_TEST)`,
  () => {
    const cases = haveGojqTest ? readGojqCases() : [];
    const home = mkdtempSync(path.join(tmpdir(), "gojq-home-"));
    for (const c of cases) {
      if (notJq.has(c.key)) {
        tally.left++;
        continue;
      }
      const skip = skips.get(c.key);
      if (skip !== undefined) {
        tally.skipped++;
        it.skip(`${c.key} (${skip})`, () => {});
        continue;
      }
      it(
        c.key,
        async () => {
          let out = "";
          let err = "";
          const env = { HOME: home, NO_COLOR: "", GOJQ_COLORS: "", ...c.env };
          const code = await runJqCommand(c.args, {
            stdin: c.input,
            stdout: (s) => (out += s),
            stderr: (s) => (err += s),
            env,
            cwd: path.dirname(GOJQ_TEST),
          });
          const problem = judge(c, { code, out, err });
          if (problem === null) tally.passed++;
          else tally.failed++;
          expect(problem).toBeNull();
        },
        30_000,
      );
    }
    it("lists only cases that exist", () => {
      const keys = new Set(cases.map((c) => c.key));
      for (const k of [...notJq.keys(), ...skips.keys()]) expect(keys.has(k), k).toBe(true);
    });
  },
);

afterAll(() => {
  if (haveGojqTest)
    console.log(
      `gojq cli/test.yaml: ${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped (of the cases jq 1.7.1 passes; ${tally.left} it does not are left out)`,
    );
});
