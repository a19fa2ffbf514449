/** getpath / setpath / delpaths on immutable values, as jq 1.7.1's jv_aux does. */
import type { Json } from "../engines/common/json.js";
import { copySet, keyCount, keysOf, loadAt, orderOf, storeAt } from "./key-order.js";
import { indexValue, sliceKeyBounds } from "./ops.js";
import { ALLOC, charge, chargeSort, COPY_KEY, KEY, sizeOf } from "./runtime.js";
import { compare, copyObj, equals, fail, isObject, numOf, setKey, typeOf, type JObj } from "./values.js";

const isObj = isObject;

/** Follows a path; null when a step is missing. */
export function getPath(v: Json, path: Json): Json {
  if (!Array.isArray(path)) return fail("Path must be specified as an array");
  let cur = v;
  // jq 1.7.1's jv_getpath reads every key, even from null (`null | getpath([true])` fails)
  for (const k of path) cur = indexValue(cur, k);
  return cur;
}

/** Sets one key of a container, creating it from null. */
export function setKeyOf(t: Json, k: Json, v: Json): Json {
  k = numOf(k);
  if (typeof k === "string" && (t === null || isObj(t))) {
    // charged before the copy, so the budget ends a copy it cannot pay before it is made
    charge((t === null ? 0 : COPY_KEY * sizeOf(t)) + KEY + ALLOC);
    const r = t === null ? {} : copyObj(t);
    setKey(r, k, v);
    return r;
  }
  if (typeof k === "number" && (t === null || Array.isArray(t))) {
    if (t !== null && t.length > 0) charge(t.length);
    const a = t === null ? [] : t.slice();
    if (k !== k) return fail("Cannot set array element at NaN index");
    // jq 1.7.1 (jv_set): clamped to an int and truncated toward zero
    let i = k < -2147483648 ? -2147483648 : k > 2147483647 ? 2147483647 : Math.trunc(k);
    if (i < 0) {
      i += a.length;
      if (i < 0) return fail("Out of bounds negative array index");
    }
    if (i > 100_000_000) return fail("Array index too large");
    if (i > a.length) charge(i - a.length);
    while (a.length < i) a.push(null);
    a[i] = v;
    return a;
  }
  if (isObj(k) && (t === null || Array.isArray(t))) {
    const a = t === null ? [] : t;
    if (!Array.isArray(v)) return fail("A slice of an array can only be assigned another array");
    const [s, e] = sliceKeyBounds(a.length, k);
    charge(a.length + v.length);
    return a.slice(0, s).concat(v, a.slice(e));
  }
  if (isObj(k) && typeof t === "string") return fail("Cannot update string slices");
  // reached when reading the key succeeded (setpath reads first): jq 1.7.1's jv_set error
  return fail(`Cannot update field at ${typeOf(k)} index of ${typeOf(t)}`);
}

/**
 * {@link setKeyOf} for a literal string key `k` with its load site `s` (`fieldSite`): the same
 * charge, copy and errors, the copy and the store made through sites that stay fast.
 */
export function setFieldOf(t: Json, k: string, s: number, v: Json): Json {
  if (t === null || !isObj(t)) return setKeyOf(t, k, v);
  // charged before the copy, as setKeyOf
  charge(COPY_KEY * keyCount(t) + KEY + ALLOC);
  return copySet(t, k, s, v) as JObj;
}

/** Returns a copy of `v` with the value at `path` replaced. */
export function setPath(v: Json, path: Json, x: Json): Json {
  if (!Array.isArray(path)) return fail("Path must be specified as an array");
  return setIn(v, path, 0, x);
}

function setIn(v: Json, path: Json[], i: number, x: Json): Json {
  if (i === path.length) return x;
  const k = path[i];
  const sub = v === null ? null : subValue(v, k);
  return setKeyOf(v, k, setIn(sub, path, i + 1, x));
}

function subValue(v: Json, k: Json): Json {
  if (isObj(k) && Array.isArray(v)) {
    const [s, e] = sliceKeyBounds(v.length, k);
    return v.slice(s, e);
  }
  return indexValue(v, k);
}

/**
 * Deletes the keys of one container at once, as jq 1.7.1's jv_dels: array indices (negative ones
 * count from the end, fractions truncate) and slices are all resolved against the original array.
 */
function delKeys(t: Json, keys: Json[]): Json {
  if (t === null || keys.length === 0) return t;
  if (Array.isArray(t)) {
    const len = t.length;
    const gone = new Uint8Array(len);
    for (const k0 of keys) {
      const k = numOf(k0);
      if (typeof k === "number") {
        const n = k !== k ? 0 : k < -2147483648 ? -2147483648 : k > 2147483647 ? 2147483647 : Math.trunc(k);
        const i = k < 0 ? len + n : n;
        if (i >= 0 && i < len) gone[i] = 1;
      } else if (isObj(k)) {
        const [s, e] = sliceKeyBounds(len, k);
        charge(e - s);
        gone.fill(1, s, e);
      } else return fail(`Cannot delete ${typeOf(k)} element of array`);
    }
    charge(len + keys.length);
    const out: Json[] = [];
    for (let i = 0; i < len; i++) if (gone[i] === 0) out.push(t[i]);
    return out;
  }
  if (isObj(t) && keys.length === 1 && typeof keys[0] === "string") {
    // one field (`del(.k)`): no set of keys to build
    const gone = keys[0];
    const r: JObj = {};
    const ord = orderOf(t);
    const ks = ord ?? Object.keys(t);
    charge(COPY_KEY * ks.length + 1);
    if (ord !== undefined) {
      for (const key of ks) if (key !== gone) setKey(r, key, t[key]);
      return r;
    }
    // no key-order record: the keys come in the order a plain object lists them, which plain stores keep
    let m = 0;
    for (let j = 0; j < ks.length; j++) {
      const key = ks[j];
      if (key === gone) continue;
      storeAt(r, m, key, loadAt(t, j, key));
      m++;
    }
    return r;
  }
  if (isObj(t)) {
    const drop = new Set<string>();
    for (const k of keys) {
      if (typeof k !== "string") return fail(`Cannot delete ${typeOf(k)} field of object`);
      drop.add(k);
    }
    const r: JObj = {};
    const ks = keysOf(t);
    charge(COPY_KEY * ks.length + keys.length);
    for (const key of ks) if (!drop.has(key)) setKey(r, key, t[key]);
    return r;
  }
  return fail(`Cannot delete fields from ${typeOf(t)}`);
}

/** jq 1.7.1's delpaths_sorted: group the sorted paths by their key at `depth`, recurse, then delete the whole keys. */
function delSorted(v: Json, paths: Json[][], from: number, to: number, depth: number): Json {
  const whole: Json[] = [];
  let obj = v;
  let i = from;
  while (i < to) {
    const key = paths[i][depth];
    let j = i + 1;
    while (j < to && equals(key, paths[j][depth])) j++;
    if (paths[i].length === depth + 1) whole.push(key);
    else {
      const sub = subValue(obj, key);
      if (sub !== null) obj = setKeyOf(obj, key, delSorted(sub, paths, i, j, depth + 1));
    }
    i = j;
  }
  return delKeys(obj, whole);
}

/** Deletes several paths at once (jq 1.7.1's jv_delpaths: sorted, grouped, each container rebuilt once per group). */
export function delPaths(v: Json, paths: Json): Json {
  if (!Array.isArray(paths)) return fail("Paths must be specified as an array");
  chargeSort(paths.length);
  const sorted = paths.length === 1 ? paths : paths.slice().sort(compare);
  for (const p of sorted)
    if (!Array.isArray(p)) return fail(`Path must be specified as array, not ${typeOf(p)}`);
  if (sorted.length === 0) return v;
  if ((sorted[0] as Json[]).length === 0) return null;
  // one path of one key (`del(.k)`): delSorted would gather that key alone
  if (sorted.length === 1 && (sorted[0] as Json[]).length === 1) return delKeys(v, sorted[0] as Json[]);
  return delSorted(v, sorted as Json[][], 0, sorted.length, 0);
}
