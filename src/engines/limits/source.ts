/**
 * Reading a limits file: JSON with `#` comment members removed at every depth
 * (pScheduler's comment convention), last duplicate key winning.
 */
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";

/** Removes every member whose key starts with `#`, inside objects and arrays alike. */
export function stripComments(value: Json): Json {
  if (Array.isArray(value)) return value.map(stripComments);
  if (isJsonObject(value)) {
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) if (!k.startsWith("#")) out[k] = stripComments(v);
    return out;
  }
  return value;
}

/** Parses the limits text into a comment-free JSON value, or the parse error text. */
export function parseLimitsText(text: string): Result<Json, string> {
  let parsed: Json;
  try {
    parsed = JSON.parse(text) as Json;
  } catch (e) {
    return err(`Invalid limit configuration: ${e instanceof Error ? e.message : String(e)}`);
  }
  return ok(stripComments(parsed));
}

/** A deep copy of JSON data (structuredClone is not in every runtime we target, JSON is). */
export function cloneJson<T extends Json>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) out[k] = cloneJson(v);
  return out as T;
}
