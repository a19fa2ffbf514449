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

/**
 * The value with every tagged integer a bigint again: a container holding none
 * is given back as it is (not copied), so loading thousands of rules without
 * big integers allocates nothing per rule (the bundle's parsed data is only read).
 */
function decode(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      const d = decode(x);
      if (out === null && d !== x) out = v.slice(0, i);
      if (out !== null) out.push(d);
    }
    return out ?? v;
  }
  const o = v as Record<string, unknown>;
  const digits = o[TAG];
  if (typeof digits === "string" && Object.keys(o).length === 1) return BigInt(digits);
  let out: Record<string, unknown> | null = null;
  for (const k in o) {
    const x = o[k];
    const d = decode(x);
    if (out === null && d !== x) out = { ...o };
    if (out !== null) out[k] = d;
  }
  return out ?? o;
}

/** Writes validated rules in the bundle's JSON-safe form (bigints as tagged digit strings). */
export function storeRules(rules: readonly FilterRule[]): StoredRules {
  return rules.map(encode);
}

/** Reads rules back from the bundle's form, every tagged integer a bigint again with exactly its digits. */
export function restoreRules(stored: StoredRules): FilterRule[] {
  return stored.map(decode) as FilterRule[];
}
