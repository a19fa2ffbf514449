/** Destructuring patterns (`as [$a, {b: $c}]`) and `?//` alternatives. */
import type { Json } from "../engines/common/json.js";
import type { Node, Pattern } from "./ast.js";
import type { Compiler } from "./compile.js";
import { indexValue } from "./ops.js";
import { Env, type Gen, type PGen } from "./runtime.js";
import type { Scope } from "./scope.js";
import { JqError, fail, typeOf } from "./values.js";
import { varScope } from "./compile-maybe.js";

type Destr = (x: Json, env: Env | null, vals: Json[], k: () => boolean) => boolean;
type Binder = (x: Json, i: Json, env: Env | null, k: (e: Env | null) => boolean) => boolean;

function collectNames(p: Pattern, out: string[]): void {
  if (p.k === "pvar") {
    if (!out.includes(p.name)) out.push(p.name);
  } else if (p.k === "parray") p.elems.forEach((e) => collectNames(e, out));
  else
    for (const e of p.entries) {
      if (e.keyVar !== null && !out.includes(e.keyVar)) out.push(e.keyVar);
      if (e.val) collectNames(e.val, out);
    }
}

function compileDestr(c: Compiler, p: Pattern, names: string[], sc: Scope): Destr {
  if (p.k === "pvar") {
    const idx = names.indexOf(p.name);
    return (x, _env, vals, k) => {
      vals[idx] = x;
      return k();
    };
  }
  if (p.k === "parray") {
    const subs = p.elems.map((e) => compileDestr(c, e, names, sc));
    return (x, env, vals, k) => {
      if (x !== null && !Array.isArray(x)) return fail(`Cannot index ${typeOf(x)} with number`);
      const go = (j: number): boolean =>
        j === subs.length ? k() : subs[j](indexValue(x, j), env, vals, () => go(j + 1));
      return go(0);
    };
  }
  const entries = p.entries.map((e) => ({
    key: c.gen(e.key, sc) as Gen,
    varIdx: e.keyVar === null ? -1 : names.indexOf(e.keyVar),
    sub: e.val ? compileDestr(c, e.val, names, sc) : null,
  }));
  return (x, env, vals, k) => {
    const go = (j: number): boolean => {
      if (j === entries.length) return k();
      const en = entries[j];
      return en.key(x, env, (kv) => {
        if (typeof kv !== "string") return fail(`Cannot index ${typeOf(x)} with ${typeOf(kv)}`);
        const v = indexValue(x, kv);
        if (en.varIdx >= 0) vals[en.varIdx] = v;
        if (en.sub) return en.sub(v, env, vals, () => go(j + 1));
        return go(j + 1);
      });
    };
    return go(0);
  };
}

/**
 * Compiles `src as PATTERNS | body` (value or path mode), or with src and body null,
 * a binder for reduce/foreach returning `{bind, scope}`.
 */
export function compilePatternBind(
  c: Compiler,
  src: Node | null,
  pats: Pattern[],
  body: Node | null,
  sc: Scope,
  pathMode: boolean,
): Gen | PGen | { bind: Binder; scope: Scope } {
  const names: string[] = [];
  pats.forEach((p) => collectNames(p, names));
  let scope = sc;
  if (pats.length === 1 && pats[0].k === "pvar") scope = varScope(pats[0], sc, pats[0].name);
  else for (const n of names) scope = scope.push("var", n);
  const destrs = pats.map((p) => compileDestr(c, p, names, sc));
  const nn = names.length;
  const binders: Binder[] = destrs.map((d) => (x, _i, env, k) => {
    const vals: Json[] = new Array(nn).fill(null);
    return d(x, env, vals, () => {
      let e = env;
      for (let j = 0; j < nn; j++) e = new Env(vals[j], e);
      return k(e);
    });
  });
  if (src === null || body === null) return { bind: binders[0], scope };
  const s = c.gen(src, sc);
  const last = binders.length - 1;
  if (!pathMode) {
    const b = c.gen(body, scope);
    if (pats.length === 1 && pats[0].k === "pvar") {
      const g: Gen = (i, env, emit) => s(i, env, (x) => b(i, new Env(x, env), emit));
      return g;
    }
    // as jq's DESTRUCTURE_ALT fork point: an error raised while a pattern is active, in the
    // destructuring, the body or anything downstream of it, moves on to the next pattern
    const g: Gen = (i, env, emit) =>
      s(i, env, (x) => {
        for (let j = 0; j < last; j++) {
          try {
            return binders[j](x, i, env, (e) => b(i, e, emit));
          } catch (err) {
            if (!(err instanceof JqError)) throw err;
          }
        }
        return binders[last](x, i, env, (e) => b(i, e, emit));
      });
    return g;
  }
  const pb = c.pgen(body, scope);
  return ((i, p, env, emit) =>
    s(i, env, (x) => {
      for (let j = 0; j < last; j++) {
        try {
          return binders[j](x, i, env, (e) => pb(i, p, e, emit));
        } catch (err) {
          if (!(err instanceof JqError)) throw err;
        }
      }
      return binders[last](x, i, env, (e) => pb(i, p, e, emit));
    })) as PGen;
}
