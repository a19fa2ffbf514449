/** Path mode: compiles expressions to generators that also report where each output lives. */
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import type { Compiler } from "./compile.js";
import { compilePatternBind } from "./compile-patterns.js";
import {
  altPGen,
  emitUnlessError,
  isIterable,
  iteratePaths,
  nonPath,
  recursePaths,
  tryPGen,
  withOpt,
} from "./eval-helpers.js";
import { indexValue, sliceValue } from "./ops.js";
import { ALLOC, charge, Env, S, step, type PGen, type Path } from "./runtime.js";
import type { Scope } from "./scope.js";
import { fail, preview, preview30, truthy, type JObj } from "./values.js";

/** The key as jq 1.7.1 names it in path errors (a 15-byte buffer, like {@link preview}). */
function keyPreview(k: Json): string {
  return preview(k);
}

/** Compiles `n` in path mode (see `Compiler.pgen`). */
export function compilePathMode(c: Compiler, n: Node, sc: Scope): PGen {
  switch (n.k) {
    case "identity":
      return (i, p, _e, emit) => emit(i, p);
    case "recurse":
      return (i, p, _e, emit) => recursePaths(i, p, emit);
    case "index": {
      const opt = n.opt === true;
      const t = c.pgen(n.target, sc);
      if (!opt && n.key.k === "literal") {
        // a literal key (`.k`, `.[0]`): no generator for the key; on `.` itself, no callback for the target
        const kv = n.key.v;
        const step1 = (tv: Json, tp: Path | null, emit: (v: Json, p: Path | null) => boolean): boolean => {
          if (tp === null)
            return fail(
              `Invalid path expression near attempt to access element ${keyPreview(kv)} of ${preview30(tv)}`,
            );
          charge(tp.length + 1);
          return emit(tv === null ? null : indexValue(tv, kv), tp.concat([kv]));
        };
        if (n.target.k === "identity") return (i, p, _env, emit) => step1(i, p, emit);
        return (i, p, env, emit) => t(i, p, env, (tv, tp) => step1(tv, tp, emit));
      }
      const k = c.gen(n.key, sc);
      return (i, p, env, emit) =>
        k(i, env, (kv) =>
          t(i, p, env, (tv, tp) => {
            if (tp === null)
              return fail(
                `Invalid path expression near attempt to access element ${keyPreview(kv)} of ${preview30(tv)}`,
              );
            // the longer path is a copy: its keys, as iterating paths charges
            charge(tp.length + 1);
            if (opt)
              return emitUnlessError(
                () => (tv === null ? null : indexValue(tv, kv)),
                (v) => emit(v, tp.concat([kv])),
              );
            return emit(tv === null ? null : indexValue(tv, kv), tp.concat([kv]));
          }),
        );
    }
    case "slice": {
      const opt = n.opt === true;
      const t = c.pgen(n.target, sc);
      const from = n.from ? c.gen(n.from, sc) : null;
      const to = n.to ? c.gen(n.to, sc) : null;
      return (i, p, env, emit) =>
        withOpt(from, i, env, (f) =>
          withOpt(to, i, env, (e) =>
            t(i, p, env, (tv, tp) => {
              const key: JObj = { start: f, end: e };
              if (tp === null)
                return fail(
                  `Invalid path expression near attempt to access element ${keyPreview(key)} of ${preview30(tv)}`,
                );
              // the key object and the longer path (the slice charges its own copy)
              charge(tp.length + 1 + 2 * ALLOC);
              if (opt)
                return emitUnlessError(
                  () => sliceValue(tv, f, e),
                  (v) => emit(v, tp.concat([key])),
                );
              return emit(sliceValue(tv, f, e), tp.concat([key]));
            }),
          ),
        );
    }
    case "iterate": {
      const opt = n.opt === true;
      const t = c.pgen(n.target, sc);
      return (i, p, env, emit) =>
        t(i, p, env, (tv, tp) => {
          if (tp === null)
            return fail(`Invalid path expression near attempt to iterate through ${preview30(tv)}`);
          if (opt && !isIterable(tv)) return false;
          return iteratePaths(tv, tp, emit);
        });
    }
    case "pipe": {
      const l = c.pgen(n.l, sc);
      const r = c.pgen(n.r, sc);
      return (i, p, env, emit) => l(i, p, env, (v, vp) => r(v, vp, env, emit));
    }
    case "comma": {
      const l = c.pgen(n.l, sc);
      const r = c.pgen(n.r, sc);
      return (i, p, env, emit) => l(i, p, env, emit) || r(i, p, env, emit);
    }
    case "alt":
      return altPGen(c.pgen(n.l, sc), c.pgen(n.r, sc));
    case "try":
      return tryPGen(c.pgen(n.body, sc), n.handler ? c.pgen(n.handler, sc) : null);
    case "if": {
      const cond = c.gen(n.cond, sc);
      const t = c.pgen(n.then, sc);
      const f = n.else ? c.pgen(n.else, sc) : null;
      return (i, p, env, emit) =>
        cond(i, env, (cv) => (truthy(cv) ? t(i, p, env, emit) : f ? f(i, p, env, emit) : emit(i, p)));
    }
    case "bind":
      return compilePatternBind(c, n.src, n.pats, n.body, sc, true) as PGen;
    case "reduce": {
      // the state is carried in a variable: it is a path only while identical to the input
      const src = c.gen(n.src, sc);
      const init = c.pgen(n.init, sc);
      const { bind, scope } = c.patternBinder(n.pat, sc);
      const upd = c.pgen(n.update, scope);
      return (i, p, env, emit) =>
        init(i, p, env, (acc0) => {
          let acc = acc0;
          let accPath: Path = acc0 === i ? p : null;
          const stop = src(i, env, (x) => {
            step();
            return bind(x, i, env, (e2) => {
              let last: Json = null;
              let lastPath: Path = null;
              const st = upd(acc, acc === i ? p : null, e2, (u, up) => {
                last = u;
                lastPath = up;
                return false;
              });
              acc = last;
              accPath = lastPath;
              return st;
            });
          });
          return stop ? true : emit(acc, accPath);
        });
    }
    case "foreach": {
      const src = c.gen(n.src, sc);
      const init = c.pgen(n.init, sc);
      const { bind, scope } = c.patternBinder(n.pat, sc);
      const upd = c.pgen(n.update, scope);
      const ext = n.extract ? c.pgen(n.extract, scope) : null;
      return (i, p, env, emit) =>
        init(i, p, env, (acc0) => {
          let acc = acc0;
          return src(i, env, (x) => {
            step();
            return bind(x, i, env, (e2) =>
              upd(acc, acc === i ? p : null, e2, (u, up) => {
                acc = u;
                return ext ? ext(u, up, e2, emit) : emit(u, up);
              }),
            );
          });
        });
    }
    case "label": {
      const body = c.pgen(n.body, sc.push("label", n.name));
      return (i, p, env, emit) => {
        const token = {};
        const r = body(i, p, new Env(token, env), emit);
        if (S.breaking === token) {
          S.breaking = null;
          return false;
        }
        return r;
      };
    }
    case "funcdef":
      return c.pgen(n.rest, c.define(n.def, sc));
    case "call":
      return c.callPGen(n.name, n.args, sc, n.pos, n);
    case "break":
    default:
      return nonPath(c.gen(n, sc));
  }
}
