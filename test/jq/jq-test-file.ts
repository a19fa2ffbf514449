/** Reads jq's own `.test` files (shared/data/jq) into cases, and runs one case against our engine. */
import { readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { compileErrorText, compileJq, jqEquals, parseJsonSeq, printCompact } from "../../src/jq/index.js";
import type { Json } from "../../src/engines/common/json.js";
import { sharedDataPath } from "../support/shared-data.js";
import { moduleFiles } from "../../src/cli/jq-module-files.js";

export interface JqTestCase {
  file: string;
  line: number;
  program: string;
  input: string;
  expected: string[];
  fail: boolean;
  /** `%%FAIL` (not `%%FAIL IGNORE MSG`): the compile error's first line must be the expected line. */
  checkMessage?: boolean;
}

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const DATA_DIR = sharedDataPath("jq");
export const FILES = ["jq.test", "man.test", "onig.test", "base64.test"];
/**
 * The modules jq.test's module cases import, searched as jq's harness searches its tests/modules
 * (`jq -L tests/modules --run-tests`). jq's own folder is not in shared/data: test/jq/modules holds
 * our own modules shaped by what those cases expect; JQ_TEST_MODULES points elsewhere.
 */
export const MODULES_DIR = path.resolve(
  process.env.JQ_TEST_MODULES ?? path.join(REPO_ROOT, "test/jq/modules"),
);
const modules = moduleFiles({
  libDirs: [MODULES_DIR],
  programOrigin: REPO_ROOT,
  origin: REPO_ROOT,
  cwd: REPO_ROOT,
  home: undefined,
});

/** True for a case that reads modules from MODULES_DIR. */
export function needsModules(c: JqTestCase): boolean {
  return !c.fail && /\b(import|include|modulemeta)\b/.test(c.program);
}

/** Splits a jq test file into cases (blank-line separated groups; `#` comment lines; `%%FAIL` groups). */
export function readCases(file: string): JqTestCase[] {
  const lines = readFileSync(path.join(DATA_DIR, file), "utf8").split("\n");
  const cases: JqTestCase[] = [];
  let i = 0;
  const skipBlank = (): void => {
    while (i < lines.length && (lines[i].trim() === "" || lines[i].startsWith("#"))) i++;
  };
  for (;;) {
    skipBlank();
    if (i >= lines.length) break;
    let fail = false;
    let checkMessage = false;
    if (lines[i].startsWith("%%FAIL")) {
      fail = true;
      checkMessage = lines[i].trimEnd() === "%%FAIL";
      i++;
    }
    const line = i + 1;
    const program = lines[i++];
    if (fail) {
      const msg: string[] = [];
      while (i < lines.length && lines[i].trim() !== "") msg.push(lines[i++]);
      cases.push({ file, line, program, input: "", expected: msg, fail, checkMessage });
      continue;
    }
    const input = lines[i++] ?? "";
    const expected: string[] = [];
    while (i < lines.length && lines[i].trim() !== "") {
      if (!lines[i].startsWith("#")) expected.push(lines[i]);
      i++;
    }
    cases.push({ file, line, program, input, expected, fail });
  }
  return cases;
}

export interface Skip {
  file: string;
  line: number;
  program: string;
  reason: string;
}

/** The reviewed skip list (test/jq/skips.yaml). */
export function readSkips(): Skip[] {
  const text = readFileSync(path.join(REPO_ROOT, "test/jq/skips.yaml"), "utf8");
  return (parseYaml(text) as Skip[] | null) ?? [];
}

/** Runs one case; returns null when it passes, else a description of the difference. */
export function runCase(c: JqTestCase): string | null {
  const compiled = compileJq(c.program, { moduleProvider: modules });
  if (c.fail) {
    if (compiled.ok) return "expected a compile error, program compiled";
    // jq's harness compares the first line of the last error it reported
    const got = compileErrorText(c.program, compiled.error[compiled.error.length - 1]).split("\n")[0];
    return c.checkMessage && got !== c.expected[0]
      ? `compile error ${JSON.stringify(got)}, want ${JSON.stringify(c.expected[0])}`
      : null;
  }
  if (!compiled.ok) return `compile error: ${compiled.error.map((e) => e.message).join("; ")}`;
  let input: Json;
  try {
    const vals = parseJsonSeq(c.input, true);
    input = vals[0] ?? null;
  } catch {
    return `cannot parse input ${c.input}`;
  }
  // jq's harness parses the expected outputs as it parses input, keeping number literals
  const want = c.expected.map((e) => parseJsonSeq(e, true)[0]);
  const r = compiled.value.run(input, { env: { PAGER: "less" }, keepLiterals: true });
  const got = r.outputs;
  const same = got.length === want.length && got.every((g, j) => jqEquals(g, want[j]));
  // jq's own harness ignores an error raised after the expected outputs
  if (same) return null;
  return `want ${want.map(printCompact).join(" ")} got ${got.map(printCompact).join(" ")}${r.error !== undefined ? ` error: ${r.error}` : ""}`;
}
