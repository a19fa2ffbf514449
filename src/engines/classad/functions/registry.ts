/**
 * Every built-in function by lower-cased name, assembled once so a call site
 * resolves its function at compile time.
 */
import { CONTEXTS } from "./contexts.js";
import { CORE } from "./core.js";
import { ENVIRONMENT } from "./environment.js";
import { EVAL } from "./eval.js";
import type { Builtin } from "./helpers.js";
import { HOST_LOOKUPS } from "./host-lookups.js";
import { REFERENCES } from "./references.js";
import { REGEX } from "./regex.js";
import { SPLIT } from "./split.js";
import { STRING_LISTS } from "./string-lists.js";
import { STRINGS } from "./strings.js";
import { TIME } from "./time-fns.js";

/** The function table: unknown names are absent (and evaluate to ERROR). */
export const BUILTINS: ReadonlyMap<string, Builtin> = new Map([
  ...CORE,
  ...EVAL,
  ...STRINGS,
  ...REFERENCES,
  ...STRING_LISTS,
  ...SPLIT,
  ...REGEX,
  ...TIME,
  ...CONTEXTS,
  ...HOST_LOOKUPS,
  ...ENVIRONMENT,
]);
