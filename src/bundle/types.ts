import type { EngineName } from "../engines/common/engine.js";

/** One engine's part of a bundle: its source, the source's hash, and the compiled data. */
export interface BundleEntry {
  source_sha256: string;
  format: string;
  compiled: unknown;
  source: string;
}

/**
 * A validated, compiled set of policies. `revision` is the sha256 of the
 * canonical JSON of `engines`, so equal policies always give equal revisions.
 */
export interface Bundle {
  revision: string;
  created_at: string;
  /**
   * The fingerprint of the compiler that made the entries (scripts/compiler-id.mjs),
   * outside the revision; absent in bundles made without one, whose entries a
   * publish never reuses.
   */
  compiler?: string;
  engines: Partial<Record<EngineName, BundleEntry>>;
}
