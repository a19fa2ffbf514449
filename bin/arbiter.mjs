#!/usr/bin/env node
// The `arbiter` command: runs the TypeScript sources through tsx so the CLI
// and the Worker share one implementation of every engine.

// A reader that stops early (`arbiter … | head`) closes the pipe: end quietly with the
// status a shell reports for jq killed by SIGPIPE (128 + 13), not with a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(141);
  throw error;
});

// ARBITER_CLI_BUNDLE names the same sources already bundled by esbuild (the test suites that run
// dozens of commands build one per source state, test/support/cli-bundle.ts): tsx compiling
// every module again costs each command about 0.7 s of CPU.
const bundled = process.env.ARBITER_CLI_BUNDLE;
let main;
if (bundled) {
  const { pathToFileURL } = await import("node:url");
  ({ main } = await import(pathToFileURL(bundled).href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import("../src/cli/main.ts"));
}
process.exitCode = await main(process.argv.slice(2));
