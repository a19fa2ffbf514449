import { join } from "node:path";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-diff-limits-");
const shipped = join(REPO_ROOT, "policies", "limits.json");

describe("arbiter diff on limits files", () => {
  it(
    "names the engine from limits.json, finds a moved CIDR edge and exits 1",
    { timeout: 30_000 },
    async () => {
      const text = readFileSync(shipped, "utf8");
      const b = join(
        scratch.folder({ "limits.json": text.replace('"198.51.100.0/24"', '"198.51.100.0/25"') }),
        "limits.json",
      );
      const r = await run(["diff", shipped, b]);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/^limits: \d+ of \d+ requests differ/);
      expect(r.out).toMatch(
        /^ {2}allowed false → true: \d+, e\.g\. \{"requester":"198\.51\.100\.(1[2-9]\d|2\d\d)"/m,
      );
      expect(r.out).toMatch(/^ {2}not exhaustive: limits is searched, never proven/m);
    },
  );

  it(
    "finds no difference for the shipped file against itself, exits 0, and never says equivalent",
    { timeout: 30_000 },
    async () => {
      const r = await run(["diff", shipped, shipped, "--format", "json"]);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.out);
      expect(report.engine).toBe("limits");
      expect(report.equivalent).toBe(false);
      expect(report.result).toMatch(/^no difference found over \d+ requests$/);
    },
  );
});
