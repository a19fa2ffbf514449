/**
 * Every built-in function by lower-cased name, assembled once so a call site
 * resolves its function at compile time.
 */
import { CORE } from "./core.js";
import type { Builtin } from "./helpers.js";
import { REGEX } from "./regex.js";
import { STRINGS } from "./strings.js";
import { TIME } from "./time-fns.js";

/** The function table: unknown names are absent (and evaluate to ERROR). */
export const BUILTINS: ReadonlyMap<string, Builtin> = new Map([...CORE, ...STRINGS, ...REGEX, ...TIME]);
