/** Any JSON value, as policies and requests carry them. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** True for plain JSON objects (not arrays, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A deep copy of JSON data, keys in their order (structuredClone is not in every runtime we target, JSON is). */
export function cloneJson<T extends Json>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => cloneJson(v)) as T;
  // keys by index (no `[key, value]` pair per member, as Object.entries makes)
  const out: JsonObject = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) out[keys[i]] = cloneJson((value as JsonObject)[keys[i]]);
  return out as T;
}
