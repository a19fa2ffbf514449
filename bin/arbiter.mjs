#!/usr/bin/env node
// The `arbiter` command: runs the TypeScript sources through tsx so the CLI
// and the Worker share one implementation of every engine.
import { register } from "tsx/esm/api";

// A reader that stops early (`arbiter … | head`) closes the pipe: end quietly with the
// status a shell reports for jq killed by SIGPIPE (128 + 13), not with a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(141);
  throw error;
});

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
