import type { EngineDefinition, EngineName } from "../engines/common/engine.js";
import { customsEngine } from "../engines/customs/index.js";
import { jobfilterEngine } from "../engines/jobfilter/index.js";
import { limitsEngine } from "../engines/limits/index.js";
import { matchEngine } from "../engines/classad/index.js";
import { placementEngine } from "../engines/placement/index.js";
import { closestName } from "../engines/common/did-you-mean.js";

/** Every engine the bundle knows, by name. */
export const ENGINES: Readonly<Record<EngineName, EngineDefinition>> = {
  limits: limitsEngine as EngineDefinition,
  placement: placementEngine as EngineDefinition,
  match: matchEngine as EngineDefinition,
  customs: customsEngine as EngineDefinition,
  jobfilter: jobfilterEngine as EngineDefinition,
};

/**
 * The file names that hold each engine's policy: Arbiter's own name first, then
 * the names the originals give the same file (pScheduler's `limits.conf`,
 * YuniKorn's `queues.yaml`, HTCondor's `condor_config`, `condor_config.local`
 * and `*.config` files of a config directory). `*` stands for any non-empty text.
 */
export const POLICY_FILE_NAMES: Readonly<Record<EngineName, readonly string[]>> = {
  limits: [limitsEngine.file, "limits.conf"],
  placement: [placementEngine.file, "queues.yaml"],
  match: [matchEngine.file, "condor_config", "condor_config.local", "*.config"],
  customs: [customsEngine.file],
  jobfilter: [jobfilterEngine.file],
};

function nameMatches(pattern: string, base: string): boolean {
  if (!pattern.startsWith("*")) return pattern === base;
  const tail = pattern.slice(1);
  return base.length > tail.length && base.endsWith(tail);
}

/** Finds an engine by name; undefined for names that are not engines. */
export function engineByName(name: string): EngineDefinition | undefined {
  return Object.prototype.hasOwnProperty.call(ENGINES, name) ? ENGINES[name as EngineName] : undefined;
}

/** Finds the engine whose policy file has this base name: ours (`limits.json`) or the origin's (`limits.conf`). */
export function engineForFile(fileName: string): EngineDefinition | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const name = (Object.keys(POLICY_FILE_NAMES) as EngineName[]).find((n) =>
    POLICY_FILE_NAMES[n].some((p) => nameMatches(p, base)),
  );
  return name === undefined ? undefined : ENGINES[name];
}

/**
 * The engine a wrong engine name most likely meant: the engine whose policy
 * file is called that (`pool` or `pool.conf` → `match`, with the file named),
 * else the engine name closest in spelling; undefined when nothing is close.
 */
export function suggestEngine(name: string): { engine: EngineName; file?: string } | undefined {
  for (const engine of Object.keys(POLICY_FILE_NAMES) as EngineName[]) {
    for (const file of POLICY_FILE_NAMES[engine]) {
      if (file.startsWith("*")) continue;
      if (file === name || file.replace(/\.[^.]*$/, "") === name) return { engine, file };
    }
  }
  const byFile = engineForFile(name);
  if (byFile) return { engine: byFile.name as EngineName, file: name };
  const near = closestName(name, Object.keys(ENGINES));
  return near === undefined ? undefined : { engine: near as EngineName };
}
