import { readFileSync } from "node:fs";
import { lintSource } from "../bundle/lint.js";
import type { EngineName } from "../engines/common/engine.js";
import type { Io } from "./io.js";
import { findingLine } from "./lint-command.js";

/**
 * The lint part of `arbiter test`: each policy file the test files ran
 * against is linted once; warnings are printed on stderr, one
 * `lint: FILE:LINE:COLUMN: code: message` line each (infos are left to
 * `arbiter lint`, so a clean run stays silent on stderr). Findings never change the run's exit status (that is `arbiter lint`'s
 * job): stdout keeps the test report alone, so the JSON and JUnit forms stay
 * what they are. A policy that does not compile is the cases' concern and is
 * skipped here.
 */
export function lintTestedPolicies(files: readonly { engine: string; policyPath: string }[], io: Io): void {
  const seen = new Set<string>();
  for (const f of files) {
    const key = `${f.engine}\0${f.policyPath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let source: string;
    try {
      source = readFileSync(f.policyPath, "utf8");
    } catch {
      continue;
    }
    const linted = lintSource(f.engine as EngineName, source);
    if (!linted.ok) continue;
    for (const x of linted.value)
      if (x.severity === "warning") io.stderr(`lint: ${findingLine(f.policyPath, x)}\n`);
  }
}
