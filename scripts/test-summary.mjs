#!/usr/bin/env node
// Prints the closing line CI reads, `N passed, M failed, S skipped`, from
// vitest's JSON report. A test file that failed outside its tests (it did not
// load, or a hook threw) counts as one failure each, since its tests never ran.
// A failed step before the tests (install, lint, type-check, bundle) counts as
// one failure, so a red run never looks green.
import { existsSync, readFileSync } from "node:fs";

const [file = ".ci/report.json", statusArg = "0"] = process.argv.slice(2);
const status = Number(statusArg);
let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(file)) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const result of report.testResults ?? []) {
    const testsFailed = (result.assertionResults ?? []).some((a) => a.status === "failed");
    if (result.status === "failed" && !testsFailed) failed++;
  }
}
if (status !== 0 && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
