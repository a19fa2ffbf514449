import type { FilterRule } from "./types.js";

/**
 * The bundle's form of filter rules. A bundle is plain JSON (written with
 * JSON.stringify, to KV and to the embedded file), which has no bigints, so an
 * integer past 2^53 (a priority, a watermark, a reason-trail timestamp or a
 * predicate's value) is stored as `{"$int": "<its digits>"}`. A validated rule
 * holds no JSON object anywhere, so the tag cannot be mistaken for a value.
 */
export type StoredRules = readonly unknown[];

const TAG = "$int";

function encode(v: unknown): unknown {
  if (typeof v === "bigint") return { [TAG]: v.toString() };
  if (Array.isArray(v)) return v.map(encode);
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encode(x);
    return out;
  }
  return v;
}

function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>;
    const digits = o[TAG];
    if (typeof digits === "string" && Object.keys(o).length === 1) return BigInt(digits);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = decode(x);
    return out;
  }
  return v;
}

/** Writes validated rules in the bundle's JSON-safe form (bigints as tagged digit strings). */
export function storeRules(rules: readonly FilterRule[]): StoredRules {
  return rules.map(encode);
}

/** Reads rules back from the bundle's form, every tagged integer a bigint again with exactly its digits. */
export function restoreRules(stored: StoredRules): FilterRule[] {
  return stored.map(decode) as FilterRule[];
}
