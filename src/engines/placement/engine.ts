import type { EngineDefinition } from "../common/engine.js";
import type { PolicyError, Result } from "../common/result.js";
import type { Steps } from "../common/slices.js";
import { compilePlacement, compilePlacementSteps } from "./compile.js";
import { loadPlacement } from "./load.js";
import { storePlacement, storePlacementSteps, type StoredPlacement } from "./store.js";
import type { PlacementData, PlacementPolicy } from "./types.js";

type Compiled = Result<PlacementData, PolicyError[]>;

function stored(r: Compiled): Result<StoredPlacement, PolicyError[]> {
  return r.ok ? { ok: true, value: storePlacement(r.value) } : r;
}

/**
 * The placement engine as the bundle sees it: YuniKorn YAML in, the compiled
 * data stored as columns (store.ts, so the first decision parses it quickly),
 * fast policy loaded.
 */
export const placementEngine: EngineDefinition<StoredPlacement | PlacementData, PlacementPolicy> = {
  name: "placement",
  file: "placement.yaml",
  format: "yunikorn-yaml",
  compile: (source) => stored(compilePlacement(source)),
  compileSteps: function* (source): Steps<Result<StoredPlacement, PolicyError[]>> {
    const r: Compiled = yield* compilePlacementSteps(source);
    if (!r.ok) return r;
    yield;
    return { ok: true, value: yield* storePlacementSteps(r.value) };
  },
  load: loadPlacement,
};
