/**
 * The quick path of decoding a placement rule: a rule written plainly (known
 * keys, each once, with scalars, sequences of scalars and mappings where the
 * struct has them, no aliases) is read by a switch on each key, without the
 * general decoder's field lookups. Anything else, and so every rule that has an
 * error, gives null, and parse.ts decodes the rule the general way; both give
 * the same rule (yaml-quick.test.ts holds them to it).
 */
import type { RawFilter, RawRule } from "./types.js";
import type { YamlNode, YamlPair } from "./yaml-node.js";

/** How many parent rules deep the quick path goes; deeper chains are decoded the general way. */
const MAX_QUICK_PARENTS = 8;

/** Bits of the keys a mapping has had, to find a repeated one. */
const NAME = 1;
const CREATE = 2;
const FILTER = 4;
const PARENT = 8;
const VALUE = 16;
const TYPE = 32;
const USERS = 64;
const GROUPS = 128;

/** The text a string field takes from a value (null as ""), or null when it is not a scalar. */
function text(v: YamlNode): string | null {
  if (v.kind !== "scalar") return null;
  const value = v.value;
  return value === null ? "" : typeof value === "string" ? value : v.source;
}

/** Whether the value is a null scalar. */
function isNullScalar(v: YamlNode): boolean {
  return v.kind === "scalar" && v.value === null;
}

/** The key of a pair as a struct reads it when it is plain text, else null. */
function keyOf(pair: YamlPair): string | null {
  const k = pair.key;
  return k.kind === "scalar" && k.type === "str" ? (k.value as string) : null;
}

/** A `[]string` field: a sequence of scalars, or null (absent or null) as []; null for anything else. */
function texts(v: YamlNode): string[] | null {
  if (isNullScalar(v)) return [];
  if (v.kind !== "seq") return null;
  const items = v.items;
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const t = text(items[i]);
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

/** A rule's filter mapping, or null where the general path must decode it. */
function quickFilter(v: YamlNode): RawFilter | null {
  if (isNullScalar(v)) return { type: "", users: [], groups: [] };
  if (v.kind !== "map") return null;
  let type = "";
  let users: string[] | null = [];
  let groups: string[] | null = [];
  let seen = 0;
  for (const pair of v.pairs) {
    const key = keyOf(pair);
    let bit: number;
    switch (key) {
      case "type": {
        bit = TYPE;
        const t = text(pair.value);
        if (t === null) return null;
        type = t;
        break;
      }
      case "users":
        bit = USERS;
        users = texts(pair.value);
        if (users === null) return null;
        break;
      case "groups":
        bit = GROUPS;
        groups = texts(pair.value);
        if (groups === null) return null;
        break;
      default:
        return null;
    }
    if ((seen & bit) !== 0) return null;
    seen |= bit;
  }
  return { type, users, groups };
}

/**
 * A placement rule at pointer `at` decoded by the quick path, or null where
 * the general decoder must read it (see the file's comment).
 */
export function quickRule(v: YamlNode, at: string, parents = 0): RawRule | null {
  if (v.kind !== "map") return null;
  let name = "";
  let create = false;
  let filter: RawFilter = { type: "", users: [], groups: [] };
  let parent: RawRule | null = null;
  let value = "";
  let seen = 0;
  for (const pair of v.pairs) {
    const key = keyOf(pair);
    const val = pair.value;
    let bit: number;
    switch (key) {
      case "name": {
        bit = NAME;
        const t = text(val);
        if (t === null) return null;
        name = t;
        break;
      }
      case "create":
        bit = CREATE;
        if (val.kind !== "scalar" || (val.value !== null && typeof val.value !== "boolean")) return null;
        create = val.value === true;
        break;
      case "filter": {
        bit = FILTER;
        const f = quickFilter(val);
        if (f === null) return null;
        filter = f;
        break;
      }
      case "parent":
        bit = PARENT;
        if (!isNullScalar(val)) {
          if (parents >= MAX_QUICK_PARENTS) return null;
          parent = quickRule(val, `${at}/parent`, parents + 1);
          if (parent === null) return null;
        }
        break;
      case "value": {
        bit = VALUE;
        const t = text(val);
        if (t === null) return null;
        value = t;
        break;
      }
      default:
        return null;
    }
    if ((seen & bit) !== 0) return null;
    seen |= bit;
  }
  return { name, create, filter, parent, value, at };
}
