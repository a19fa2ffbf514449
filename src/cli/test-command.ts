import { readdirSync, statSync } from "node:fs";
import { join, relative, isAbsolute } from "node:path";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { isTestFileName } from "./policy-files.js";
import { loadTestFile, type TestFile, type TestFileError } from "./test-file.js";
import { jsonReport, junitReport, textReport } from "./test-report.js";
import { PolicyCache, runTestFile, type CaseResult } from "./test-run.js";
import { lintTestedPolicies } from "./test-lint.js";

export const TEST_USAGE = `usage: arbiter test [PATH...] [--run REGEX] [--format text|json|junit]

Runs policy tests: *.test.yaml files in each PATH (a file, or a folder searched
recursively; default: policies). A test file names an engine (limits,
placement, match, customs, jobfilter), optionally its own policy file, and
cases: a request and the verdict fields it must hold, or (customs, jobfilter)
steps run against a fresh in-memory host pool or job queue. Cases run
in-process against the policy compiled as \`arbiter compile\` compiles it, with
the same evaluators as \`arbiter eval\`. See docs/policies/testing.md.

  --run REGEX     run only the cases whose name matches REGEX
  --format F      text (default): a line per failed case and \`N passed, M failed\`;
                  json: every case with its status; junit: JUnit XML for CI
Each policy file the tests ran against is also linted (\`arbiter lint\`):
warnings print on stderr as "lint: FILE:LINE:COLUMN: code: message" (infos
are left to arbiter lint); findings do not change the exit status.
Exit status: 0 every case passed, 1 a case failed, 2 an invalid test file
(each error at file:line:column) or a usage error.
`;

const FORMATS = ["text", "json", "junit"] as const;

/** Every test file under a path: the path itself if it is a file, else `*.test.yaml` files below it, sorted. */
function testFilesUnder(path: string): string[] {
  const stat = statSync(path);
  if (stat.isFile()) return [path];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const child = join(path, name);
    const s = statSync(child);
    if (s.isDirectory()) out.push(...testFilesUnder(child));
    else if (s.isFile() && isTestFileName(name)) out.push(child);
  }
  return out;
}

/** A path as messages show it: relative to the working folder when it lies under it. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

/**
 * Writes `cases done/total` on the terminal's error stream once a run has
 * taken more than a second, at most ten times a second, and clears it at the end.
 */
function progress(io: Io, total: number): { step(done: number, file: string): void; end(): void } {
  const now = io.clock ?? (() => performance.now());
  const tty = io.stderrIsTty ?? false;
  const started = now();
  let last = -Infinity;
  let shownOnce = false;
  return {
    step(done, file) {
      if (!tty) return;
      const t = now();
      if (t - started < 1000 || t - last < 100) return;
      last = t;
      shownOnce = true;
      io.stderr(`\r\x1b[K${done}/${total} cases (${file})`);
    },
    end() {
      if (shownOnce) io.stderr("\r\x1b[K");
    },
  };
}

/** `arbiter test`: runs policy test files and reports each failure and the totals. */
export async function testCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--run", "--format"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(TEST_USAGE), 0);
  refuseUnknownSwitches(args, [], TEST_USAGE);
  const format = option(args, "--format") ?? "text";
  if (!(FORMATS as readonly string[]).includes(format))
    throw new UsageError(`--format: \`${format}\` is not one of ${FORMATS.join(", ")}\n\n${TEST_USAGE}`);
  const runText = option(args, "--run");
  let only: RegExp | undefined;
  if (runText !== undefined) {
    try {
      only = new RegExp(runText);
    } catch (e) {
      throw new UsageError(`--run: \`${runText}\` is not a regular expression: ${(e as Error).message}`);
    }
  }

  const paths = args.positional.length > 0 ? args.positional : ["policies"];
  const found: string[] = [];
  for (const p of paths) {
    try {
      found.push(...testFilesUnder(p));
    } catch (e) {
      io.stderr(
        `arbiter test: cannot read \`${p}\`: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}\n`,
      );
      return 2;
    }
  }
  if (found.length === 0) {
    io.stderr(`arbiter test: no *.test.yaml file in ${paths.join(", ")}\n`);
    return 2;
  }

  const files: TestFile[] = [];
  const invalid: TestFileError[] = [];
  for (const path of [...new Set(found)]) {
    const loaded = loadTestFile(path);
    if (loaded.ok)
      files.push({ ...loaded.value, path: shown(path), policyPath: shown(loaded.value.policyPath) });
    else invalid.push(...loaded.error.map((e) => ({ ...e, file: shown(e.file) })));
  }
  if (invalid.length > 0) {
    for (const e of invalid) io.stderr(`${e.file}${e.at ? `:${e.at}` : ""}: ${e.message}\n`);
    io.stderr(
      `arbiter test: ${new Set(invalid.map((e) => e.file)).size} invalid test file(s); no case was run\n`,
    );
    return 2;
  }

  const total = files.reduce(
    (n, f) => n + f.cases.filter((c) => only === undefined || only.test(c.name)).length,
    0,
  );
  const bar = progress(io, total);
  const policies = new PolicyCache();
  const results: CaseResult[] = [];
  for (const file of files)
    await runTestFile(file, policies, only, (r) => (results.push(r), bar.step(results.length, file.path)));
  bar.end();
  if (only !== undefined && results.length === 0)
    io.stderr(`arbiter test: no case name matches --run ${runText}\n`);

  io.stdout(
    format === "json" ? jsonReport(results) : format === "junit" ? junitReport(results) : textReport(results),
  );
  lintTestedPolicies(files, io);
  return results.some((r) => r.status === "failed") ? 1 : 0;
}
