import type { PolicyError, Result } from "./result.js";
import type { Steps } from "./slices.js";

/** The engines a bundle can hold, by the name used in routes and the CLI. */
export const ENGINE_NAMES = ["limits", "placement", "match", "customs", "jobfilter"] as const;

/** One of the bundle's engines. */
export type EngineName = (typeof ENGINE_NAMES)[number];

/**
 * What every engine gives the bundle. `compile` validates a source text and
 * returns plain JSON data (stored in the bundle, so it must survive
 * JSON.stringify); `load` turns that data into the ready-to-decide policy
 * (regexes, closures, indexes), once per isolate and revision. Deciding is
 * engine-specific and lives beside the engine.
 */
export interface EngineDefinition<Data = unknown, Policy = unknown> {
  readonly name: EngineName;
  /** The file in `policies/` holding this engine's source. */
  readonly file: string;
  /** A short name of the source format, e.g. `yunikorn-yaml`. */
  readonly format: string;
  compile(source: string): Result<Data, PolicyError[]>;
  /**
   * The same compile as resumable work (common/slices.ts), yielding at
   * checkpoints so that a Worker serves other requests meanwhile; engines
   * without it compile in one go.
   */
  readonly compileSteps?: (source: string) => Steps<Result<Data, PolicyError[]>>;
  load(data: Data): Policy;
}
