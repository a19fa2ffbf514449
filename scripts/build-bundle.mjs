#!/usr/bin/env node
// Compiles policies/ into the bundle the Worker embeds (src/bundle/embedded.generated.json),
// and embeds the playground page (scripts/build-playground.mjs).
// Run by `npm test` and, as wrangler.toml's [build] command, by `wrangler deploy` and
// `wrangler dev` (`npm start`), which runs it again whenever a file under policies/ changes.
// An invalid policy writes nothing and fails the build, except under `wrangler dev` with
// a bundle already built: a failed dev build would stall every request until the next good
// one, so there the errors are printed and the running server keeps the last good bundle.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { buildPlaygroundAssets } from "./build-playground.mjs";
import { compilerId } from "./compiler-id.mjs";

buildPlaygroundAssets();

const OUTPUT = "src/bundle/embedded.generated.json";
const run = spawnSync(process.execPath, ["bin/arbiter.mjs", "compile", "policies", "-o", OUTPUT], { stdio: "inherit" });
const status = run.status ?? 1;
if (status !== 0 && process.env.WRANGLER_COMMAND === "dev" && existsSync(OUTPUT)) {
  console.error("policies/ has errors (above): wrangler dev keeps serving the last good bundle until they are fixed");
  process.exit(0);
}
if (status === 0) {
  // The compiler's fingerprint goes in beside the revision (not part of it): a publish reuses
  // the compiled entries of bundles that carry the same one (scripts/compiler-id.mjs).
  const { revision, created_at, engines } = JSON.parse(readFileSync(OUTPUT, "utf8"));
  writeFileSync(OUTPUT, JSON.stringify({ revision, created_at, compiler: compilerId(), engines }) + "\n");
}
process.exit(status);
