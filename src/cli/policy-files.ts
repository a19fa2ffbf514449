import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { compileBundle, ENGINES, type Bundle, type BundleError, type Sources } from "../bundle/index.js";
import type { EngineName } from "../engines/common/engine.js";
import type { Result } from "../engines/common/result.js";

/** Reads every engine's policy file that exists in a folder. */
export function readPolicyDir(dir: string): Sources {
  const sources: Sources = {};
  for (const [name, engine] of Object.entries(ENGINES) as [EngineName, (typeof ENGINES)[EngineName]][]) {
    const path = join(dir, engine.file);
    if (existsSync(path)) sources[name] = readFileSync(path, "utf8");
  }
  return sources;
}

/** Compiles a policies folder into a bundle. */
export async function compileDir(dir: string): Promise<Result<Bundle, BundleError[]>> {
  return compileBundle(readPolicyDir(dir), new Date().toISOString());
}

/** One error line as `arbiter validate` and `compile` print them: `file: at: message`. */
export function errorLine(e: BundleError): string {
  return `${ENGINES[e.engine].file}: ${e.at ? `${e.at}: ` : ""}${e.message}`;
}
