/** Compiles the syntax tree to closures once: value-mode generators and, on demand, path-mode ones. */
import type { Json } from "../engines/common/json.js";
import { inputFieldKey, type FuncDef, type Node, type Pattern } from "./ast.js";
import { applyFormat, checkFormat } from "./formats.js";
import { binopFn, indexValue, literalComparison, sliceValue } from "./ops.js";
import { delPaths, getPath } from "./paths.js";
import {
  ALLOC,
  charge,
  chargeFormatted,
  Closure,
  Env,
  S,
  step,
  up,
  type ArgInfo,
  type Emit,
  type Gen,
  type PEmit,
  type PGen,
  type Path,
} from "./runtime.js";
import { JqCompileError, Scope, type FuncInfo, type InlineArg } from "./scope.js";
import { compilePatternBind } from "./compile-patterns.js";
import { compilePathMode } from "./compile-paths.js";
import {
  fieldSite,
  altGen,
  emitUnlessError,
  field,
  invalidPathResult,
  isIterable,
  iterate,
  nonPath,
  recurseAll,
  tryGen,
  withOpt,
} from "./eval-helpers.js";
import { singleOf, type Val } from "./compile-single.js";
import { maybeOf, NONE } from "./compile-maybe.js";
import {
  INLINE_MAX_DEPTH,
  hopsTo,
  inlineGen,
  inlinePGen,
  inlineSite,
  inlineVal,
  valueBody,
  withInlining,
  type InlineState,
} from "./compile-inline.js";
import { assignGen, foreachGen, objectGen, reduceGen, strGen } from "./compile-forms.js";
import { desc, fail, numOf, truthy } from "./values.js";

type CallNode = Extract<Node, { k: "call" }>;

/** Whether a function takes a filter (not `$`) parameter, which an ordinary call passes as a closure. */
function hasFilterParam(fi: FuncInfo): boolean {
  return fi.def.params.some((p) => !p.startsWith("$"));
}

/** A natively implemented builtin. */
export interface Native {
  gen: (input: Json, args: ArgInfo[], env: Env | null, emit: Emit) => boolean;
  /** For builtins with exactly one output: the function of the input and argument values. */
  fn?: (input: Json, ...args: Json[]) => Json;
  pgen?: (input: Json, path: Path, args: ArgInfo[], env: Env | null, emit: PEmit) => boolean;
}

/** The native builtin table, filled by the builtins modules. */
export const NATIVES = new Map<string, Native>();

/** Single-valued evaluator of an argument (null when it may give other than one value), compiled on first use. */
export function valOf(a: ArgInfo): Val | null {
  if (a.val === undefined) a.val = a.compileVal();
  return a.val;
}

/** Path-mode generator of an argument, compiled on first use. */
export function pathOf(a: ArgInfo): PGen {
  if (a.pgen === null) a.pgen = a.compilePath();
  return a.pgen;
}

/** Turns syntax trees into closures; one instance per compilation (the prelude keeps its own). */
export class Compiler {
  /** What this compilation has inlined so far (compile-inline.ts). */
  readonly inlining: InlineState = { spent: 0, stack: [] };

  constructor(readonly eager: boolean) {}

  /** Compiles a node in value mode. */
  gen(n: Node, sc: Scope): Gen {
    if (n.k !== "identity" && n.k !== "literal" && n.k !== "array") {
      const s = singleOf(this, n, sc, NATIVES);
      if (s !== null) return (i, env, emit) => emit(s(i, env));
      // at most one value (compile-maybe.ts): one direct evaluation, then its value if any
      const m = maybeOf(this, n, sc, NATIVES);
      if (m !== null)
        return (i, env, emit) => {
          const v = m(i, env);
          return v === NONE ? false : emit(v);
        };
    }
    switch (n.k) {
      case "identity":
        return (i, _e, emit) => emit(i);
      case "recurse":
        return (i, _e, emit) => recurseAll(i, emit);
      case "literal": {
        const v = n.v;
        return (_i, _e, emit) => emit(v);
      }
      case "str":
        return strGen(this, n.parts, n.fmt, sc);
      case "format": {
        const name = n.name;
        checkFormat(name);
        return (i, _e, emit) => emit(chargeFormatted(applyFormat(name, i)));
      }
      case "index":
        if (n.opt) {
          const t = this.gen(n.target, sc);
          const k = this.gen(n.key, sc);
          return (i, env, emit) =>
            k(i, env, (kv) => t(i, env, (tv) => emitUnlessError(() => indexValue(tv, kv), emit)));
        }
        return this.indexGen(n.target, n.key, sc);
      case "slice": {
        const t = this.gen(n.target, sc);
        const from = n.from ? this.gen(n.from, sc) : null;
        const to = n.to ? this.gen(n.to, sc) : null;
        if (n.opt)
          return (i, env, emit) =>
            withOpt(from, i, env, (f) =>
              withOpt(to, i, env, (e) =>
                t(i, env, (tv) => emitUnlessError(() => sliceValue(tv, f, e), emit)),
              ),
            );
        return (i, env, emit) =>
          withOpt(from, i, env, (f) =>
            withOpt(to, i, env, (e) => t(i, env, (tv) => emit(sliceValue(tv, f, e)))),
          );
      }
      case "iterate": {
        const t = this.gen(n.target, sc);
        if (n.opt) return (i, env, emit) => t(i, env, (tv) => (isIterable(tv) ? iterate(tv, emit) : false));
        return (i, env, emit) => t(i, env, (tv) => iterate(tv, emit));
      }
      case "pipe": {
        const r = this.gen(n.r, sc);
        const ls = singleOf(this, n.l, sc, NATIVES);
        if (ls !== null) return (i, env, emit) => r(ls(i, env), env, emit);
        const lm = maybeOf(this, n.l, sc, NATIVES);
        if (lm !== null)
          return (i, env, emit) => {
            const v = lm(i, env);
            return v === NONE ? false : r(v, env, emit);
          };
        const l = this.gen(n.l, sc);
        return (i, env, emit) => l(i, env, (v) => r(v, env, emit));
      }
      case "comma": {
        const l = this.gen(n.l, sc);
        const r = this.gen(n.r, sc);
        return (i, env, emit) => l(i, env, emit) || r(i, env, emit);
      }
      case "neg": {
        const e = this.gen(n.e, sc);
        return (i, env, emit) =>
          e(i, env, (v) => {
            const x = numOf(v);
            return emit(typeof x === "number" ? -x : fail(`${desc(v)} cannot be negated`));
          });
      }
      case "binop": {
        const l = this.gen(n.l, sc);
        const r = this.gen(n.r, sc);
        const op = n.op;
        const f = literalComparison(op, n.l, n.r) ?? binopFn(op);
        if (n.r.k === "literal") {
          const rv = n.r.v;
          return (i, env, emit) => l(i, env, (lv) => emit(f(lv, rv)));
        }
        return (i, env, emit) => r(i, env, (rv) => l(i, env, (lv) => emit(f(lv, rv))));
      }
      case "and":
      case "or": {
        const l = this.gen(n.l, sc);
        const r = this.gen(n.r, sc);
        const isAnd = n.k === "and";
        return (i, env, emit) =>
          l(i, env, (lv) => {
            if (truthy(lv) !== isAnd) return emit(!isAnd);
            return r(i, env, (rv) => emit(truthy(rv)));
          });
      }
      case "alt":
        return altGen(this.gen(n.l, sc), this.gen(n.r, sc));
      case "assign":
        return assignGen(this, n.op, n.l, n.r, sc);
      case "array": {
        if (n.e === null) return (_i, _e, emit) => emit([]);
        const e = this.gen(n.e, sc);
        return (i, env, emit) => {
          const out: Json[] = [];
          charge(ALLOC);
          if (e(i, env, (v) => (charge(1), out.push(v), false))) return true;
          return emit(out);
        };
      }
      case "object":
        return objectGen(this, n.entries, sc);
      case "try":
        return tryGen(this.gen(n.body, sc), n.handler ? this.gen(n.handler, sc) : null);
      case "if": {
        const t = this.gen(n.then, sc);
        const f = n.else ? this.gen(n.else, sc) : null;
        const cs = singleOf(this, n.cond, sc, NATIVES);
        if (cs !== null)
          return (i, env, emit) => (truthy(cs(i, env)) ? t(i, env, emit) : f ? f(i, env, emit) : emit(i));
        const cm = maybeOf(this, n.cond, sc, NATIVES);
        if (cm !== null)
          return (i, env, emit) => {
            const cv = cm(i, env);
            return cv === NONE ? false : truthy(cv) ? t(i, env, emit) : f ? f(i, env, emit) : emit(i);
          };
        const c = this.gen(n.cond, sc);
        return (i, env, emit) =>
          c(i, env, (cv) => (truthy(cv) ? t(i, env, emit) : f ? f(i, env, emit) : emit(i)));
      }
      case "reduce":
        return reduceGen(this, n.src, n.pat, n.init, n.update, sc);
      case "foreach":
        return foreachGen(this, n.src, n.pat, n.init, n.update, n.extract, sc);
      case "bind":
        return compilePatternBind(this, n.src, n.pats, n.body, sc, false) as Gen;
      case "label": {
        const body = this.gen(n.body, sc.push("label", n.name));
        return (i, env, emit) => {
          const token = {};
          const r = body(i, new Env(token, env), emit);
          if (S.breaking === token) {
            S.breaking = null;
            return false;
          }
          return r;
        };
      }
      case "break": {
        const d = sc.lookupSlot("label", n.name);
        if (d < 0) throw new JqCompileError("$*label-" + n.name + " is not defined", n.pos);
        return (_i, env, _emit) => {
          S.breaking = (up(env, d) as Env).v;
          return true;
        };
      }
      case "funcdef":
        return this.gen(n.rest, this.define(n.def, sc));
      case "call":
        return this.callGen(n.name, n.args, sc, n.pos, n);
      case "var":
        return this.varGen(n.name, sc, n.pos);
      case "loc": {
        const line = n.line;
        return (_i, _e, emit) => emit({ file: "<top-level>", line });
      }
    }
  }

  /** Compiles a node in path mode. */
  pgen(n: Node, sc: Scope): PGen {
    return compilePathMode(this, n, sc);
  }

  /** Adds a function definition to the scope, compiling user bodies eagerly so errors surface. */
  define(def: FuncDef, sc: Scope): Scope {
    const valueParams: number[] = [];
    def.params.forEach((p, j) => {
      if (p.startsWith("$")) valueParams.push(j);
    });
    const fi: FuncInfo = {
      def,
      arity: def.params.length,
      defDepth: sc.depth,
      scope: sc,
      gen: null,
      pgen: null,
      valueParams,
    };
    const s2 = sc.pushFunc(fi);
    fi.scope = s2;
    if (this.eager) this.ensureGen(fi);
    return s2;
  }

  private bodyScope(fi: FuncInfo): Scope {
    let s = fi.scope;
    for (const p of fi.def.params) s = s.push("closure", p.startsWith("$") ? p.slice(1) : p);
    for (const j of fi.valueParams) s = s.push("var", fi.def.params[j].slice(1));
    return s;
  }

  private ensureGen(fi: FuncInfo): void {
    if (fi.gen !== null) return;
    let real: Gen | null = null;
    fi.gen = (i, env, emit) => (real as Gen)(i, env, emit);
    try {
      real = this.gen(fi.def.body, this.bodyScope(fi));
    } catch (e) {
      fi.gen = null;
      throw e;
    }
    fi.gen = real;
  }

  private ensurePGen(fi: FuncInfo): void {
    if (fi.pgen !== null) return;
    let real: PGen | null = null;
    fi.pgen = (i, p, env, emit) => (real as PGen)(i, p, env, emit);
    try {
      real = this.pgen(fi.def.body, this.bodyScope(fi));
    } catch (e) {
      fi.pgen = null;
      throw e;
    }
    fi.pgen = real;
  }

  /** Prepares a call argument: value mode now, path mode when first needed. */
  arg(node: Node, sc: Scope): ArgInfo {
    return {
      node,
      gen: this.gen(node, sc),
      pgen: null,
      compilePath: () => this.pgen(node, sc),
      compileVal: () => this.argVal(node, sc),
    };
  }

  /** An argument's single-valued evaluator, or null (also when it cannot be built). */
  private argVal(node: Node, sc: Scope): Val | null {
    try {
      return singleOf(this, node, sc, NATIVES);
    } catch {
      return null;
    }
  }

  private callEnv(
    fi: FuncInfo,
    sc: Scope,
    args: ArgInfo[],
  ): (env: Env | null, i: Json, k: (e: Env | null) => boolean) => boolean {
    const hops = sc.depth - fi.defDepth;
    const vps = fi.valueParams;
    const n = args.length;
    return (env, i, k) => {
      let e = fi.defDepth === 0 ? null : up(env, hops);
      for (let j = 0; j < n; j++) e = new Env(new Closure(args[j], env), e);
      if (vps.length === 0) return k(e);
      const go = (idx: number, e2: Env | null): boolean => {
        if (idx === vps.length) return k(e2);
        return args[vps[idx]].gen(i, env, (v) => go(idx + 1, new Env(v, e2)));
      };
      return go(0, e);
    };
  }

  private resolve(
    name: string,
    nargs: number,
    sc: Scope,
    pos: number,
  ): { closure: number } | { inline: InlineArg } | { fi: FuncInfo } | { native: Native } {
    const r = sc.lookupCallable(name, nargs);
    if (r) return "fi" in r && r.fi.native !== undefined ? { native: r.fi.native } : r;
    const nat = NATIVES.get(name + "/" + nargs);
    if (nat) return { native: nat };
    throw new JqCompileError(`${name}/${nargs} is not defined`, pos);
  }

  /** A call of a jq-defined function as a direct evaluator of its inlined body, or null (see compile-inline.ts). */
  inlinedVal(n: CallNode, fi: FuncInfo, sc: Scope): Val | null {
    if (!hasFilterParam(fi)) return this.valueCallVal(n, fi, sc);
    const site = inlineSite(this, this.inlining, fi, n, sc);
    if (site === null) return null;
    const body = withInlining(this.inlining, fi, () => singleOf(this, site.body, site.scope, NATIVES));
    if (body === null) return null;
    const vals: Val[] = [];
    for (const a of site.values) {
      const v = singleOf(this, a, site.callerScope, NATIVES);
      if (v === null) return null;
      vals.push(v);
    }
    return inlineVal(site, body, vals);
  }

  /** A call of a function without filter parameters: its arguments' and its body's direct evaluators (the body compiled once per definition). */
  private valueCallVal(n: CallNode, fi: FuncInfo, sc: Scope): Val | null {
    const st = this.inlining;
    if (fi.native !== undefined || st.stack.includes(fi) || st.stack.length >= INLINE_MAX_DEPTH) return null;
    const body = valueBody(st, fi, (b, s) => singleOf(this, b, s, NATIVES));
    if (body === null) return null;
    const vals: Val[] = [];
    for (const a of n.args) {
      const v = singleOf(this, a, sc, NATIVES);
      if (v === null) return null;
      vals.push(v);
    }
    return inlineVal({ hops: hopsTo(fi, sc) }, body, vals);
  }

  private callGen(name: string, argNodes: Node[], sc: Scope, pos: number, node?: CallNode): Gen {
    const r = this.resolve(name, argNodes.length, sc, pos);
    if ("inline" in r)
      return r.inline.hidden === undefined ? r.inline.arg.gen : this.varGen(r.inline.hidden, sc, pos);
    // only filter parameters cost a closure per call; other bodies are inlined where single-valued (singleOf)
    if ("fi" in r && node !== undefined && hasFilterParam(r.fi)) {
      const fi = r.fi;
      const site = inlineSite(this, this.inlining, fi, node, sc);
      if (site !== null)
        return inlineGen(
          this,
          site,
          withInlining(this.inlining, fi, () => this.gen(site.body, site.scope)),
        );
    }
    if ("closure" in r) {
      const d = r.closure;
      return (i, env, emit) => {
        const c = (up(env, d) as Env).v as Closure;
        return c.arg.gen(i, c.env, emit);
      };
    }
    const args = argNodes.map((a) => this.arg(a, sc));
    if ("native" in r) {
      const nat = r.native.gen;
      return (i, env, emit) => {
        step();
        return nat(i, args, env, emit);
      };
    }
    const fi = r.fi;
    this.ensureGen(fi);
    if (args.length === 0) {
      const hops = sc.depth - fi.defDepth;
      if (fi.defDepth === 0)
        return (i, _env, emit) => {
          step();
          return (fi.gen as Gen)(i, null, emit);
        };
      return (i, env, emit) => {
        step();
        return (fi.gen as Gen)(i, up(env, hops), emit);
      };
    }
    const mk = this.callEnv(fi, sc, args);
    return (i, env, emit) => {
      step();
      return mk(env, i, (e) => (fi.gen as Gen)(i, e, emit));
    };
  }

  /** Compiles a call in path mode. */
  callPGen(name: string, argNodes: Node[], sc: Scope, pos: number, node?: CallNode): PGen {
    const r = this.resolve(name, argNodes.length, sc, pos);
    if ("inline" in r)
      return r.inline.hidden === undefined
        ? pathOf(r.inline.arg)
        : this.pgen({ k: "var", name: r.inline.hidden, pos }, sc);
    if ("fi" in r && node !== undefined && hasFilterParam(r.fi)) {
      const fi = r.fi;
      const site = inlineSite(this, this.inlining, fi, node, sc);
      if (site !== null)
        return inlinePGen(
          this,
          site,
          withInlining(this.inlining, fi, () => this.pgen(site.body, site.scope)),
        );
    }
    if ("closure" in r) {
      const d = r.closure;
      return (i, p, env, emit) => {
        const c = (up(env, d) as Env).v as Closure;
        return pathOf(c.arg)(i, p, c.env, emit);
      };
    }
    const args = argNodes.map((a) => this.arg(a, sc));
    if ("native" in r) {
      const nat = r.native.pgen;
      if (!nat) return nonPath(this.callGen(name, argNodes, sc, pos));
      return (i, p, env, emit) => {
        step();
        return nat(i, p, args, env, emit);
      };
    }
    const fi = r.fi;
    this.ensurePGen(fi);
    const mk = this.callEnv(fi, sc, args);
    return (i, p, env, emit) => {
      step();
      return mk(env, i, (e) => (fi.pgen as PGen)(i, p, e, emit));
    };
  }

  private varGen(name: string, sc: Scope, pos: number): Gen {
    const found = sc.lookupVar(name);
    if (found === null) {
      if (name === "ENV") return (_i, _e, emit) => emit(S.env);
      throw new JqCompileError(`$${name} is not defined`, pos);
    }
    if ("value" in found) {
      const v = found.value;
      return (_i, _e, emit) => emit(v);
    }
    const d = found.slot;
    if (d === 0) return (_i, env, emit) => emit((env as Env).v as Json);
    return (_i, env, emit) => emit((up(env, d) as Env).v as Json);
  }

  private indexGen(target: Node, key: Node, sc: Scope): Gen {
    if (key.k === "literal" && typeof key.v === "string") {
      const k = key.v;
      const safe = fieldSite(k);
      if (target.k === "identity") return (i, _e, emit) => emit(field(i, k, safe));
      const k0 = inputFieldKey(target);
      if (k0 !== null) {
        const safe0 = fieldSite(k0);
        return (i, _e, emit) => emit(field(field(i, k0, safe0), k, safe));
      }
      const t = this.gen(target, sc);
      return (i, env, emit) => t(i, env, (tv) => emit(field(tv, k, safe)));
    }
    const t = this.gen(target, sc);
    if (key.k === "literal") {
      const kv = key.v;
      return (i, env, emit) => t(i, env, (tv) => emit(indexValue(tv, kv)));
    }
    const k = this.gen(key, sc);
    return (i, env, emit) => k(i, env, (kv) => t(i, env, (tv) => emit(indexValue(tv, kv))));
  }

  /** Compiles a single destructuring pattern into a binder plus the scope it creates. */
  patternBinder(
    pat: Pattern,
    sc: Scope,
  ): { bind: (x: Json, i: Json, env: Env | null, k: (e: Env | null) => boolean) => boolean; scope: Scope } {
    if (pat.k === "pvar")
      return { bind: (x, _i, env, k) => k(new Env(x, env)), scope: sc.push("var", pat.name) };
    const r = compilePatternBind(this, null, [pat], null, sc, false);
    return r as unknown as {
      bind: (x: Json, i: Json, env: Env | null, k: (e: Env | null) => boolean) => boolean;
      scope: Scope;
    };
  }
}

export { getPath, delPaths, invalidPathResult, iterate, recurseAll };
export { recursePaths } from "./eval-helpers.js";
