import { didYouMean } from "../engines/common/did-you-mean.js";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compilerId } from "../../scripts/compiler-id.mjs";
import {
  compileBundle,
  ENGINES,
  engineForFile,
  POLICY_FILE_NAMES,
  type Bundle,
  type BundleError,
  type Sources,
} from "../bundle/index.js";
import { ENGINE_NAMES, type EngineName } from "../engines/common/engine.js";
import type { Result } from "../engines/common/result.js";
import type { Io } from "./io.js";

/** What a policies folder holds: one file per engine at most, and the names it did not recognise. */
export interface PolicyFolder {
  readonly dir: string;
  /** The path of each engine's policy file that was found. */
  readonly files: Partial<Record<EngineName, string>>;
  readonly sources: Sources;
  /** Files whose names are no engine's (a typo such as `placement.yml` shows here). */
  readonly ignored: string[];
  /** Problems that keep the folder from compiling at all (two files for one engine, an unreadable folder). */
  readonly errors: string[];
}

/**
 * Reads a policies folder, recognising Arbiter's file names and the origins'
 * own (`limits.conf`, `queues.yaml`, `condor_config`, `*.config`). Two files
 * for one engine are an error naming both, never a silent choice.
 */
export function readPolicyDir(dir: string): PolicyFolder {
  const files: Partial<Record<EngineName, string>> = {};
  const sources: Sources = {};
  const ignored: string[] = [];
  const errors: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (e) {
    return {
      dir,
      files,
      sources,
      ignored,
      errors: [`cannot read the folder \`${dir}\`: ${(e as Error).message}`],
    };
  }
  const byEngine = new Map<EngineName, string[]>();
  for (const name of names) {
    const path = join(dir, name);
    if (name.startsWith(".") || isTestFileName(name) || !statSync(path).isFile()) continue;
    const engine = engineForFile(name);
    if (engine === undefined) ignored.push(name);
    else byEngine.set(engine.name, [...(byEngine.get(engine.name) ?? []), path]);
  }
  for (const [engine, paths] of byEngine) {
    if (paths.length > 1) {
      errors.push(`${paths.join(" and ")} both hold the ${engine} policy: keep one of them`);
      continue;
    }
    files[engine] = paths[0];
    try {
      sources[engine] = readFileSync(paths[0], "utf8");
    } catch (e) {
      errors.push(`cannot read \`${paths[0]}\`: ${(e as Error).message}`);
    }
  }
  return { dir, files, sources, ignored, errors };
}

/** Whether a file is a policy test file (`*.test.yaml`) that `arbiter test` runs rather than a policy. */
export function isTestFileName(name: string): boolean {
  return /\.test\.ya?ml$/.test(name);
}

/** The engines a folder holds no policy for, in the registry's order. */
export function missingEngines(folder: PolicyFolder): EngineName[] {
  return ENGINE_NAMES.filter((e) => folder.files[e] === undefined);
}

/** The file names an engine's policy is looked for under, for messages: `placement.yaml or queues.yaml`. */
export function lookedFor(engine: EngineName): string {
  const names = POLICY_FILE_NAMES[engine];
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

/**
 * The report every compile and publish prints on stderr: each engine found,
 * with its file, and each engine not found, with the names that were looked for.
 */
export function coverageReport(folder: PolicyFolder): string {
  const found = ENGINE_NAMES.filter((e) => folder.files[e] !== undefined).map(
    (e) => `${e} (${folder.files[e]})`,
  );
  const missing = missingEngines(folder).map((e) => `${e} (no ${lookedFor(e)})`);
  let text = `found: ${found.length > 0 ? found.join(", ") : "no policy file"}\n`;
  text += `not found: ${missing.length > 0 ? missing.join(", ") : "none"}\n`;
  if (folder.ignored.length > 0) text += `ignored (not a policy file name): ${folder.ignored.join(", ")}\n`;
  return text;
}

/** Parses repeated `--allow-missing ENGINE` values; an unknown engine name is an error text. */
export function allowedMissing(values: readonly string[]): Result<Set<EngineName>, string> {
  const out = new Set<EngineName>();
  for (const v of values) {
    if (!(ENGINE_NAMES as readonly string[]).includes(v)) {
      return {
        ok: false,
        error: `--allow-missing: there is no engine \`${v}\`${didYouMean(v, ENGINE_NAMES)} (engines: ${ENGINE_NAMES.join(", ")})`,
      };
    }
    out.add(v as EngineName);
  }
  return { ok: true, value: out };
}

/** The checkout this CLI runs from: its compiler's fingerprint is read from its sources. */
const CHECKOUT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Compiles the sources a folder holds into a bundle, stamped with the fingerprint
 * of the compiler in this checkout (scripts/compiler-id.mjs), as the Worker
 * stamps the bundles it compiles: a Worker built from the same sources then
 * takes the published entries of the engines a later publish leaves unchanged,
 * where an unstamped bundle made it compile every engine again.
 */
export async function compileFolder(folder: PolicyFolder): Promise<Result<Bundle, BundleError[]>> {
  return compileBundle(folder.sources, new Date().toISOString(), undefined, {
    compiler: compilerId(CHECKOUT),
  });
}

/**
 * What `arbiter compile` and `arbiter publish` share: reads DIR, reports on
 * stderr which engines were found, runs the command's own `refuse` check (a
 * reason, or null to go on) and compiles. Anything that stops it is printed,
 * then "nothing was <done>", and the answer is null.
 */
export async function bundleFromDir(
  dir: string,
  io: Io,
  done: string,
  refuse: (folder: PolicyFolder) => string | null = () => null,
): Promise<Bundle | null> {
  const folder = readPolicyDir(dir);
  if (folder.errors.length > 0) {
    for (const e of folder.errors) io.stderr(`${e}\n`);
    io.stderr(`nothing was ${done}\n`);
    return null;
  }
  io.stderr(coverageReport(folder));
  const reason = refuse(folder);
  if (reason !== null) {
    io.stderr(`${reason}nothing was ${done}\n`);
    return null;
  }
  const result = await compileFolder(folder);
  if (!result.ok) {
    for (const e of result.error) io.stderr(`${errorLine(fileOf(folder, e.engine), e)}\n`);
    io.stderr(`nothing was ${done}\n`);
    return null;
  }
  return result.value;
}

/**
 * One error line as `arbiter validate`, `compile` and `publish` print them:
 * `file:line:column: message` for text positions, `file: /pointer: message` otherwise.
 */
export function errorLine(file: string, e: { at: string; message: string }): string {
  if (/^\d+:\d+$/.test(e.at)) return `${file}:${e.at}: ${e.message}`;
  return `${file}: ${e.at ? `${e.at}: ` : ""}${e.message}`;
}

/** The file an engine's errors are reported under: the one read, or Arbiter's own name. */
export function fileOf(folder: PolicyFolder, engine: EngineName): string {
  return folder.files[engine] ?? join(folder.dir, ENGINES[engine].file);
}
