import { cloudflareTest } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import type {} from "./test/worker/loopback-servers.js";

/** A project of tests running in workerd against this Worker, with the loopback fakes at the edge. */
function workerProject(name: string, include: string[], extra: { fileParallelism?: boolean } = {}) {
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
      workerProject("worker", ["test/worker/**/*.test.ts", "test/hostile/**/*.test.ts", "test/reliability/**/*.test.ts"]),
      // Shadow evaluation counts every decision the Worker makes while a candidate is staged, and
      // the candidate is one per deployment: its tests get a Worker (and storage) of their own, so
      // the other files' traffic never lands in their exact counts.
      workerProject("worker-shadow", ["test/shadow/**/*.test.ts"], { fileParallelism: false }),
      {
        test: {
          name: "node",
          include: ["src/**/*.test.ts", "test/**/*.test.ts"],
          exclude: ["test/worker/**", "test/hostile/**", "test/reliability/**", "test/shadow/**", "node_modules/**"],
          environment: "node",
          // One line when ../shared/data is absent; the suites reading it skip themselves.
          globalSetup: ["test/support/shared-data-notice.ts"],
        },
      },
    ],
  },
});
