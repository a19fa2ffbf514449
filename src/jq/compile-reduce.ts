/**
 * In-place accumulation for `reduce SRC as $x (INIT; PATH = V)` and `PATH op= V` updates whose
 * keys and value do not read `.`: the accumulator's containers are copied once and then
 * mutated, as jq does with its reference-counted values, instead of copied per iteration.
 */
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import type { Val } from "./compile-single.js";
import { binop } from "./ops.js";
import { ALLOC, charge, chargeSize, COPY_KEY, KEY, sizeOf } from "./runtime.js";
import { setKeyOf } from "./paths.js";
import { indexValue } from "./ops.js";
import { clearOrdered, keysOf } from "./key-order.js";
import { copyObj, isObject, numOf, setKey, truthy } from "./values.js";

/** True when an expression's value cannot depend on `.` (literals, variables, operators on them). */
export function dotFree(n: Node): boolean {
  switch (n.k) {
    case "literal":
    case "var":
    case "loc":
      return true;
    case "neg":
      return dotFree(n.e);
    case "binop":
    case "and":
    case "or":
    case "alt":
      return dotFree(n.l) && dotFree(n.r);
    case "index":
      return dotFree(n.target) && dotFree(n.key);
    case "str":
      return n.parts.every((p) => typeof p === "string" || dotFree(p));
    case "array":
      return n.e !== null && dotFree(n.e);
    case "object":
      return n.entries.every((e) => dotFree(e.key) && dotFree(e.value));
    default:
      return false;
  }
}

/** The keys of a path `.[k1][k2]...` from `.`, or null when the node is not such a path. */
export function simplePath(n: Node): Node[] | null {
  const keys: Node[] = [];
  let cur = n;
  while (cur.k === "index") {
    if (!dotFree(cur.key) || cur.opt) return null;
    keys.unshift(cur.key);
    cur = cur.target;
  }
  return cur.k === "identity" && keys.length > 0 ? keys : null;
}

/** Sets `keys` in `acc`, copying each container once per reduce (tracked in `owned`), then mutating it. */
export function setOwned(acc: Json, keys: Json[], op: string, v: Json, owned: Set<object>): Json {
  const root = ownedContainer(acc, keys[0], owned);
  let c = root;
  for (let j = 0; j < keys.length; j++) {
    const k = numOf(keys[j]);
    const last = j === keys.length - 1;
    const old = c === null ? null : indexValue(c, k);
    if (last) {
      const nv = op === "=" ? v : op === "//" ? (truthy(old) ? old : v) : binop(op, old, v);
      assign(c, k, nv, owned);
    } else {
      const child = ownedContainer(old, keys[j + 1], owned);
      assign(c, k, child, owned);
      c = child;
    }
  }
  return root;
}

function ownedContainer(v: Json, nextKey: Json, owned: Set<object>): Json {
  if (v !== null && typeof v === "object" && owned.has(v)) return v;
  let c: Json;
  if (v === null) c = typeof numOf(nextKey) === "number" ? [] : {};
  else if (Array.isArray(v)) c = chargeSize(v).slice();
  else if (isObject(v)) {
    // charged before the copy, as setpath's copies are
    charge(COPY_KEY * sizeOf(v) + ALLOC);
    c = copyObj(v);
  } else return v;
  owned.add(c as object);
  return c;
}

function assign(c: Json, k: Json, v: Json, owned: Set<object>): void {
  if (typeof k === "string" && isObject(c)) {
    // a key new to the object is interned and grows its hidden class or hash table
    if (!Object.prototype.hasOwnProperty.call(c, k)) charge(KEY);
    setKey(c, k, v);
  } else if (
    typeof k === "number" &&
    Array.isArray(c) &&
    k >= 0 &&
    k === Math.trunc(k) &&
    k <= c.length + 1_000_000
  ) {
    if (k > c.length) charge(k - c.length);
    while (c.length < k) c.push(null);
    c[k] = v;
  } else {
    // unusual keys (negative, slices, errors): fall back to the copying setter for exact semantics
    const r = setKeyOf(c, k, v);
    if (r !== c && r !== null && typeof r === "object") {
      owned.add(r);
      if (Array.isArray(c) && Array.isArray(r)) {
        c.length = 0;
        c.push(...r);
      } else if (isObject(c) && isObject(r)) {
        clearOrdered(c);
        for (const key of keysOf(r)) setKey(c, key, r[key]);
      }
    }
  }
}

export type { Val };
