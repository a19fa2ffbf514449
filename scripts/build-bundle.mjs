#!/usr/bin/env node
// Compiles policies/ into the bundle the Worker embeds (src/bundle/embedded.generated.json),
// and embeds the playground page (scripts/build-playground.mjs). `arbiter compile` stamps the
// bundle with the compiler's fingerprint (scripts/compiler-id.mjs), as it stamps every bundle it makes.
// Run by `npm test` and, as wrangler.toml's [build] command, by `wrangler deploy` and
// `wrangler dev` (`npm start`), which runs it again whenever a file under policies/ changes.
// An invalid policy writes nothing and fails the build, except under `wrangler dev` with
// a bundle already built: a failed dev build would stall every request until the next good
// one, so there the errors are printed and the running server keeps the last good bundle.
//
// A build whose inputs are those of the last good build (the compiler's fingerprint, the
// compile command's own code under src/cli, and every file of policies/, byte for byte) and
// whose output is still the file that build wrote keeps that file and compiles nothing.
// wrangler dev builds twice at start (once for its first bundle, again when its watcher of
// policies/ and playground/ becomes ready), and every test that starts it paid for both.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildPlaygroundAssets } from "./build-playground.mjs";
import { compilerId } from "./compiler-id.mjs";

buildPlaygroundAssets();

// The folder and the output are fixed; ARBITER_BUILD_POLICIES and ARBITER_BUILD_OUTPUT move them
// for test/cli/build-bundle.test.ts only.
const POLICIES = process.env.ARBITER_BUILD_POLICIES ?? "policies";
const OUTPUT = process.env.ARBITER_BUILD_OUTPUT ?? "src/bundle/embedded.generated.json";
const STAMP = OUTPUT.replace(/\.json$/, "") + ".stamp";

/** A digest of what the compile reads: the compiler's fingerprint and the folder's files. */
function inputsDigest() {
  const hash = createHash("sha256");
  hash.update(`${compilerId()}\0`);
  // the compile command itself, which the compiler's fingerprint leaves out
  for (const name of readdirSync("src/cli", { recursive: true }).sort()) {
    const path = join("src/cli", name);
    if (!statSync(path).isFile()) continue;
    hash.update(`${path}\0`);
    hash.update(readFileSync(path));
    hash.update("\0");
  }
  for (const name of readdirSync(POLICIES).sort()) {
    const path = join(POLICIES, name);
    if (!statSync(path).isFile()) continue;
    hash.update(`${name}\0`);
    hash.update(readFileSync(path));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

const inputs = inputsDigest();
if (existsSync(OUTPUT) && existsSync(STAMP)) {
  const stamp = readFileSync(STAMP, "utf8").split("\n");
  if (stamp[0] === inputs && stamp[1] === sha256(readFileSync(OUTPUT))) {
    console.log(`policies/ and the compiler are unchanged since the last build: ${OUTPUT} kept`);
    process.exit(0);
  }
}
rmSync(STAMP, { force: true });

const run = spawnSync(process.execPath, ["bin/arbiter.mjs", "compile", POLICIES, "-o", OUTPUT], {
  stdio: "inherit",
});
const status = run.status ?? 1;
if (status === 0) writeFileSync(STAMP, `${inputs}\n${sha256(readFileSync(OUTPUT))}\n`);
if (status !== 0 && process.env.WRANGLER_COMMAND === "dev" && existsSync(OUTPUT)) {
  console.error(
    "policies/ has errors (above): wrangler dev keeps serving the last good bundle until they are fixed",
  );
  process.exit(0);
}
process.exit(status);
