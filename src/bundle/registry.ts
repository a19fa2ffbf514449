import type { EngineDefinition, EngineName } from "../engines/common/engine.js";
import { customsEngine } from "../engines/customs/index.js";
import { jobfilterEngine } from "../engines/jobfilter/index.js";
import { limitsEngine } from "../engines/limits/index.js";
import { matchEngine } from "../engines/classad/index.js";
import { placementEngine } from "../engines/placement/index.js";

/** Every engine the bundle knows, by name. */
export const ENGINES: Readonly<Record<EngineName, EngineDefinition>> = {
  limits: limitsEngine as EngineDefinition,
  placement: placementEngine as EngineDefinition,
  match: matchEngine as EngineDefinition,
  customs: customsEngine as EngineDefinition,
  jobfilter: jobfilterEngine as EngineDefinition,
};

/** Finds an engine by name; undefined for names that are not engines. */
export function engineByName(name: string): EngineDefinition | undefined {
  return Object.prototype.hasOwnProperty.call(ENGINES, name) ? ENGINES[name as EngineName] : undefined;
}

/** Finds the engine whose policy file has this base name (`limits.json`, `pool.conf`, …). */
export function engineForFile(fileName: string): EngineDefinition | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  return Object.values(ENGINES).find((e) => e.file === base);
}
