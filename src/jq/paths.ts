/** getpath / setpath / delpaths on immutable values, as jq 1.7.1's jv_aux does. */
import type { Json } from "../engines/common/json.js";
import { keysOf } from "./key-order.js";
import { indexValue, sliceBounds } from "./ops.js";
import { charge, sizeOf } from "./runtime.js";
import { compare, copyObj, fail, getKey, isObject, numOf, setKey, typeOf, type JObj } from "./values.js";

const isObj = isObject;

/** Follows a path; null when a step is missing. */
export function getPath(v: Json, path: Json): Json {
  if (!Array.isArray(path)) return fail("Path must be specified as an array");
  let cur = v;
  for (const k of path) {
    if (cur === null) return null;
    cur = indexValue(cur, k);
  }
  return cur;
}

/** Sets one key of a container, creating it from null. */
export function setKeyOf(t: Json, k: Json, v: Json): Json {
  k = numOf(k);
  if (typeof k === "string" && (t === null || isObj(t))) {
    const r = t === null ? {} : copyObj(t);
    setKey(r, k, v);
    charge(2 * sizeOf(r));
    return r;
  }
  if (typeof k === "number" && (t === null || Array.isArray(t))) {
    const a = t === null ? [] : t.slice();
    if (a.length > 0) charge(a.length);
    if (k !== k) return fail("Cannot set array element at NaN index");
    let i = Math.trunc(k);
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
    const [s, e] = sliceBounds(a.length, getKey(k, "start"), getKey(k, "end"));
    return a.slice(0, s).concat(v, a.slice(e));
  }
  if (isObj(k) && typeof t === "string") return fail("Cannot update string slices");
  if (isObj(t) && typeof k !== "string") return fail(`Cannot index object with ${typeOf(k)}`);
  if (Array.isArray(t) && typeof k === "string") return fail(`Cannot index array with string ${JSON.stringify(k)}`);
  return fail(`Cannot index ${typeOf(t)} with ${typeof k === "string" ? `string ${JSON.stringify(k)}` : typeOf(k)}`);
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
    const [s, e] = sliceBounds(v.length, getKey(k, "start"), getKey(k, "end"));
    return v.slice(s, e);
  }
  return indexValue(v, k);
}

/** Applies `f` to the value at `path` (used by `|=`); `f` returning undefined deletes nothing. */
export function updatePath(v: Json, path: Json[], f: (old: Json) => Json): Json {
  return updIn(v, path, 0, f);
}

function updIn(v: Json, path: Json[], i: number, f: (old: Json) => Json): Json {
  if (i === path.length) return f(v);
  const k = path[i];
  const sub = v === null ? null : subValue(v, k);
  return setKeyOf(v, k, updIn(sub, path, i + 1, f));
}

function delKey(t: Json, k: Json): Json {
  if (t === null) return null;
  k = numOf(k);
  if (typeof k === "string" && isObj(t)) {
    if (!Object.prototype.hasOwnProperty.call(t, k)) return t;
    const r: JObj = {};
    for (const key of keysOf(t)) if (key !== k) setKey(r, key, t[key]);
    return r;
  }
  if (typeof k === "number" && Array.isArray(t)) {
    let i = Math.floor(k);
    if (i < 0) i += t.length;
    if (i < 0 || i >= t.length) return t;
    return t.slice(0, i).concat(t.slice(i + 1));
  }
  if (isObj(k) && Array.isArray(t)) {
    const [s, e] = sliceBounds(t.length, getKey(k, "start"), getKey(k, "end"));
    return t.slice(0, s).concat(t.slice(e));
  }
  if (Array.isArray(t)) return fail(`Cannot delete ${typeOf(k)} element of array`);
  if (isObj(t)) return fail(`Cannot delete ${typeOf(k)} field of object`);
  return fail(`Cannot delete fields from ${typeOf(t)}`);
}

function delIn(v: Json, path: Json[], i: number): Json {
  if (v === null) return null;
  const k = path[i];
  if (i === path.length - 1) return delKey(v, k);
  const sub = subValue(v, k);
  if (sub === null) return v;
  return setKeyOf(v, k, delIn(sub, path, i + 1));
}

/** Resolves negative indices and slice bounds against the value so deletions sort correctly. */
function normalizePath(v: Json, p: Json[]): Json[] {
  const out: Json[] = [];
  let cur: Json = v;
  for (const k of p) {
    let key = k;
    if (Array.isArray(cur)) {
      if (typeof k === "number" && k < 0 && k + cur.length >= 0) key = k + cur.length;
      else if (isObj(k)) {
        try {
          const [s, e] = sliceBounds(cur.length, getKey(k, "start"), getKey(k, "end"));
          key = { start: s, end: e };
        } catch {
          key = k;
        }
      }
    }
    out.push(key);
    try {
      cur = cur === null ? null : subValue(cur, key);
    } catch {
      cur = null;
    }
  }
  return out;
}

/** Deletes several paths, longest and last first so earlier deletions do not shift later ones. */
export function delPaths(v: Json, paths: Json): Json {
  if (!Array.isArray(paths)) return fail("Paths must be specified as an array");
  for (const p of paths) if (!Array.isArray(p)) return fail("Path must be specified as an array");
  const sorted = (paths as Json[][]).map((p) => normalizePath(v, p)).sort((a, b) => compare(b, a));
  let r = v;
  for (const p of sorted) {
    if (p.length === 0) return null;
    r = delIn(r, p, 0);
  }
  return r;
}
