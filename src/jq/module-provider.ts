/** Where `import` and `include` find modules: jq source for code modules, JSON values for data modules. */
import type { Json } from "../engines/common/json.js";
import { parseJsonSeq } from "./json-parse.js";
import { JqError } from "./values.js";

/** One `import`/`include` to resolve. */
export interface ModuleRequest {
  /** The path string as written (`import "a/b" as x;` gives `a/b`). */
  path: string;
  /** `import "x" as $x;`: JSON data, not jq source. */
  data: boolean;
  /** The id of the importing module; null for the main program. */
  from: string | null;
  /** The import's metadata object (`{search: "./"}`), or null. */
  meta: Json | null;
  /** Resolving for `modulemeta` (jq searches only the library path then). */
  forMeta?: boolean;
}

/** A found module: `id` names it (two imports with the same id share one compiled module). */
export type FoundModule = { id: string; source: string } | { id: string; data: Json[] };

/**
 * Finds modules. `find` returns undefined when there is no such module (the program then fails with
 * jq's `module not found: <path>`), or throws a ModuleLoadError with jq's text when one cannot be loaded.
 */
export interface ModuleProvider {
  find(request: ModuleRequest): FoundModule | undefined;
}

/** A module that exists but cannot be loaded (unreadable, bad JSON, a bad module path). */
export class ModuleLoadError extends Error {}

/**
 * The modules given as a name → text record: `import "name"` reads entry `name` as jq source and
 * `import "name" as $x;` reads entry `name.json` as a sequence of JSON values (as jq reads a data file).
 */
export function recordModules(modules: Record<string, string>): ModuleProvider {
  const own = (k: string): string | undefined =>
    Object.prototype.hasOwnProperty.call(modules, k) ? modules[k] : undefined;
  return {
    find(req) {
      if (!req.data) {
        const source = own(req.path);
        return source === undefined ? undefined : { id: req.path, source };
      }
      const text = own(req.path + ".json");
      if (text === undefined) return undefined;
      return { id: req.path + ".json", data: parseDataModule(req.path + ".json", text) };
    },
  };
}

/** A data module's values, or jq's `jq: error loading data file` message (src/linker.c load_library). */
export function parseDataModule(name: string, text: string): Json[] {
  try {
    return parseJsonSeq(text, true);
  } catch (e) {
    if (e instanceof JqError)
      throw new ModuleLoadError(`error loading data file ${name}: ${String(e.value)}`);
    throw e;
  }
}
