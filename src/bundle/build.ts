import type { EngineDefinition, EngineName } from "../engines/common/engine.js";
import { finishInSlices, nextTurn } from "../engines/common/slices.js";
import { err, ok, type PolicyError, type Result } from "../engines/common/result.js";
import { sha256Hex } from "./canonical.js";
import { canonicalJsonSteps, jsonCopySteps } from "./json-steps.js";
import { ENGINES } from "./registry.js";
import type { Bundle, BundleEntry } from "./types.js";

/** Policy source texts by engine; an absent engine is simply not in the bundle. */
export type Sources = Partial<Record<EngineName, string>>;

/** A compile error of one engine's source, tagged with the engine so a bundle's errors stay readable. */
export interface BundleError extends PolicyError {
  readonly engine: EngineName;
}

/**
 * What a compile may take from an earlier bundle instead of compiling again:
 * `compiler` names the compiler that runs now (the embedded bundle's
 * fingerprint, scripts/compiler-id.mjs) and is written into the new bundle;
 * an engine of `base` whose source is unchanged is taken as it is, but only
 * when `base` names the same compiler. Without both, every source compiles.
 */
export interface CompileReuse {
  compiler?: string;
  base?: Bundle;
}

/**
 * Validates and compiles every source into one bundle. Any error in any source
 * fails the whole bundle: a bundle is either entirely good or not made at all.
 * Long work yields: each engine's compile at its checkpoints, the JSON copy
 * and the canonical text as they walk, and every stage after a pause
 * (`pause`, a macrotask by default; common/slices.ts), so a Worker serves
 * other requests while a large source compiles. With `reuse`, the engines
 * whose source `reuse.base` already holds, compiled by the same compiler, are
 * not compiled again: the bundle is the same, byte for byte, as a full compile's.
 */
export async function compileBundle(
  sources: Sources,
  createdAt: string,
  pause: () => Promise<void> = nextTurn,
  reuse: CompileReuse = {},
): Promise<Result<Bundle, BundleError[]>> {
  const errors: BundleError[] = [];
  const engines: Partial<Record<EngineName, BundleEntry>> = {};
  const { compiler, base } = reuse;
  const reusable = compiler !== undefined && base?.compiler === compiler ? base.engines : {};
  for (const name of Object.keys(ENGINES) as EngineName[]) {
    const source = sources[name];
    if (source === undefined) continue;
    const engine = ENGINES[name];
    const kept = await unchangedEntry(reusable[name], engine, source);
    if (kept !== undefined) {
      engines[name] = kept;
      continue;
    }
    const compiled = await compileSafely(engine, source, pause);
    if (!compiled.ok) {
      for (const e of compiled.error) errors.push({ ...e, engine: name });
      continue;
    }
    await pause();
    // A copy as a JSON round trip makes it, so the bundle holds exactly what KV will hold.
    const copied = await finishInSlices(jsonCopySteps(compiled.value), pause);
    await pause();
    engines[name] = {
      source_sha256: await sha256Hex(source),
      format: engine.format,
      compiled: copied,
      source,
    };
    await pause();
  }
  if (errors.length > 0) return err(errors);
  const revision = await sha256Hex(await finishInSlices(canonicalJsonSteps(engines), pause));
  return ok({ revision, created_at: createdAt, ...(compiler !== undefined ? { compiler } : {}), engines });
}

/**
 * An earlier entry as a compile of `source` would make it (same text, same
 * hash, same format, its fields in a compile's order), or undefined when
 * anything differs and the source must compile.
 */
async function unchangedEntry(
  entry: BundleEntry | undefined,
  engine: EngineDefinition,
  source: string,
): Promise<BundleEntry | undefined> {
  if (entry === undefined || entry.source !== source || entry.format !== engine.format) return undefined;
  if (entry.compiled === undefined || (await sha256Hex(source)) !== entry.source_sha256) return undefined;
  return { source_sha256: entry.source_sha256, format: entry.format, compiled: entry.compiled, source };
}

/** Runs an engine's compile (in slices where it has resumable steps), turning a thrown bug into a reported error rather than a crash. */
async function compileSafely(
  engine: EngineDefinition,
  source: string,
  pause: () => Promise<void>,
): Promise<Result<unknown, PolicyError[]>> {
  try {
    return engine.compileSteps
      ? await finishInSlices(engine.compileSteps(source), pause)
      : engine.compile(source);
  } catch (e) {
    return err([
      { code: "policy_compile_crashed", message: `compiler failed: ${(e as Error).message}`, at: "" },
    ]);
  }
}

/** Replaces one engine's source in a bundle's sources, for publishing a single policy. */
export function sourcesOf(bundle: Bundle): Sources {
  const out: Sources = {};
  for (const [name, entry] of Object.entries(bundle.engines) as [EngineName, BundleEntry][])
    out[name] = entry.source;
  return out;
}
