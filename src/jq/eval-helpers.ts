/** Evaluation helpers shared by the value-mode and path-mode compilers. */
import type { Json } from "../engines/common/json.js";
import { keysOf, loadSite, orderOf, siteOf } from "./key-order.js";
import { cannotIterate, indexValue } from "./ops.js";
import { printCompact } from "./print.js";
import { charge, step, type Emit, type Env, type Gen, type PEmit, type PGen, type Path } from "./runtime.js";
import { JqError, fail, getKey, isObject, preview30, truthy } from "./values.js";

/** Raises jq's error for a non-path value where a path was required. */
export function invalidPathResult(v: Json): never {
  return fail(`Invalid path expression with result ${preview30(v)}`);
}

/** True for keys inherited from Object.prototype, which need an own-property lookup. */
export const IS_PROTO_KEY = (k: string): boolean => k in Object.prototype;

/**
 * The load site of a literal key for {@link field}: its own keyed load site ({@link siteOf}), or −1
 * for a key inherited from Object.prototype, which needs an own-property lookup.
 */
export function fieldSite(k: string): number {
  return IS_PROTO_KEY(k) ? -1 : siteOf(k);
}

/** Looks up a field on an object (null on null), with jq's error otherwise; `site` from {@link fieldSite}. */
export function field(t: Json, k: string, site: number): Json {
  if (isObject(t)) {
    if (site >= 0) {
      const v = loadSite(t, site, k) as Json | undefined;
      return v === undefined ? null : v;
    }
    return getKey(t, k);
  }
  if (t === null) return null;
  return indexValue(t, k);
}

/** Wraps a value-mode generator for path mode: outputs identical to the input keep its path. */
export function nonPath(g: Gen): PGen {
  return (i, p, env, emit) =>
    g(i, env, (v) => emit(v, v === i && (v === null || typeof v !== "number") ? p : null));
}

/** Turns `tostring`-style interpolation values into text. */
export function interpText(v: Json): string {
  return typeof v === "string" ? v : printCompact(v);
}

/** Runs an optional generator, or continues with null when it is absent (slice bounds). */
export function withOpt(g: Gen | null, i: Json, env: Env | null, k: (v: Json) => boolean): boolean {
  if (g === null) return k(null);
  return g(i, env, k);
}

/** True for the values `.[]` can iterate. */
export function isIterable(v: Json): boolean {
  return Array.isArray(v) || isObject(v);
}

/**
 * Emits the value of one indexing step, or nothing when that step raises (jq's INDEX_OPT:
 * errors of the target, the key and everything downstream still propagate).
 */
export function emitUnlessError(get: () => Json, emit: Emit): boolean {
  let v: Json;
  try {
    v = get();
  } catch (e) {
    if (e instanceof JqError) return false;
    throw e;
  }
  return emit(v);
}

/** `.[]` on a value. */
export function iterate(v: Json, emit: Emit): boolean {
  if (Array.isArray(v)) {
    for (let j = 0; j < v.length; j++) if (emit(v[j])) return true;
    return false;
  }
  if (isObject(v)) {
    const ord = orderOf(v);
    if (ord === undefined) {
      for (const k in v) if (emit(v[k])) return true;
    } else for (let j = 0; j < ord.length; j++) if (emit(v[ord[j]])) return true;
    return false;
  }
  return cannotIterate(v);
}

/** `.[]` in path mode; null iterates to nothing. */
export function iteratePaths(v: Json, p: Json[], emit: PEmit): boolean {
  if (Array.isArray(v)) {
    for (let j = 0; j < v.length; j++) if ((charge(p.length + 1), emit(v[j], p.concat([j])))) return true;
    return false;
  }
  if (isObject(v)) {
    for (const k of keysOf(v)) if ((charge(p.length + 1), emit(v[k], p.concat([k])))) return true;
    return false;
  }
  return cannotIterate(v);
}

/** `..`: the value and every value inside it, depth first. */
export function recurseAll(v: Json, emit: Emit): boolean {
  step();
  if (emit(v)) return true;
  if (Array.isArray(v)) {
    for (let j = 0; j < v.length; j++) if (recurseAll(v[j], emit)) return true;
  } else if (isObject(v)) {
    const ord = orderOf(v);
    if (ord === undefined) {
      for (const k in v) if (recurseAll(v[k], emit)) return true;
    } else for (let j = 0; j < ord.length; j++) if (recurseAll(v[ord[j]], emit)) return true;
  }
  return false;
}

/** `..` in path mode. */
export function recursePaths(v: Json, p: Path, emit: PEmit): boolean {
  step();
  if (emit(v, p)) return true;
  if (p === null) return false;
  if (Array.isArray(v)) {
    for (let j = 0; j < v.length; j++) if (recursePaths(v[j], p.concat([j]), emit)) return true;
  } else if (isObject(v)) {
    for (const k of keysOf(v)) if (recursePaths(v[k], p.concat([k]), emit)) return true;
  }
  return false;
}

/** `try body catch handler`: errors raised downstream of the body are not caught. */
export function tryGen(body: Gen, handler: Gen | null): Gen {
  return (i, env, emit) => {
    let down = false;
    try {
      return body(i, env, (v) => {
        down = true;
        const r = emit(v);
        down = false;
        return r;
      });
    } catch (e) {
      if (down || !(e instanceof JqError)) throw e;
      if (handler === null) return false;
      return handler(e.value, env, emit);
    }
  };
}

/** `try` in path mode. */
export function tryPGen(body: PGen, handler: PGen | null): PGen {
  return (i, p, env, emit) => {
    let down = false;
    try {
      return body(i, p, env, (v, vp) => {
        down = true;
        const r = emit(v, vp);
        down = false;
        return r;
      });
    } catch (e) {
      if (down || !(e instanceof JqError)) throw e;
      if (handler === null) return false;
      return handler(e.value, null, env, emit);
    }
  };
}

/** `a // b`: truthy outputs of a, else the outputs of b (errors in a propagate, as in jq 1.7.1). */
export function altGen(l: Gen, r: Gen): Gen {
  return (i, env, emit) => {
    let any = false;
    const stop = l(i, env, (v) => {
      if (!truthy(v)) return false;
      any = true;
      return emit(v);
    });
    if (stop) return true;
    return any ? false : r(i, env, emit);
  };
}

/** `a // b` in path mode. */
export function altPGen(l: PGen, r: PGen): PGen {
  return (i, p, env, emit) => {
    let any = false;
    const stop = l(i, p, env, (v, vp) => {
      if (!truthy(v)) return false;
      any = true;
      return emit(v, vp);
    });
    if (stop) return true;
    return any ? false : r(i, p, env, emit);
  };
}
