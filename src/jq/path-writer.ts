/**
 * Assignment to many paths of one value (`=`, `|=`, `op=`) in time linear in the work done: the
 * first write into a container copies it once, and the copy is then owned by this assignment and
 * mutated in place by later writes (jq 1.7.1 gets the same from its reference counts). A value
 * handed to user code (the input of `|=`'s filter) is released first, so no owned container is ever
 * seen, kept or shared outside the assignment.
 */
import type { Json } from "../engines/common/json.js";
import { indexValue, sliceKeyBounds } from "./ops.js";
import { setKeyOf } from "./paths.js";
import { ALLOC, charge, KEY } from "./runtime.js";
import { fail, isObject, numOf, setKey, type JObj } from "./values.js";

/** The largest array index a write may pad up to (the budget ends such a write long before). */
const MAX_INDEX = 100_000_000;

/** What writing one path of `length` keys is charged: each key read and written, and the path itself (built and collected before). */
export function pathCharge(length: number): number {
  return 3 * length + ALLOC;
}

/** One assignment's writer: set or update paths of a root, copying each container at most once. */
export class PathWriter {
  private readonly owned = new Set<object>();

  /** The root with the value at `path` replaced by `x` (errors as jq 1.7.1's setpath). */
  set(root: Json, path: Json, x: Json): Json {
    if (!Array.isArray(path)) return fail("Path must be specified as an array");
    charge(pathCharge(path.length));
    return this.setIn(root, path, 0, x, null);
  }

  /** The root with the value at `path` replaced by `f(old)`; `f` must not keep `old` (operators only). */
  update(root: Json, path: Json[], f: (old: Json) => Json): Json {
    charge(pathCharge(path.length));
    return this.setIn(root, path, 0, null, f);
  }

  /**
   * Makes `v` and every owned container inside it shared again (copied before the next write): for
   * a value about to be handed to user code. Costs the size of what it walks, which was copied before.
   */
  release(v: Json): void {
    if (v === null || typeof v !== "object" || !this.owned.has(v)) return;
    const stack: object[] = [v];
    while (stack.length > 0) {
      const c = stack.pop() as Json[] | JObj;
      this.owned.delete(c);
      const items: Json[] = Array.isArray(c) ? c : Object.values(c);
      charge(items.length);
      for (const x of items) if (x !== null && typeof x === "object" && this.owned.has(x)) stack.push(x);
    }
  }

  private setIn(c: Json, path: Json[], j: number, x: Json, f: ((old: Json) => Json) | null): Json {
    if (j === path.length) return f === null ? x : f(c);
    const k = path[j];
    // jq's setpath reads the child first (its errors come before the write's)
    let sub: Json;
    if (isObject(k) && Array.isArray(c)) {
      const [s, e] = sliceKeyBounds(c.length, k);
      if (j + 1 === path.length && f === null)
        sub = null; // replaced whole: only its bounds' errors matter
      else {
        charge(e - s + ALLOC);
        sub = c.slice(s, e);
        this.owned.add(sub);
      }
    } else sub = c === null ? null : indexValue(c, k);
    return this.put(c, k, this.setIn(sub, path, j + 1, x, f));
  }

  /** Writes `v` at key `k` of `c`: in place when `c` is owned, else into a copy that becomes owned. */
  private put(c: Json, k: Json, v: Json): Json {
    if (c !== null && typeof c === "object" && this.owned.has(c)) {
      const n = numOf(k);
      if (typeof n === "string" && isObject(c)) {
        // a key new to the object is interned and grows its hidden class or hash table
        if (!Object.prototype.hasOwnProperty.call(c, n)) charge(KEY);
        setKey(c, n, v);
        return c;
      }
      if (typeof n === "number" && Array.isArray(c)) return this.putIndex(c, n, v);
      if (isObject(k) && Array.isArray(c)) return this.putSlice(c, k, v);
    }
    const r = setKeyOf(c, k, v);
    if (r !== null && typeof r === "object") this.owned.add(r);
    return r;
  }

  private putIndex(a: Json[], k: number, v: Json): Json[] {
    if (k !== k) return fail("Cannot set array element at NaN index");
    let i = k < -2147483648 ? -2147483648 : k > 2147483647 ? 2147483647 : Math.trunc(k);
    if (i < 0) {
      i += a.length;
      if (i < 0) return fail("Out of bounds negative array index");
    }
    if (i > MAX_INDEX) return fail("Array index too large");
    if (i > a.length) {
      charge(i - a.length);
      while (a.length < i) a.push(null);
    }
    a[i] = v;
    return a;
  }

  /** Replaces a slice of an owned array in place: costs the slice, the insert and any shift of the tail. */
  private putSlice(a: Json[], k: JObj, v: Json): Json[] {
    if (!Array.isArray(v)) return fail("A slice of an array can only be assigned another array");
    const [s, e] = sliceKeyBounds(a.length, k);
    charge(e - s + v.length + (e - s === v.length ? 0 : a.length - e));
    if (e - s === v.length) {
      for (let m = 0; m < v.length; m++) a[s + m] = v[m];
      return a;
    }
    const tail = a.slice(e);
    a.length = s;
    for (const x of v) a.push(x);
    for (const x of tail) a.push(x);
    return a;
  }
}
