/**
 * Loads a module of ours bundled by esbuild, as wrangler ships the Worker,
 * instead of the TypeScript source under tsx: there every cross-module
 * reference (even a constant read per evaluation step) goes through a getter,
 * which doubled the ClassAd engine's figures. Falls back to the source module
 * when esbuild is missing, saying so.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** The module at `entry` (a path from the repository's root) bundled, or `source` with the reason it is not. */
export async function bundled<T>(
  entry: string,
  source: T,
): Promise<{ mod: T; how: string; fromBundle: boolean }> {
  let dir: string | undefined;
  try {
    const require = createRequire(import.meta.url);
    const esbuild = require("esbuild") as { build(o: object): Promise<unknown> };
    dir = mkdtempSync(path.join(tmpdir(), "arbiter-bench-bundle-"));
    const out = path.join(dir, "bundle.mjs");
    await esbuild.build({
      entryPoints: [path.resolve(import.meta.dirname, "..", entry)],
      bundle: true,
      format: "esm",
      platform: "neutral",
      outfile: out,
      logLevel: "silent",
    });
    return { mod: (await import(pathToFileURL(out).href)) as T, how: "esbuild bundle", fromBundle: true };
  } catch {
    return { mod: source, how: "TypeScript source under tsx (esbuild not found)", fromBundle: false };
  } finally {
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
}
