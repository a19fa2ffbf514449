export { compileBundle, sourcesOf, type BundleError, type Sources } from "./build.js";
export { canonicalJson, sha256Hex } from "./canonical.js";
export { LoadedBundle } from "./load.js";
export { ENGINES, engineByName, engineForFile } from "./registry.js";
export type { Bundle, BundleEntry } from "./types.js";
