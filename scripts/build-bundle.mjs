#!/usr/bin/env node
// Compiles policies/ into the bundle the Worker embeds (src/bundle/embedded.generated.json).
// Run by `npm start` and `npm test`; fails, and writes nothing, when a policy is invalid.
import { spawnSync } from "node:child_process";

const run = spawnSync(
  process.execPath,
  ["bin/arbiter.mjs", "compile", "policies", "-o", "src/bundle/embedded.generated.json"],
  { stdio: "inherit" },
);
process.exit(run.status ?? 1);
