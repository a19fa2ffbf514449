import type { EngineName } from "../engines/common/engine.js";
import { ENGINES } from "./registry.js";
import type { Bundle, BundleEntry } from "./types.js";

/**
 * A bundle ready to decide with. Engines are loaded (regexes, closures) on first
 * use only, so an isolate that answers one kind of question pays for one engine.
 */
export class LoadedBundle {
  private readonly loaded = new Map<EngineName, unknown>();

  /**
   * `earlier`: bundles this isolate already decides with. An engine one of them
   * has loaded from the same compiled entry (see {@link sameEntry}) is taken as
   * it is, so a publish of one engine makes the isolate load that engine only.
   */
  constructor(
    readonly bundle: Bundle,
    earlier: readonly LoadedBundle[] = [],
  ) {
    for (const other of earlier)
      for (const [name, policy] of other.loaded)
        if (!this.loaded.has(name) && sameEntry(other.bundle, bundle, name)) this.loaded.set(name, policy);
  }

  /** The bundle's revision. */
  get revision(): string {
    return this.bundle.revision;
  }

  /** Whether the bundle holds a policy for this engine. */
  has(name: EngineName): boolean {
    return this.bundle.engines[name] !== undefined;
  }

  /** Whether this engine's policy is loaded already (taken from an earlier bundle or used once). */
  isLoaded(name: EngineName): boolean {
    return this.loaded.has(name);
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

/**
 * Whether two bundles hold the same compiled entry for an engine: the very same
 * data, or the same source (hash) and format compiled by the same compiler (both
 * bundles carry its fingerprint). Bundles without a fingerprint are not trusted
 * to agree, and their engine loads again.
 */
function sameEntry(a: Bundle, b: Bundle, name: EngineName): boolean {
  const x: BundleEntry | undefined = a.engines[name];
  const y: BundleEntry | undefined = b.engines[name];
  if (x === undefined || y === undefined) return false;
  if (x === y || x.compiled === y.compiled) return true;
  return (
    a.compiler !== undefined &&
    a.compiler === b.compiler &&
    x.source_sha256 === y.source_sha256 &&
    x.format === y.format
  );
}
