import type { EngineName } from "../engines/common/engine.js";
import { ENGINES } from "./registry.js";
import type { Bundle } from "./types.js";

/**
 * A bundle ready to decide with. Engines are loaded (regexes, closures) on first
 * use only, so an isolate that answers one kind of question pays for one engine.
 */
export class LoadedBundle {
  private readonly loaded = new Map<EngineName, unknown>();

  constructor(readonly bundle: Bundle) {}

  /** The bundle's revision. */
  get revision(): string {
    return this.bundle.revision;
  }

  /** Whether the bundle holds a policy for this engine. */
  has(name: EngineName): boolean {
    return this.bundle.engines[name] !== undefined;
  }

  /** The loaded policy of an engine, or undefined when the bundle has none. */
  policy<P = unknown>(name: EngineName): P | undefined {
    if (this.loaded.has(name)) return this.loaded.get(name) as P;
    const entry = this.bundle.engines[name];
    if (!entry) return undefined;
    const policy = ENGINES[name].load(entry.compiled);
    this.loaded.set(name, policy);
    return policy as P;
  }
}
