/**
 * The `arbiter` CLI bundled by esbuild, for the suites that run dozens of `./bin/arbiter.mjs`
 * commands (the docs examples, the browser suites): `ARBITER_CLI_BUNDLE=<path>` makes the bin
 * import it instead of compiling every source module through tsx again, about 0.7 s of CPU per
 * command. The bundle is named by a hash of every source file, so an edited source gets a new
 * one (never a stale one) and each test file after the first reuses it. Packages stay external,
 * loaded from node_modules as under tsx. The bin's own tsx path stays tested (test/cli/cli.test.ts).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { REPO_ROOT } from "./cases.js";

/** Every file under `dir` except tests, sorted, as paths relative to the checkout. */
function sources(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith(".test.ts"))
    .map((e) => join(e.parentPath, e.name).slice(REPO_ROOT.length + 1))
    .sort();
}

let built: Promise<string> | undefined;

/** How long an earlier source state's bundle is kept: a run still using it has finished by then. */
const STALE_MS = 60 * 60 * 1000;

/**
 * Removes the bundles of earlier source states (each edit of a source makes a new one, 1.3 MB)
 * not written for an hour, so node_modules does not fill up with them; `keep` is the current one.
 */
function removeStaleBundles(keep: string): void {
  const parent = join(REPO_ROOT, "node_modules");
  const now = Date.now();
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(".arbiter-cli-")) continue;
    const dir = join(parent, name);
    if (dir === keep) continue;
    try {
      if (now - statSync(dir).mtimeMs > STALE_MS) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Removed by another run meanwhile: nothing to do.
    }
  }
}

/**
 * The path of the bundle of the current sources, built on first use. It lies two folders
 * below the checkout (node_modules/.arbiter-cli-<hash>/main.mjs), as src/cli/*.ts do, so
 * their `new URL("../../…", import.meta.url)` finds the same files.
 */
export function cliBundle(): Promise<string> {
  built ??= (async () => {
    const hash = createHash("sha256");
    for (const file of sources("src"))
      hash
        .update(`${file}\0`)
        .update(readFileSync(join(REPO_ROOT, file)))
        .update("\0");
    const dir = join(REPO_ROOT, "node_modules", `.arbiter-cli-${hash.digest("hex").slice(0, 16)}`);
    const out = join(dir, "main.mjs");
    if (existsSync(out)) return out;
    mkdirSync(dir, { recursive: true });
    // Written under a name of its own, then renamed: two test files building at once never see half a file.
    const partial = join(dir, `main.${process.pid}.mjs`);
    await build({
      entryPoints: [join(REPO_ROOT, "src/cli/main.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      packages: "external",
      outfile: partial,
      logLevel: "error",
    });
    renameSync(partial, out);
    removeStaleBundles(dir);
    return out;
  })();
  return built;
}
