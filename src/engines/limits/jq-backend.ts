/**
 * Adapter to the jq engine in src/jq. Until that engine lands this stub
 * refuses to compile, so jq-dependent limits fail to load with a clear message.
 */
import type { JsonObject } from "../common/json.js";
import { err, type Result } from "../common/result.js";
import type { CompiledJq } from "./jq-bridge.js";

/** What the limits engine needs from a jq implementation. */
export interface JqBackend {
  compile(text: string, args: JsonObject): Result<CompiledJq, string>;
}

/** The jq implementation in use. */
export const jqBackend: JqBackend = {
  compile: () => err("jq engine not available"),
};
