#!/usr/bin/env node
// Compiles policies/ into the bundle the Worker embeds (src/bundle/embedded.generated.json),
// and embeds the playground page (scripts/build-playground.mjs). `arbiter compile` stamps the
// bundle with the compiler's fingerprint (scripts/compiler-id.mjs), as it stamps every bundle it makes.
// Run by `npm test` and, as wrangler.toml's [build] command, by `wrangler deploy` and
// `wrangler dev` (`npm start`), which runs it again whenever a file under policies/ changes.
// An invalid policy writes nothing and fails the build, except under `wrangler dev` with
// a bundle already built: a failed dev build would stall every request until the next good
// one, so there the errors are printed and the running server keeps the last good bundle.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { buildPlaygroundAssets } from "./build-playground.mjs";

buildPlaygroundAssets();

const OUTPUT = "src/bundle/embedded.generated.json";
const run = spawnSync(process.execPath, ["bin/arbiter.mjs", "compile", "policies", "-o", OUTPUT], {
  stdio: "inherit",
});
const status = run.status ?? 1;
if (status !== 0 && process.env.WRANGLER_COMMAND === "dev" && existsSync(OUTPUT)) {
  console.error(
    "policies/ has errors (above): wrangler dev keeps serving the last good bundle until they are fixed",
  );
  process.exit(0);
}
process.exit(status);
