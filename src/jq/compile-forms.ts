/** Compilation of the larger value-mode forms: string interpolation, objects, assignments, reduce, foreach. */
import type { Json } from "../engines/common/json.js";
import type { Node, Pattern } from "./ast.js";
import { applyFormat, checkFormat } from "./formats.js";
import { binopFn, indexValue } from "./ops.js";
import { delPaths, getPath, setFieldOf } from "./paths.js";
import { pathCharge, PathWriter } from "./path-writer.js";
import { ALLOC, charge, COPY_KEY, Env, KEY, step, type Gen } from "./runtime.js";
import { JqCompileError, type Scope } from "./scope.js";
import { NATIVES, type Compiler } from "./compile.js";
import { singleOf, type Val } from "./compile-single.js";
import { maybeOf, NONE, type Opt } from "./compile-maybe.js";
import { dotFree, setOwned, simplePath } from "./compile-reduce.js";
import { fieldSite, interpText, invalidPathResult } from "./eval-helpers.js";
import { buildKey, isIndexKey, keysOf, loadSite, storeAt } from "./key-order.js";
import { copyObj, desc, fail, isObject, truthy, type JObj } from "./values.js";

/** String interpolation: every combination of the parts' outputs, the first part varying fastest. */
export function strGen(c: Compiler, parts: Array<string | Node>, fmt: string | null, sc: Scope): Gen {
  const ps: Array<string | Gen> = parts.map((p) => (typeof p === "string" ? p : c.gen(p, sc)));
  if (fmt !== null) checkFormat(fmt);
  const conv = fmt === null ? interpText : (v: Json) => applyFormat(fmt, v);
  const n = ps.length;
  return (i, env, emit) => {
    const vals: string[] = new Array(n);
    const go = (k: number): boolean => {
      if (k < 0) {
        let s = "";
        for (let j = 0; j < n; j++) {
          const p = ps[j];
          s += typeof p === "string" ? p : vals[j];
        }
        charge(s.length + 2 * ALLOC * n);
        return emit(s);
      }
      const p = ps[k];
      if (typeof p === "string") return go(k - 1);
      return p(i, env, (v) => {
        vals[k] = conv(v);
        return go(k - 1);
      });
    };
    return go(n - 1);
  };
}

/** Object construction: the cartesian product of keys and values in source order. */
export function objectGen(
  c: Compiler,
  entries: Array<{ key: Node; value: Node; fromKey?: boolean }>,
  sc: Scope,
): Gen {
  for (const e of entries)
    if (e.key.k === "literal" && typeof e.key.v !== "string")
      throw new JqCompileError(`Cannot use ${desc(e.key.v)} as object key`, 0);
  const ks = entries.map((e) => c.gen(e.key, sc));
  const vs = entries.map((e) => c.gen(e.value, sc));
  const n = entries.length;
  const constKeys = entries.every((e) => e.key.k === "literal" && typeof e.key.v === "string");
  if (constKeys) {
    const names = entries.map((e) => (e.key as { v: string }).v);
    // keys known now: plain assignment unless one needs the key-order record (or is __proto__)
    const plain = names.every((k) => !isIndexKey(k) && k !== "__proto__");
    return (i, env, emit) => {
      const vals: Json[] = new Array(n);
      const go = (j: number): boolean => {
        if (j === n) {
          const o: JObj = {};
          if (plain) for (let m = 0; m < n; m++) o[names[m]] = vals[m];
          else {
            let ord: string[] | undefined;
            for (let m = 0; m < n; m++) ord = buildKey(o, names[m], vals[m], ord);
          }
          charge(n + ALLOC);
          return emit(o);
        }
        return vs[j](i, env, (v) => {
          vals[j] = v;
          return go(j + 1);
        });
      };
      return go(0);
    };
  }
  const fromKey = entries.map((e) => e.fromKey === true);
  // keys computed at run time are interned and shape a new hidden class (KEY each)
  const cost =
    n + ALLOC + KEY * entries.filter((e) => !(e.key.k === "literal" && typeof e.key.v === "string")).length;
  return (i, env, emit) => {
    const keys: string[] = new Array(n);
    const vals: Json[] = new Array(n);
    const go = (j: number): boolean => {
      if (j === n) {
        const o: JObj = {};
        let ord: string[] | undefined;
        for (let m = 0; m < n; m++) ord = buildKey(o, keys[m], vals[m], ord);
        charge(cost);
        return emit(o);
      }
      return ks[j](i, env, (k) => {
        if (typeof k !== "string") return fail(`Cannot use ${desc(k)} as object key`);
        keys[j] = k;
        if (fromKey[j]) {
          vals[j] = indexValue(i, k);
          return go(j + 1);
        }
        return vs[j](i, env, (v) => {
          vals[j] = v;
          return go(j + 1);
        });
      });
    };
    return go(0);
  };
}

/**
 * `.[] |= f` with `f` yielding exactly one value (`map_values`): an array or object is rebuilt once
 * with every value replaced, in key order, as the general path would (same errors, same charges:
 * each path written and the container's copy); other inputs take the general path.
 */
function updateEach(f: Val, general: Gen): Gen {
  return (i, env, emit) => {
    if (Array.isArray(i)) return emit(eachOfArray(i, env, f));
    if (isObject(i)) return emit(eachOfObject(i, env, f));
    return general(i, env, emit);
  };
}

/**
 * `.[] |= f` as a direct evaluator (its one output returned), for `f` yielding exactly one value:
 * `|=` always has exactly one output (jq 1.7.1's `_modify` is a `reduce`) or fails; inputs other
 * than arrays and objects take the general path, whose one output is returned.
 */
export function updateEachVal(f: Val, general: Gen): Val {
  return (i, env) => {
    if (Array.isArray(i)) return eachOfArray(i, env, f);
    if (isObject(i)) return eachOfObject(i, env, f);
    let out: Json = null;
    general(i, env, (v) => {
      out = v;
      return true;
    });
    return out;
  };
}

function eachOfArray(i: Json[], env: Env | null, f: Val): Json[] {
  const n = i.length;
  if (n === 0) return i;
  charge(n + ALLOC);
  const out: Json[] = new Array<Json>(n);
  for (let j = 0; j < n; j++) {
    charge(3 + ALLOC);
    out[j] = f(i[j], env);
  }
  return out;
}

function eachOfObject(i: JObj, env: Env | null, f: Val): JObj {
  const ks = keysOf(i);
  if (ks.length === 0) return i;
  // the general path's first write: the copy and its key (later writes replace keys it has)
  charge(COPY_KEY * ks.length + KEY + ALLOC);
  const out = copyObj(i);
  for (let j = 0; j < ks.length; j++) {
    const k = ks[j];
    charge(3 + ALLOC);
    const v = f(i[k], env);
    // every key is already the copy's own: a plain store keeps its place
    storeAt(out, j, k, v);
  }
  return out;
}

/** `.[] |= f` (`map_values(f)`) as a direct evaluator when `f` yields exactly one value, else null. */
export function updateEachOf(c: Compiler, op: string, lhs: Node, rhs: Node, sc: Scope): Val | null {
  if (op !== "|=" || lhs.k !== "iterate" || lhs.opt || lhs.target.k !== "identity") return null;
  const f = singleOf(c, rhs, sc, NATIVES);
  return f === null ? null : updateEachVal(f, assignGen(c, op, lhs, rhs, sc));
}

/** The keys of `.k1.k2...` when every key is a string literal, else null (see assignGen). */
function literalKeyPath(n: Node): string[] | null {
  const keys: string[] = [];
  let cur = n;
  while (cur.k === "index") {
    if (cur.key.k !== "literal" || typeof cur.key.v !== "string" || cur.opt) return null;
    keys.unshift(cur.key.v);
    cur = cur.target;
  }
  return cur.k === "identity" && keys.length > 0 ? keys : null;
}

/**
 * `=`, `|=` and the arithmetic update operators, over the paths of the left side. Each path is
 * written as it is generated from the input (jq 1.7.1's `reduce path(paths) as $p (.; setpath(…))`),
 * so the paths are never all held at once and each one's work is charged as it is done.
 */
export function assignGen(c: Compiler, op: string, lhs: Node, rhs: Node, sc: Scope): Gen {
  const keys = literalKeyPath(lhs);
  const lp = c.pgen(lhs, sc);
  /** Calls `each` with every path of the left side over `i`; true when stopped. */
  const paths = (i: Json, env: Env | null, each: (p: Json[]) => boolean): boolean => {
    if (keys !== null) {
      // `.a.b...` with literal keys has exactly one path; walk it only for path mode's errors
      let tv = i;
      for (const k of keys) tv = tv === null ? null : indexValue(tv, k);
      return each(keys);
    }
    return lp(i, [], env, (v, p) => (p === null ? invalidPathResult(v) : each(p)));
  };
  if (op === "|=") {
    const f = c.gen(rhs, sc);
    const general: Gen = (i, env, emit) => {
      let out = i;
      let dels: Json[][] | null = null;
      const w = new PathWriter();
      const stop = paths(i, env, (p) => {
        let got = false;
        let nv: Json = null;
        const old = getPath(out, p);
        w.release(old);
        const st = f(old, env, (u) => {
          got = true;
          nv = u;
          return true;
        });
        if (got) out = w.set(out, p, nv);
        else if (st) return true;
        else (dels ??= []).push(p);
        return false;
      });
      if (stop) return true;
      if (dels !== null) out = delPaths(out, dels);
      return emit(out);
    };
    const each =
      lhs.k === "iterate" && !lhs.opt && lhs.target.k === "identity" ? singleOf(c, rhs, sc, NATIVES) : null;
    return each === null ? general : updateEach(each, general);
  }
  const r = c.gen(rhs, sc);
  if (keys !== null) return literalAssign(r, keys, op);
  if (op === "=") {
    return (i, env, emit) =>
      r(i, env, (v) => {
        let out = i;
        const w = new PathWriter();
        const stop = paths(i, env, (p) => {
          out = w.set(out, p, v);
          return false;
        });
        return stop ? true : emit(out);
      });
  }
  const bop = op.slice(0, -1);
  const apply = bop === "//" ? null : binopFn(bop);
  return (i, env, emit) =>
    r(i, env, (v) => {
      let out = i;
      const w = new PathWriter();
      const f = apply === null ? (old: Json) => (truthy(old) ? old : v) : (old: Json) => apply(old, v);
      const stop = paths(i, env, (p) => {
        out = w.update(out, p, f);
        return false;
      });
      return stop ? true : emit(out);
    });
}

/**
 * The value at a literal key path of `c` replaced by `x`, or by `leaf(old)` when given: the reads on the way down (and
 * their errors) before the charge, then one copy of each container on the way up, as a PathWriter
 * does for its only path (it copies each container once; none is written twice).
 */
function setLiteral(
  c: Json,
  keys: readonly string[],
  sites: readonly number[],
  j: number,
  x: Json,
  leaf: ((old: Json) => Json) | null,
): Json {
  const k = keys[j];
  const s = sites[j];
  const sub = c === null ? null : s >= 0 && isObject(c) ? fieldAt(c, s, k) : indexValue(c, k);
  let v: Json;
  if (j + 1 < keys.length) v = setLiteral(sub, keys, sites, j + 1, x, leaf);
  else {
    // PathWriter.set/update's charge for the path, after every read of it
    charge(pathCharge(keys.length));
    v = leaf === null ? x : leaf(sub);
  }
  return setFieldOf(c, k, s, v);
}

/** An object's own field `k` through its load site `s` (a key not inherited from Object.prototype). */
function fieldAt(o: JObj, s: number, k: string): Json {
  const v = loadSite(o, s, k) as Json | undefined;
  return v === undefined ? null : v;
}

/**
 * `.k1.k2… = v` and `.k1.k2… op= v` with literal keys: one path, so no path is generated and no
 * writer tracks ownership; the same reads, errors, charges and copies as the general form.
 */
function literalAssign(r: Gen, keys: readonly string[], op: string): Gen {
  const sites = keys.map(fieldSite);
  if (op === "=") return (i, env, emit) => r(i, env, (v) => emit(setLiteral(i, keys, sites, 0, v, null)));
  const bop = op.slice(0, -1);
  const apply = bop === "//" ? null : binopFn(bop);
  return (i, env, emit) =>
    r(i, env, (v) =>
      emit(
        setLiteral(
          i,
          keys,
          sites,
          0,
          null,
          apply === null ? (old) => (truthy(old) ? old : v) : (old) => apply(old, v),
        ),
      ),
    );
}

/**
 * `.k1.k2… = v` and `.k1.k2… op= v` with literal keys and a right side yielding at most one value, as a
 * direct evaluator (compile-maybe.ts): {@link literalAssign}'s reads, errors, charges and copies; else null.
 */
export function literalAssignMaybe(c: Compiler, op: string, lhs: Node, rhs: Node, sc: Scope): Opt | null {
  if (op === "|=") return null;
  const keys = literalKeyPath(lhs);
  if (keys === null) return null;
  const r = maybeOf(c, rhs, sc, NATIVES);
  if (r === null) return null;
  const sites = keys.map(fieldSite);
  if (op === "=")
    return (i, env) => {
      const v = r(i, env);
      return v === NONE ? NONE : setLiteral(i, keys, sites, 0, v, null);
    };
  const bop = op.slice(0, -1);
  const apply = bop === "//" ? null : binopFn(bop);
  return (i, env) => {
    const v = r(i, env);
    if (v === NONE) return NONE;
    return setLiteral(
      i,
      keys,
      sites,
      0,
      null,
      apply === null ? (old) => (truthy(old) ? old : v) : (old) => apply(old, v),
    );
  };
}

/** `reduce`: the last output of the update is the next state, one result per init output. */
export function reduceGen(c: Compiler, src: Node, pat: Pattern, init: Node, update: Node, sc: Scope): Gen {
  const s = c.gen(src, sc);
  const ini = c.gen(init, sc);
  const { bind, scope } = c.patternBinder(pat, sc);
  const inPlace = inPlaceReduce(c, s, ini, pat, update, scope);
  if (inPlace !== null) return inPlace;
  const upd = c.gen(update, scope);
  const us = singleOf(c, update, scope, NATIVES);
  if (us !== null && pat.k === "pvar")
    return (i, env, emit) =>
      ini(i, env, (acc0) => {
        let acc = acc0;
        const stop = s(i, env, (x) => {
          step();
          acc = us(acc, new Env(x, env));
          return false;
        });
        if (stop) return true;
        return emit(acc);
      });
  return (i, env, emit) =>
    ini(i, env, (acc0) => {
      let acc = acc0;
      const stop = s(i, env, (x) => {
        step();
        return bind(x, i, env, (e2) => {
          let last: Json = null;
          const st = upd(acc, e2, (u) => {
            last = u;
            return false;
          });
          acc = last;
          return st;
        });
      });
      if (stop) return true;
      return emit(acc);
    });
}

/** `reduce ... (init; .[k] = v)` with keys and value independent of `.`: mutate an owned copy. */
export function inPlaceReduce(
  c: Compiler,
  s: Gen,
  ini: Gen,
  pat: Pattern,
  update: Node,
  scope: Scope,
): Gen | null {
  if (pat.k !== "pvar" || update.k !== "assign" || update.op === "|=") return null;
  const keys = simplePath(update.l);
  if (keys === null || !dotFree(update.r)) return null;
  const kv = keys.map((k) => singleOf(c, k, scope, NATIVES));
  const rv = singleOf(c, update.r, scope, NATIVES);
  if (rv === null || kv.some((k) => k === null)) return null;
  const keyVals = kv as Val[];
  const op = update.op === "=" ? "=" : update.op.slice(0, -1);
  return (i, env, emit) =>
    ini(i, env, (acc0) => {
      let acc = acc0;
      const owned = new Set<object>();
      const stop = s(i, env, (x) => {
        step();
        const e2 = new Env(x, env);
        const ks = keyVals.map((k) => k(acc, e2));
        acc = setOwned(acc, ks, op, rv(acc, e2), owned);
        return false;
      });
      if (stop) return true;
      return emit(acc);
    });
}

/** `foreach` with two or three clauses: every update output is emitted (through the extract). */
export function foreachGen(
  c: Compiler,
  src: Node,
  pat: Pattern,
  init: Node,
  update: Node,
  extract: Node | null,
  sc: Scope,
): Gen {
  const s = c.gen(src, sc);
  const ini = c.gen(init, sc);
  const { bind, scope } = c.patternBinder(pat, sc);
  const upd = c.gen(update, scope);
  const ext = extract ? c.gen(extract, scope) : null;
  return (i, env, emit) =>
    ini(i, env, (acc0) => {
      let acc = acc0;
      return s(i, env, (x) => {
        step();
        return bind(x, i, env, (e2) =>
          upd(acc, e2, (u) => {
            acc = u;
            return ext ? ext(u, e2, emit) : emit(u);
          }),
        );
      });
    });
}
