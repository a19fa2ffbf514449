export { compileBundle, sourcesOf, type BundleError, type CompileReuse, type Sources } from "./build.js";
export { canonicalJson, sha256Hex } from "./canonical.js";
export { canonicalJsonSteps, jsonBytesSteps, jsonCopySteps } from "./json-steps.js";
export { LoadedBundle } from "./load.js";
export { ENGINES, engineByName, engineForFile, POLICY_FILE_NAMES } from "./registry.js";
export type { Bundle, BundleEntry } from "./types.js";
export { EMBEDDED_POINTER, isEmbeddedPointer } from "./pointer.js";
