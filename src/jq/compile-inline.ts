/**
 * Compile-time inlining of small, non-recursive jq-defined functions: a call whose filter
 * arguments read no environment (paths such as `.a.b`, constants, calls of builtins on them)
 * or are a variable compiles the function's body at the call site, with each filter parameter
 * standing for its argument's own compiled code (a variable's value is read once, at the call),
 * and each `$` parameter given a literal argument bound as a constant. No closure or environment record is made per call, and the body's single-valued
 * parts evaluate directly (compile-single.ts). Semantics are those of the ordinary call:
 * the same outputs in the same order, the same errors, one budget step per call.
 */
import type { Node } from "./ast.js";
import type { Compiler } from "./compile.js";
import { Env, step, up, type Gen, type PGen } from "./runtime.js";
import type { FuncInfo, Scope } from "./scope.js";
import type { Val } from "./compile-single.js";
import { NONE, type Opt } from "./compile-maybe.js";

/** Largest body (in syntax nodes) inlined at a call site. */
export const INLINE_MAX_NODES = 80;
/** Syntax nodes one compilation may copy by inlining; past it, calls are ordinary calls (compiling stays bounded). */
export const INLINE_BUDGET = 4_000;
/** Inlined bodies nested inside each other at most. */
export const INLINE_MAX_DEPTH = 4;

/** One call site's inlined body: its scope, how to reach the definition's environment, and the `$` arguments to bind at run time. */
export interface InlineSite {
  scope: Scope;
  body: Node;
  /** Environment links from the caller's environment to the definition's (-1: the definition is at the root, whose environment is null). */
  hops: number;
  /** The `$` parameters' arguments that are not constants, in binding order (each pushes one Env). */
  values: Node[];
  callerScope: Scope;
}

/** Per-compiler inlining state. */
export interface InlineState {
  spent: number;
  stack: FuncInfo[];
}

type CallNode = Extract<Node, { k: "call" }>;
/** Memo fields kept on call nodes: the last inlining decision and the scope it was made in (as compile-single.ts does). */
type Memo = { inlineScope?: Scope; inlineSite?: InlineSite | null };

/** Keys of the memo fields the compiler keeps on syntax nodes, skipped by walks over a tree. */
export function isMemoKey(key: string): boolean {
  return (
    key === "singleScope" ||
    key === "singleVal" ||
    key === "maybeScope" ||
    key === "maybeVal" ||
    key === "pushedFrom" ||
    key === "pushed" ||
    key === "inlineScope" ||
    key === "inlineSite"
  );
}

function size(n: unknown, acc = { n: 0 }): number {
  if (n === null || typeof n !== "object") return acc.n;
  if (Array.isArray(n)) {
    for (const x of n) size(x, acc);
    return acc.n;
  }
  const o = n as Record<string, unknown>;
  if (typeof o.k === "string") acc.n++;
  // a literal's value is JSON, not syntax
  if (o.k === "literal") return acc.n;
  for (const key in o) {
    if (isMemoKey(key)) continue;
    const v = o[key];
    if (v !== null && typeof v === "object") size(v, acc);
  }
  return acc.n;
}

/** Whether `n`'s compiled code reads no environment binding of `sc` (so it runs the same under any environment). */
export function envFree(n: Node, sc: Scope): boolean {
  switch (n.k) {
    case "identity":
    case "recurse":
    case "literal":
    case "format":
    case "loc":
      return true;
    case "str":
      return n.parts.every((p) => typeof p === "string" || envFree(p, sc));
    case "index":
      return envFree(n.target, sc) && envFree(n.key, sc);
    case "slice":
      return (
        envFree(n.target, sc) &&
        (n.from === null || envFree(n.from, sc)) &&
        (n.to === null || envFree(n.to, sc))
      );
    case "iterate":
      return envFree(n.target, sc);
    case "neg":
      return envFree(n.e, sc);
    case "pipe":
    case "comma":
    case "binop":
    case "and":
    case "or":
    case "alt":
    case "assign":
      return envFree(n.l, sc) && envFree(n.r, sc);
    case "array":
      return n.e === null || envFree(n.e, sc);
    case "object":
      return n.entries.every((e) => envFree(e.key, sc) && envFree(e.value, sc));
    case "try":
      return envFree(n.body, sc) && (n.handler === null || envFree(n.handler, sc));
    case "if":
      return envFree(n.cond, sc) && envFree(n.then, sc) && (n.else === null || envFree(n.else, sc));
    case "var": {
      const found = sc.lookupVar(n.name);
      return found === null || "value" in found;
    }
    case "call": {
      const r = sc.lookupCallable(n.name, n.args.length);
      if (r !== null && "closure" in r) return false;
      if (r !== null && "inline" in r && r.inline.hidden !== undefined) return false;
      // a jq-defined function below the root is reached through the environment
      if (r !== null && "fi" in r && r.fi.native === undefined && r.fi.defDepth !== 0) return false;
      return n.args.every((a) => envFree(a, sc));
    }
    default:
      return false;
  }
}

/** Whether the body calls the filter `name/0` anywhere (shadowing ignored: a conservative answer). */
function callsFilter(n: unknown, name: string): boolean {
  if (n === null || typeof n !== "object") return false;
  if (Array.isArray(n)) return n.some((x) => callsFilter(x, name));
  const o = n as Record<string, unknown>;
  if (o.k === "call" && o.name === name && (o.args as unknown[]).length === 0) return true;
  if (o.k === "literal") return false;
  for (const key in o) {
    if (isMemoKey(key)) continue;
    const v = o[key];
    if (v !== null && typeof v === "object" && callsFilter(v, name)) return true;
  }
  return false;
}

/** Whether `a` is a variable, or a filter parameter inlined as one (`f(v)` inside an inlined body whose `v` is a variable). */
function standsForVar(a: Node, sc: Scope): boolean {
  if (a.k === "var") return sc.lookupVar(a.name) !== null;
  if (a.k !== "call" || a.args.length !== 0) return false;
  const r = sc.lookupCallable(a.name, 0);
  return r !== null && "inline" in r && r.inline.hidden !== undefined;
}

/**
 * The inlined body for a call of `fi` at `n` in `sc`, or null when the call stays an ordinary
 * call (a large or recursive body, an argument that reads the environment, the budget spent).
 */
export function inlineSite(
  c: Compiler,
  st: InlineState,
  fi: FuncInfo,
  n: CallNode,
  sc: Scope,
): InlineSite | null {
  // checked before the memo: the same node in the same scope may be met inside its own inlined body
  if (fi.native !== undefined || st.stack.includes(fi) || st.stack.length >= INLINE_MAX_DEPTH) return null;
  const memo = n as Memo;
  if (memo.inlineScope === sc && memo.inlineSite !== undefined) return memo.inlineSite;
  const site = build(c, st, fi, n, sc);
  memo.inlineScope = sc;
  memo.inlineSite = site;
  return site;
}

function build(c: Compiler, st: InlineState, fi: FuncInfo, n: CallNode, sc: Scope): InlineSite | null {
  fi.size ??= size(fi.def.body);
  if (fi.size > INLINE_MAX_NODES || st.spent + fi.size > INLINE_BUDGET) return null;
  const params = fi.def.params;
  let s = fi.scope;
  const values: Node[] = [];
  for (let j = 0; j < params.length; j++) {
    const p = params[j];
    const name = p.startsWith("$") ? p.slice(1) : p;
    const a = n.args[j];
    if (envFree(a, sc)) s = s.pushInline(name, { arg: c.arg(a, sc), scope: sc });
    else if (!p.startsWith("$") && standsForVar(a, sc)) {
      // a variable's value cannot change during the call: read once at the call, kept in a hidden variable
      const hidden = `${name}\u0000`;
      s = s.push("var", hidden).pushInline(name, { arg: c.arg(a, sc), scope: sc, hidden });
      values.push(a);
    } else if (!p.startsWith("$") || callsFilter(fi.def.body, name)) return null;
  }
  // `$` parameters bind after all filter parameters, in order (as an ordinary call's environment);
  // a literal argument is bound as a constant, with no runtime slot
  for (let j = 0; j < params.length; j++) {
    if (!params[j].startsWith("$")) continue;
    const name = params[j].slice(1);
    const a = n.args[j];
    if (a.k === "literal") s = s.pushConst(name, a.v);
    else {
      s = s.push("var", name);
      values.push(a);
    }
  }
  st.spent += fi.size;
  return {
    scope: s,
    body: fi.def.body,
    hops: hopsTo(fi, sc),
    values,
    callerScope: sc,
  };
}

/**
 * For a function without filter parameters: its body as a direct evaluator with the `$`
 * parameters bound as variables (as an ordinary call binds them), compiled once per
 * definition and kept on it, or null (a large, recursive or not single-valued body, or a
 * body that calls a `$` parameter as a filter). Every call site reuses it, so a program, the
 * prelude or a module compiles such a body once, not once per call site; the first compile
 * is charged to the inlining budget.
 */
export function valueBody(
  st: InlineState,
  fi: FuncInfo,
  compile: (body: Node, sc: Scope) => Val | null,
): Val | null {
  if (fi.valueBody !== undefined) return fi.valueBody;
  const body = compileValueBody(st, fi, compile);
  if (body !== undefined) fi.valueBody = body;
  return body ?? null;
}

/** {@link valueBody} for a body that yields at most one value (compile-maybe.ts), kept on the definition beside it. */
export function maybeBody(
  st: InlineState,
  fi: FuncInfo,
  compile: (body: Node, sc: Scope) => Opt | null,
): Opt | null {
  if (fi.maybeBody !== undefined) return fi.maybeBody;
  const body = compileValueBody(st, fi, compile);
  if (body !== undefined) fi.maybeBody = body;
  return body ?? null;
}

/** The body compiled with its `$` parameters as variables, null when it cannot be, undefined when the budget is spent (not kept). */
function compileValueBody<T>(
  st: InlineState,
  fi: FuncInfo,
  compile: (body: Node, sc: Scope) => T | null,
): T | null | undefined {
  fi.size ??= size(fi.def.body);
  if (fi.size > INLINE_MAX_NODES) return null;
  // not kept: the budget is this compilation's
  if (st.spent + fi.size > INLINE_BUDGET) return undefined;
  st.spent += fi.size;
  let s = fi.scope;
  const params = fi.def.params;
  if (params.some((p) => callsFilter(fi.def.body, p.slice(1)))) return null;
  for (const p of params) s = s.push("var", p.slice(1));
  return withInlining(st, fi, () => compile(fi.def.body, s));
}

/** Compiles the body of `site` under the inlining stack (so it does not inline `fi` into itself). */
export function withInlining<T>(st: InlineState, fi: FuncInfo, f: () => T): T {
  st.stack.push(fi);
  try {
    return f();
  } finally {
    st.stack.pop();
  }
}

function base(hops: number, env: Env | null): Env | null {
  return hops < 0 ? null : hops === 0 ? env : up(env, hops);
}

/** The call as a value-mode generator running the inlined body. */
export function inlineGen(c: Compiler, site: InlineSite, body: Gen): Gen {
  const hops = site.hops;
  const vals = site.values.map((a) => c.gen(a, site.callerScope));
  if (vals.length === 0)
    return (i, env, emit) => {
      step();
      return body(i, base(hops, env), emit);
    };
  const nv = vals.length;
  return (i, env, emit) => {
    step();
    const go = (idx: number, e: Env | null): boolean =>
      idx === nv ? body(i, e, emit) : vals[idx](i, env, (v) => go(idx + 1, new Env(v, e)));
    return go(0, base(hops, env));
  };
}

/** The call as a path-mode generator running the inlined body. */
export function inlinePGen(c: Compiler, site: InlineSite, body: PGen): PGen {
  const hops = site.hops;
  const vals = site.values.map((a) => c.gen(a, site.callerScope));
  const nv = vals.length;
  return (i, p, env, emit) => {
    step();
    if (nv === 0) return body(i, p, base(hops, env), emit);
    const go = (idx: number, e: Env | null): boolean =>
      idx === nv ? body(i, p, e, emit) : vals[idx](i, env, (v) => go(idx + 1, new Env(v, e)));
    return go(0, base(hops, env));
  };
}

/** Environment links from a call in `sc` to `fi`'s definition (-1: the definition is at the root, whose environment is null). */
export function hopsTo(fi: FuncInfo, sc: Scope): number {
  return fi.defDepth === 0 ? -1 : sc.depth - fi.defDepth;
}

/** The call as a direct evaluator when the body and every non-constant `$` argument yield exactly one value. */
export function inlineVal(site: { hops: number }, body: Val, vals: Val[]): Val {
  const hops = site.hops;
  if (vals.length === 0)
    return (i, env) => {
      step();
      return body(i, base(hops, env));
    };
  if (vals.length === 1) {
    const a0 = vals[0];
    return (i, env) => {
      step();
      return body(i, new Env(a0(i, env), base(hops, env)));
    };
  }
  return (i, env) => {
    step();
    let e = base(hops, env);
    for (const a of vals) e = new Env(a(i, env), e);
    return body(i, e);
  };
}

/** {@link inlineVal} for a body and `$` arguments that yield at most one value: nothing when one of them yields nothing. */
export function inlineMaybe(site: { hops: number }, body: Opt, vals: Opt[]): Opt {
  const hops = site.hops;
  if (vals.length === 0)
    return (i, env) => {
      step();
      return body(i, base(hops, env));
    };
  const nv = vals.length;
  return (i, env) => {
    step();
    let e = base(hops, env);
    for (let j = 0; j < nv; j++) {
      const v = vals[j](i, env);
      if (v === NONE) return NONE;
      e = new Env(v, e);
    }
    return body(i, e);
  };
}
