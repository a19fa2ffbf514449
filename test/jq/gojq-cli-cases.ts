/**
 * gojq's command-line suite (itchyny/gojq cli/test.yaml) read as cases for a jq command line. The file
 * is fetched, never committed: GOJQ_CLI_TEST names it, else ../shared/data/gojq/test.yaml; its
 * `testdata/` folder must sit beside it. A case passes as gojq's cli_test.go judges one, except that
 * gojq's own error texts are not compared (jq words its errors differently): without `error`, the
 * exit status, stdout and an empty stderr; with `error`, stdout, the exit status (`exit_code`, else 5)
 * and some stderr.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { sharedDataPath } from "../support/shared-data.js";

/** Where the suite is read from. */
export const GOJQ_TEST = path.resolve(process.env.GOJQ_CLI_TEST ?? sharedDataPath("gojq", "test.yaml"));
export const haveGojqTest = existsSync(GOJQ_TEST);

export interface GojqCase {
  /** The case's name; `name #k` for the k-th of several cases with one name. */
  key: string;
  args: string[];
  input: string;
  env: Record<string, string>;
  expected: string;
  error: string | null;
  exitCode: number;
}

interface RawCase {
  name: string;
  args?: unknown[];
  input?: string;
  env?: string[];
  expected?: string;
  error?: string;
  exit_code?: number;
}

/** The suite's cases, in file order. */
export function readGojqCases(file = GOJQ_TEST): GojqCase[] {
  const raw = parseYaml(readFileSync(file, "utf8")) as RawCase[];
  const total = new Map<string, number>();
  for (const c of raw) total.set(c.name, (total.get(c.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  return raw.map((c) => {
    const k = (seen.get(c.name) ?? 0) + 1;
    seen.set(c.name, k);
    const env: Record<string, string> = {};
    for (const e of c.env ?? []) env[e.slice(0, e.indexOf("="))] = e.slice(e.indexOf("=") + 1);
    return {
      key: (total.get(c.name) ?? 0) > 1 ? `${c.name} #${k}` : c.name,
      args: (c.args ?? []).map(String),
      input: c.input ?? "",
      env,
      expected: c.expected ?? "",
      error: c.error ?? null,
      exitCode: c.exit_code ?? 0,
    };
  });
}

/** Judges one run of a case; null when it passes, else what differs. */
export function judge(c: GojqCase, got: { code: number; out: string; err: string }): string | null {
  const problems: string[] = [];
  if (got.out !== c.expected)
    problems.push(`stdout ${JSON.stringify(got.out)}, want ${JSON.stringify(c.expected)}`);
  if (c.error === null) {
    if (got.code !== c.exitCode) problems.push(`exit ${got.code}, want ${c.exitCode}`);
    if (got.err !== "") problems.push(`stderr ${JSON.stringify(got.err)}, want none`);
  } else {
    const want = got.err.includes("DEBUG:") ? 0 : c.exitCode !== 0 ? c.exitCode : 5;
    if (got.code !== want) problems.push(`exit ${got.code}, want ${want}`);
    if (got.err === "") problems.push(`no stderr, want an error (${JSON.stringify(c.error)})`);
  }
  return problems.length === 0 ? null : problems.join("; ");
}
