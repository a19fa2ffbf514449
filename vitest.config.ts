import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import type {} from "./test/worker/loopback-servers.js";

/**
 * The test files of the Worker that change nothing the deployment shares: they publish, stage
 * and roll back nothing, write no host or metrics object and no queue but ones named for them
 * alone (`jobs-concurrency`: "burst"; `jobs-counts`: "counts-…"; `jobs-exact`: random names),
 * run no cron, and make their requests unique where a verdict could be cached. One workerd
 * (`isolate: false`) runs them one after another, loading the Worker's ~470 modules once
 * instead of once per file (about 4 s per file on the loaded 2-core machine); every other file
 * gets a workerd, and so a deployment, of its own. A file joins this list only when it keeps
 * to that: otherwise a file before it changes what it reads.
 */
const READ_ONLY_WORKER_FILES = [
  "test/worker/jobs-concurrency.test.ts",
  "test/worker/jobs-counts.test.ts",
  "test/worker/jobs-exact.test.ts",
  "test/worker/limits-decide.test.ts",
  "test/worker/match.test.ts",
  "test/worker/match-ad-text.test.ts",
  "test/worker/match-analyze.test.ts",
  "test/worker/match-answer.test.ts",
  "test/worker/placement-queues.test.ts",
  "test/worker/playground-jq.test.ts",
  "test/worker/schemas.test.ts",
  "test/hostile/policies.test.ts",
];

/** The folders of test/ whose files run in one Node process with the unit tests (project node-shared); the rest get one each. */
const SHARED_PROCESS_DIRS = [
  "classad",
  "cli",
  "compare",
  "customs",
  "diff",
  "fuzz",
  "jobfilter",
  "jq",
  "limits",
  "lint",
  "placement",
  "playground",
  "regex",
];

/**
 * The Node projects' limit per test. A property test of a few hundred cases takes about a second
 * alone and took 9.4 s at a load average of 16 on the 2-core machine: vitest's default of 5 s would
 * fail it for the machine's load, not for what it checks. A test that hangs still fails.
 */
const NODE_TEST_TIMEOUT_MS = 30_000;

/** A project of tests running in workerd against this Worker, with the loopback fakes at the edge. */
function workerProject(
  name: string,
  include: string[],
  extra: { fileParallelism?: boolean; isolate?: boolean; exclude?: string[] } = {},
) {
  return {
    plugins: [
      cloudflareTest(({ inject }) => {
        // Fakes at the edge of the world (a DNS-over-HTTPS resolver, a CIDR list server),
        // served on loopback by the global setup; the Worker reaches them by these URLs.
        const base = `http://127.0.0.1:${inject("loopbackPort")}`;
        return {
          wrangler: { configPath: "./wrangler.toml" },
          miniflare: {
            bindings: {
              LOOPBACK_URL: base,
              DOH_URL: `${base}/dns-query`,
              LOCAL_ADDRESSES: "192.0.2.1,2001:db8::1",
              BUNDLE_REFRESH_SECONDS: "1",
            },
          },
        };
      }),
    ],
    test: {
      name,
      include,
      globalSetup: ["test/worker/loopback-servers.ts"],
      // Bursts of hundreds of requests through workerd take seconds on a busy 2-core machine;
      // the default 5 s would make them fail for the machine's load, not for what they check.
      testTimeout: 60_000,
      setupFiles: ["test/support/fast-check-seed.ts"],
      ...extra,
    },
  };
}

export default defineConfig({
  test: {
    // Log lines (a decision log line per request the Worker answers) are shown only for a
    // test that fails, beside its failure; a passing run prints the results alone.
    silent: "passed-only",
    // The JSON report is what CI's closing line is read from (scripts/test-summary.mjs).
    reporters: ["default", ["json", { outputFile: ".ci/report.json" }]],
    projects: [
      workerProject(
        "worker",
        ["test/worker/**/*.test.ts", "test/hostile/**/*.test.ts", "test/reliability/**/*.test.ts"],
        {
          exclude: READ_ONLY_WORKER_FILES,
        },
      ),
      workerProject("worker-read", READ_ONLY_WORKER_FILES, { isolate: false }),
      // Shadow evaluation counts every decision the Worker makes while a candidate is staged, and
      // the candidate is one per deployment: its tests get a Worker (and storage) of their own, so
      // the other files' traffic never lands in their exact counts.
      workerProject("worker-shadow", ["test/shadow/**/*.test.ts"], { fileParallelism: false }),
      // The unit tests beside the code, the engine suites and the CLI's (each leaves no module state,
      // environment variable or working folder changed, and stops the servers it starts) run one
      // after another in one Node process instead of a fresh one per file: a fresh process
      // re-imports the engines for each of the ~140 files, about 1 s per file on the loaded 2-core
      // machine (docs/performance.md, "The test suite's time").
      {
        test: {
          name: "node-shared",
          include: ["src/**/*.test.ts", ...SHARED_PROCESS_DIRS.map((d) => `test/${d}/**/*.test.ts`)],
          environment: "node",
          isolate: false,
          globalSetup: ["test/support/shared-data-notice.ts"],
          setupFiles: ["test/support/fast-check-seed.ts"],
          testTimeout: NODE_TEST_TIMEOUT_MS,
        },
      },
      {
        test: {
          name: "node",
          include: ["test/**/*.test.ts"],
          exclude: [
            ...SHARED_PROCESS_DIRS.map((d) => `test/${d}/**`),
            "test/worker/**",
            "test/hostile/**",
            "test/reliability/**",
            "test/shadow/**",
            "node_modules/**",
          ],
          environment: "node",
          // One line when ../shared/data is absent; the suites reading it skip themselves.
          globalSetup: ["test/support/shared-data-notice.ts"],
          setupFiles: ["test/support/fast-check-seed.ts"],
          testTimeout: NODE_TEST_TIMEOUT_MS,
        },
      },
    ],
  },
});
