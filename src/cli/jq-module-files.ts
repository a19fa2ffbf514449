/** `arbiter jq -L DIR`: modules read from disk with jq 1.7.1's search rules (src/linker.c). */
import { readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { Json } from "../engines/common/json.js";
import { ModuleLoadError, parseDataModule, type ModuleProvider, type ModuleRequest } from "../jq/index.js";

export interface ModuleSearch {
  /** The library search path: the `-L` directories, or jq's default `~/.jq`, `$ORIGIN/../lib/jq`, `$ORIGIN/../lib`. */
  libDirs: string[];
  /** Where relative search paths of the main program's imports start (jq: the `-f` file's folder, else `.`). */
  programOrigin: string;
  /** What `$ORIGIN/` stands for (jq: the folder of the jq executable). */
  origin: string;
  /** The folder `.` means (the process's working directory). */
  cwd: string;
  /** For `~/` in search paths. */
  home: string | undefined;
}

/** jq's default library search path, used when no `-L` is given. */
export const DEFAULT_LIB_DIRS = ["~/.jq", "$ORIGIN/../lib/jq", "$ORIGIN/../lib"];

/** A path as jq's jq_realpath gives it: the real path when it exists, else the path as it is. */
export function realPath(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
}

/** jq's validate_relpath: module names are relative, `/`-separated, without `..` or a repeated component. */
function checkRelPath(name: string): void {
  if (name.includes("\\"))
    throw new ModuleLoadError(`Modules must be named by relative paths using '/', not '\\' (${name})`);
  const parts = name.split("/");
  parts.forEach((p, i) => {
    if (p === "..")
      throw new ModuleLoadError(`Relative paths to modules may not traverse to parent directories (${name})`);
    if (i > 0 && p === parts[i - 1])
      throw new ModuleLoadError(`module names must not have equal consecutive components: ${name}`);
  });
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/** The folders an import searches, in order (jq's default_search and build_lib_search_chain). */
function searchChain(req: ModuleRequest, s: ModuleSearch): string[] {
  const meta =
    req.meta !== null && typeof req.meta === "object" && !Array.isArray(req.meta)
      ? (req.meta as Record<string, Json>)
      : null;
  let search: Json[];
  let libOrigin: string | null = req.from === null ? s.programOrigin : path.dirname(req.from);
  if (req.forMeta) {
    search = s.libDirs;
    libOrigin = null;
  } else if (meta !== null && meta.search !== undefined)
    search = Array.isArray(meta.search) ? meta.search : [meta.search];
  else search = [".", ...s.libDirs];
  const out: string[] = [];
  for (const entry of search) {
    if (typeof entry !== "string" || entry === "") continue;
    let p = entry;
    if (p.length > 1 && p.startsWith("~/")) {
      if (s.home === undefined) continue;
      p = `${s.home}/${p.slice(2)}`;
    }
    if (p === ".") out.push(s.cwd);
    else if (p.startsWith("$ORIGIN/")) out.push(`${s.origin}/${p.slice("$ORIGIN/".length)}`);
    else if (libOrigin !== null && !path.isAbsolute(p)) out.push(`${libOrigin}/${p}`);
    else out.push(path.resolve(s.cwd, p));
  }
  return out;
}

/** Modules on disk, found as jq 1.7.1 finds them: `<dir>/<name>.jq`, `<dir>/<name>/jq/main.jq`, `<dir>/<name>/<base>.jq` (`.json` for data). */
export function moduleFiles(s: ModuleSearch): ModuleProvider {
  return {
    find(req) {
      checkRelPath(req.path);
      const suffix = req.data ? ".json" : ".jq";
      const base = req.path.slice(req.path.lastIndexOf("/") + 1);
      for (const dir of searchChain(req, s)) {
        const file = [
          `${dir}/${req.path}${suffix}`,
          `${dir}/${req.path}/jq/main${suffix}`,
          `${dir}/${req.path}/${base}${suffix}`,
        ]
          .map((f) => path.resolve(s.cwd, f))
          .find(exists);
        if (file === undefined) continue;
        const id = realPath(file);
        let text: string;
        try {
          text = readFileSync(id, "utf8");
        } catch (e) {
          throw new ModuleLoadError(`error loading data file ${id}: ${(e as Error).message}`);
        }
        return req.data ? { id, data: parseDataModule(id, text) } : { id, source: text };
      }
      return undefined;
    },
  };
}
