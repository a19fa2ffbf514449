/**
 * Direct evaluators for expressions that yield at most one value: the single-valued forms
 * (compile-single.ts) and, over them, `empty`, `error`, `select(f)`, `capture` of a literal
 * pattern, `try`, `.k?`, and the forms that combine such parts (`|`, `if`, operators,
 * `//`, `as $x`, objects, interpolation, literal-path assignments, inlined calls). Each
 * returns its value or {@link NONE}, so a chain such as `capture(…) | if … | del(…)` runs
 * without a generator and a callback per stage. Semantics are the general evaluator's: the
 * same outputs, the same errors in the same order, the same budget charges (each form charges
 * what its generator in compile.ts / compile-forms.ts charges, at the same point).
 */
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import type { Compiler, Native } from "./compile.js";
import { applyFormat } from "./formats.js";
import { binopFn, indexValue, literalComparison } from "./ops.js";
import { IS_PROTO_KEY, interpText } from "./eval-helpers.js";
import { captureFirst } from "./regex.js";
import { ALLOC, charge, COPY_KEY, Env, KEY, step } from "./runtime.js";
import type { FuncInfo, Scope } from "./scope.js";
import { memoOf, singleOf, type Val } from "./compile-single.js";
import { literalAssignMaybe } from "./compile-forms.js";
import {
  hopsTo,
  inlineMaybe,
  inlineSite,
  maybeBody,
  withInlining,
  INLINE_MAX_DEPTH,
} from "./compile-inline.js";
import { isIndexKey, orderOf, readAt, replaceAt, withoutKeyAt } from "./key-order.js";
import { JqError, desc, fail, isObject, numOf, truthy, type JObj } from "./values.js";

/** What an at-most-one evaluator returns when its expression yields nothing. */
export const NONE: unique symbol = Symbol("none");

/** An expression yielding at most one value: input and environment in, the value or {@link NONE} out (or a thrown error). */
export type Opt = (i: Json, env: Env | null) => Json | typeof NONE;

type CallNode = Extract<Node, { k: "call" }>;

/**
 * Whether compilations build this tier (on, except in tests that compare it with the general
 * evaluator: outputs, errors and the exact budget spent). Read when a node is first compiled.
 */
export const MAYBE_TIER = { on: true };

/** Memo fields kept on a `$name` pattern: the scope its binding made from the scope it was last compiled in. */
type PatMemo = { pushedFrom?: Scope; pushed?: Scope };

/**
 * `sc` with the variable of a one-variable pattern bound, the same scope object each time from the
 * same `sc`, so the direct and the generator forms of `… as $x | body` share what is kept per node
 * and scope (compiling either one first does not make the other compile `body` again).
 */
export function varScope(pat: object, sc: Scope, name: string): Scope {
  const m = pat as PatMemo;
  if (m.pushedFrom === sc && m.pushed !== undefined) return m.pushed;
  const s = sc.push("var", name);
  m.pushedFrom = sc;
  m.pushed = s;
  return s;
}

/** Returns a direct evaluator when `n` yields at most one value (a single-valued one when it yields exactly one), else null. */
export function maybeOf(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>): Opt | null {
  const s = singleOf(c, n, sc, natives);
  if (s !== null || !MAYBE_TIER.on) return s;
  // kept beside the single-valued result (compile-single.ts's NodeMemo), which singleOf has just made for `sc`
  const memo = memoOf(n, sc);
  if (memo.maybe !== undefined) return memo.maybe;
  // set first: a node met again inside its own compilation (it cannot be, but stay finite) is not at most one
  memo.maybe = null;
  const val = build(c, n, sc, natives);
  memoOf(n, sc).maybe = val;
  return val;
}

/** Operands are compiled by calling {@link maybeOf} directly, with no helper closure per build (see compile-single.ts's `build`). */
function build(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>): Opt | null {
  switch (n.k) {
    case "index": {
      // `.k?` (INDEX_OPT): nothing when the indexing step raises; the key's and target's errors propagate (key first, as indexGen)
      if (!n.opt) return null;
      const k = maybeOf(c, n.key, sc, natives);
      const t = maybeOf(c, n.target, sc, natives);
      if (k === null || t === null) return null;
      return (i, env) => {
        const kv = k(i, env);
        if (kv === NONE) return NONE;
        const tv = t(i, env);
        if (tv === NONE) return NONE;
        try {
          return indexValue(tv, kv);
        } catch (e) {
          if (e instanceof JqError) return NONE;
          throw e;
        }
      };
    }
    case "neg": {
      const e = maybeOf(c, n.e, sc, natives);
      if (e === null) return null;
      return (i, env) => {
        const v = e(i, env);
        if (v === NONE) return NONE;
        const x = numOf(v);
        return typeof x === "number" ? -x : fail(`${desc(v)} cannot be negated`);
      };
    }
    case "binop": {
      const l = maybeOf(c, n.l, sc, natives);
      const r = maybeOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      const f = literalComparison(n.op, n.l, n.r) ?? binopFn(n.op);
      if (n.r.k === "literal") {
        const rv = n.r.v;
        return (i, env) => {
          const lv = l(i, env);
          return lv === NONE ? NONE : f(lv, rv);
        };
      }
      // the right operand first, as the general path runs them
      return (i, env) => {
        const rv = r(i, env);
        if (rv === NONE) return NONE;
        const lv = l(i, env);
        return lv === NONE ? NONE : f(lv, rv);
      };
    }
    case "and":
    case "or": {
      const l = maybeOf(c, n.l, sc, natives);
      const r = maybeOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      const isAnd = n.k === "and";
      return (i, env) => {
        const lv = l(i, env);
        if (lv === NONE) return NONE;
        if (truthy(lv) !== isAnd) return !isAnd;
        const rv = r(i, env);
        return rv === NONE ? NONE : truthy(rv);
      };
    }
    case "alt": {
      // truthy output of the left, else the right's (errors of the left propagate, as altGen)
      const l = maybeOf(c, n.l, sc, natives);
      const r = maybeOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      return (i, env) => {
        const v = l(i, env);
        return v !== NONE && truthy(v) ? v : r(i, env);
      };
    }
    case "pipe": {
      const l = maybeOf(c, n.l, sc, natives);
      if (l === null) return null;
      // a fresh object (`capture(…)`) handed to a chain that may change it in place (`del(.k)`, `map_values(f)`)
      if (freshOf(n.l, sc, natives)) {
        const o = ownedOf(c, n.r, sc, natives, 0);
        if (o !== null) {
          const r = o.ev;
          return (i, env) => {
            const v = l(i, env);
            return v === NONE ? NONE : r(v, env);
          };
        }
      }
      const r = maybeOf(c, n.r, sc, natives);
      if (r === null) return null;
      return (i, env) => {
        const v = l(i, env);
        return v === NONE ? NONE : r(v, env);
      };
    }
    case "if": {
      const cnd = maybeOf(c, n.cond, sc, natives);
      const t = maybeOf(c, n.then, sc, natives);
      const f = n.else ? maybeOf(c, n.else, sc, natives) : (i: Json) => i;
      if (cnd === null || t === null || f === null) return null;
      return (i, env) => {
        const cv = cnd(i, env);
        if (cv === NONE) return NONE;
        return truthy(cv) ? t(i, env) : f(i, env);
      };
    }
    case "try": {
      // the body's own errors only: nothing runs downstream of it inside this evaluator
      const b = maybeOf(c, n.body, sc, natives);
      const h = n.handler === null ? null : maybeOf(c, n.handler, sc, natives);
      if (b === null || (n.handler !== null && h === null)) return null;
      return (i, env) => {
        try {
          return b(i, env);
        } catch (e) {
          if (!(e instanceof JqError)) throw e;
          return h === null ? NONE : h(e.value, env);
        }
      };
    }
    case "object": {
      // literal keys only (objectGen's constant-key form): values in source order, then the object and its charge
      const names: string[] = [];
      const vs: Opt[] = [];
      for (const e of n.entries) {
        if (
          e.key.k !== "literal" ||
          typeof e.key.v !== "string" ||
          isIndexKey(e.key.v) ||
          e.key.v === "__proto__"
        )
          return null;
        const v = maybeOf(c, e.value, sc, natives);
        if (v === null) return null;
        names.push(e.key.v);
        vs.push(v);
      }
      const cnt = names.length;
      return (i, env) => {
        const vals: Json[] = new Array<Json>(cnt);
        for (let j = 0; j < cnt; j++) {
          const v = vs[j](i, env);
          if (v === NONE) return NONE;
          vals[j] = v;
        }
        const o: JObj = {};
        for (let j = 0; j < cnt; j++) o[names[j]] = vals[j];
        charge(cnt + ALLOC);
        return o;
      };
    }
    case "str": {
      // parts evaluated last first, each converted as it comes (strGen's order)
      const parts: Array<string | Opt> = [];
      for (const p of n.parts) {
        if (typeof p === "string") parts.push(p);
        else {
          const v = maybeOf(c, p, sc, natives);
          if (v === null) return null;
          parts.push(v);
        }
      }
      const fmt = n.fmt;
      const conv = fmt === null ? interpText : (v: Json) => applyFormat(fmt, v);
      const cnt = parts.length;
      return (i, env) => {
        const texts: string[] = new Array<string>(cnt);
        for (let j = cnt - 1; j >= 0; j--) {
          const p = parts[j];
          if (typeof p === "string") continue;
          const v = p(i, env);
          if (v === NONE) return NONE;
          texts[j] = conv(v);
        }
        let s = "";
        for (let j = 0; j < cnt; j++) {
          const p = parts[j];
          s += typeof p === "string" ? p : texts[j];
        }
        charge(s.length + 2 * ALLOC * cnt);
        return s;
      };
    }
    case "bind": {
      // `src as $x | body` (one plain variable): no charge of its own, as compilePatternBind's
      if (n.pats.length !== 1 || n.pats[0].k !== "pvar") return null;
      const s = maybeOf(c, n.src, sc, natives);
      if (s === null) return null;
      const b = maybeOf(c, n.body, varScope(n.pats[0], sc, n.pats[0].name), natives);
      if (b === null) return null;
      return (i, env) => {
        const x = s(i, env);
        return x === NONE ? NONE : b(i, new Env(x, env));
      };
    }
    case "assign":
      return literalAssignMaybe(c, n.op, n.l, n.r, sc);
    case "call":
      return callMaybe(c, n, sc, natives);
    default:
      return null;
  }
}

/**
 * The natives the tier recognises, looked up once per native table and looked up again when the table
 * has grown (natives are registered as the builtins modules load), not a map lookup each per call compiled.
 */
interface Known {
  empty0?: Native;
  error0?: Native;
  error1?: Native;
  select1?: Native;
  capture1?: Native;
  capture2?: Native;
}
let knownTable: Map<string, Native> | null = null;
let knownSize = -1;
let knownNatives: Known = {};

function known(natives: Map<string, Native>): Known {
  if (knownTable === natives && knownSize === natives.size) return knownNatives;
  knownTable = natives;
  knownSize = natives.size;
  knownNatives = {
    empty0: natives.get("empty/0"),
    error0: natives.get("error/0"),
    error1: natives.get("error/1"),
    select1: natives.get("select/1"),
    capture1: natives.get("capture/1"),
    capture2: natives.get("capture/2"),
  };
  return knownNatives;
}

function callMaybe(c: Compiler, n: CallNode, sc: Scope, natives: Map<string, Native>): Opt | null {
  const found = sc.lookupCallable(n.name, n.args.length);
  if (found !== null && "inline" in found) {
    // a hidden variable is single-valued (compile-single.ts); a filter argument is its own code
    if (found.inline.hidden !== undefined) return null;
    return maybeOf(c, found.inline.arg.node, found.inline.scope, natives);
  }
  if (found !== null && "fi" in found && found.fi.native === undefined)
    return inlinedMaybe(c, n, found.fi, sc, natives);
  if (found !== null && "closure" in found) return null;
  const nat =
    found === null ? natives.get(n.name + "/" + n.args.length) : "fi" in found ? found.fi.native : undefined;
  if (nat === undefined) return null;
  const kn = known(natives);
  // the natives below charge a step per call, as callGen does before running them
  if (nat === kn.empty0)
    return () => {
      step();
      return NONE;
    };
  if (nat === kn.error0)
    return (i) => {
      step();
      throw new JqError(i);
    };
  const a0 = n.args.length > 0 ? maybeOf(c, n.args[0], sc, natives) : null;
  if (a0 === null) return null;
  if (nat === kn.error1)
    return (i, env) => {
      step();
      const v = a0(i, env);
      if (v === NONE) return NONE;
      throw new JqError(v);
    };
  if (nat === kn.select1)
    return (i, env) => {
      step();
      const v = a0(i, env);
      return v !== NONE && truthy(v) ? i : NONE;
    };
  // `capture` without `g`: its one match or nothing (a literal pattern, and literal flags)
  const p = n.args[0];
  if (p.k !== "literal" || typeof p.v !== "string") return null;
  const re = p.v;
  if (nat === kn.capture1)
    return (i) => {
      step();
      return captureFirst(i, re, null) ?? NONE;
    };
  const f = n.args[1];
  if (nat === kn.capture2 && f.k === "literal" && typeof f.v === "string" && !f.v.includes("g")) {
    const fl = f.v;
    return (i) => {
      step();
      return captureFirst(i, re, fl) ?? NONE;
    };
  }
  return null;
}

/** A call of a jq-defined function whose body (and every non-constant `$` argument) yields at most one value, inlined as compile.ts's `inlinedVal` does. */
function inlinedMaybe(
  c: Compiler,
  n: CallNode,
  fi: FuncInfo,
  sc: Scope,
  natives: Map<string, Native>,
): Opt | null {
  const st = c.inlining;
  if (!fi.def.params.some((p) => !p.startsWith("$"))) {
    if (st.stack.includes(fi) || st.stack.length >= INLINE_MAX_DEPTH) return null;
    const body = maybeBody(st, fi, (b, s) => maybeOf(c, b, s, natives));
    if (body === null) return null;
    const vals: Opt[] = [];
    for (const a of n.args) {
      const v = maybeOf(c, a, sc, natives);
      if (v === null) return null;
      vals.push(v);
    }
    return inlineMaybe({ hops: hopsTo(fi, sc) }, body, vals);
  }
  const site = inlineSite(c, st, fi, n, sc);
  if (site === null) return null;
  const body = withInlining(st, fi, () => maybeOf(c, site.body, site.scope, natives));
  if (body === null) return null;
  const vals: Opt[] = [];
  for (const a of site.values) {
    const v = maybeOf(c, a, site.callerScope, natives);
    if (v === null) return null;
    vals.push(v);
  }
  return inlineMaybe(site, body, vals);
}

/**
 * An evaluator that may change its input in place, for an input no one else holds (an object just
 * built by the left side of a pipe); `owned` when its output is again such a value (the input
 * itself or one just built), so a pipe after it may change that in place too.
 */
interface Owned {
  ev: Opt;
  owned: boolean;
}

/** Deepest nesting of `if`, `|` and inlined calls followed by {@link ownedOf}. */
const OWNED_MAX_DEPTH = 16;

/** Whether `n` yields only objects built by itself (`capture` of a literal pattern), so no one else holds them. */
function freshOf(n: Node, sc: Scope, natives: Map<string, Native>): boolean {
  if (n.k !== "call") return false;
  const found = sc.lookupCallable(n.name, n.args.length);
  if (found !== null && "inline" in found)
    return found.inline.hidden === undefined && freshOf(found.inline.arg.node, found.inline.scope, natives);
  const nat =
    found === null ? natives.get(n.name + "/" + n.args.length) : "fi" in found ? found.fi.native : undefined;
  if (nat === undefined || n.args.length === 0 || n.args[0].k !== "literal") return false;
  return nat === natives.get("capture/1") || (nat === natives.get("capture/2") && n.args[1].k === "literal");
}

/**
 * `n` as an evaluator that may change its (unshared) input in place, or null when it has no such form:
 * `.`, `a | b`, `if c then a else b end` (with `c` only reading), `del(.k)` and `map_values(f)`. The
 * charges are those of the ordinary forms, each at its own size, and any input the in-place form does
 * not cover (an array, an object with a key-order record) takes the ordinary evaluator.
 */
function ownedOf(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>, depth: number): Owned | null {
  if (depth > OWNED_MAX_DEPTH) return null;
  switch (n.k) {
    case "identity":
      return { ev: (i) => i, owned: true };
    case "pipe": {
      const a = ownedOf(c, n.l, sc, natives, depth + 1);
      if (a === null) return null;
      const b: Owned | null = a.owned ? ownedOf(c, n.r, sc, natives, depth + 1) : null;
      const bv = b !== null ? b.ev : maybeOf(c, n.r, sc, natives);
      if (bv === null) return null;
      const av = a.ev;
      return {
        ev: (i, env) => {
          const v = av(i, env);
          return v === NONE ? NONE : bv(v, env);
        },
        owned: b !== null && b.owned,
      };
    }
    case "if": {
      if (!readsOnly(n.cond, sc, natives)) return null;
      const cnd = maybeOf(c, n.cond, sc, natives);
      if (cnd === null) return null;
      const t = branch(c, n.then, sc, natives, depth);
      const f = n.else === null ? { ev: (i: Json) => i, owned: true } : branch(c, n.else, sc, natives, depth);
      if (t === null || f === null) return null;
      const tv = t.ev;
      const fv = f.ev;
      return {
        ev: (i, env) => {
          const cv = cnd(i, env);
          if (cv === NONE) return NONE;
          return truthy(cv) ? tv(i, env) : fv(i, env);
        },
        owned: t.owned && f.owned,
      };
    }
    case "call":
      return ownedCall(c, n, sc, natives, depth);
    default:
      return null;
  }
}

/** An `if` branch: its in-place form, else its ordinary one (owned when it never returns, as `error(…)`). */
function branch(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>, depth: number): Owned | null {
  const o = ownedOf(c, n, sc, natives, depth + 1);
  if (o !== null) return o;
  const m = maybeOf(c, n, sc, natives);
  if (m === null) return null;
  return { ev: m, owned: alwaysThrows(n, sc, natives, 0) };
}

/** Whether `n` raises an error whenever it runs (`error(…)`, directly or through small jq-defined functions). */
function alwaysThrows(n: Node, sc: Scope, natives: Map<string, Native>, depth: number): boolean {
  if (n.k !== "call" || depth > 4) return false;
  const found = sc.lookupCallable(n.name, n.args.length);
  if (found !== null && "inline" in found)
    return (
      found.inline.hidden === undefined &&
      alwaysThrows(found.inline.arg.node, found.inline.scope, natives, depth + 1)
    );
  if (found !== null && "fi" in found && found.fi.native === undefined)
    return alwaysThrows(found.fi.def.body, found.fi.scope, natives, depth + 1);
  if (found !== null && "closure" in found) return false;
  const nat =
    found === null ? natives.get(n.name + "/" + n.args.length) : "fi" in found ? found.fi.native : undefined;
  return nat !== undefined && (nat === natives.get("error/0") || nat === natives.get("error/1"));
}

/** Whether `n` only reads its input (so it keeps no reference to it and hands it to no one): paths, literals, variables, operators, `not`, `type`, `length`. */
function readsOnly(n: Node, sc: Scope, natives: Map<string, Native>): boolean {
  switch (n.k) {
    case "identity":
    case "literal":
    case "var":
      return true;
    case "index":
      return n.key.k === "literal" && readsOnly(n.target, sc, natives);
    case "binop":
    case "and":
    case "or":
      return readsOnly(n.l, sc, natives) && readsOnly(n.r, sc, natives);
    case "neg":
      return readsOnly(n.e, sc, natives);
    case "call": {
      if (n.args.length !== 0 || sc.lookupCallable(n.name, 0) !== null) return false;
      const nat = natives.get(n.name + "/0");
      return (
        nat !== undefined &&
        (nat === natives.get("not/0") || nat === natives.get("type/0") || nat === natives.get("length/0"))
      );
    }
    default:
      return false;
  }
}

/** The single parameter's name when `n` calls a one-parameter jq-defined function whose body matches `shape`, else null. */
function defined(n: CallNode, sc: Scope): FuncInfo | null {
  if (n.args.length !== 1) return null;
  const found = sc.lookupCallable(n.name, 1);
  if (found === null || !("fi" in found) || found.fi.native !== undefined) return null;
  const p = found.fi.def.params[0];
  return p.startsWith("$") ? null : found.fi;
}

/** Whether `n` (in the definition's scope) calls the native `name/arity`. */
function callsNative(
  n: Node,
  name: string,
  arity: number,
  sc: Scope,
  natives: Map<string, Native>,
): n is CallNode {
  if (n.k !== "call" || n.name !== name || n.args.length !== arity) return false;
  const found = sc.lookupCallable(name, arity);
  const nat = found === null ? natives.get(name + "/" + arity) : "fi" in found ? found.fi.native : undefined;
  return nat !== undefined && nat === natives.get(name + "/" + arity);
}

/** Whether `n` calls the filter parameter `p`. */
function isParam(n: Node, p: string): boolean {
  return n.k === "call" && n.name === p && n.args.length === 0;
}

/** `del(.k)` (the prelude's `delpaths([path(f)])`) and `map_values(f)` (`.[] |= f`) changing an unshared object in place. */
function ownedCall(
  c: Compiler,
  n: CallNode,
  sc: Scope,
  natives: Map<string, Native>,
  depth: number,
): Owned | null {
  const found = sc.lookupCallable(n.name, n.args.length);
  if (found !== null && "inline" in found)
    return found.inline.hidden === undefined
      ? ownedOf(c, found.inline.arg.node, found.inline.scope, natives, depth + 1)
      : null;
  const fi = defined(n, sc);
  if (fi === null) return null;
  const p = fi.def.params[0];
  const body = fi.def.body;
  // the ordinary evaluator of the call, for inputs the in-place form does not cover
  const plain = maybeOf(c, n, sc, natives);
  if (plain === null) return null;
  if (
    callsNative(body, "delpaths", 1, fi.scope, natives) &&
    body.args[0].k === "array" &&
    body.args[0].e !== null &&
    callsNative(body.args[0].e, "path", 1, fi.scope, natives) &&
    isParam(body.args[0].e.args[0], p)
  ) {
    const key = literalKey(n.args[0], sc);
    if (key === null) return null;
    return { ev: delInPlace(key, plain), owned: true };
  }
  if (
    body.k === "assign" &&
    body.op === "|=" &&
    body.l.k === "iterate" &&
    !body.l.opt &&
    body.l.target.k === "identity" &&
    isParam(body.r, p)
  ) {
    const f = singleOf(c, n.args[0], sc, natives);
    if (f === null) return null;
    return { ev: mapValuesInPlace(f, plain), owned: true };
  }
  return null;
}

/** The key of `.k` (through inlined filter parameters) when it is a plain string key, else null. */
function literalKey(a0: Node, sc0: Scope): string | null {
  let a = a0;
  let s = sc0;
  for (let d = 0; a.k === "call" && a.args.length === 0 && d < 64; d++) {
    const found = s.lookupCallable(a.name, 0);
    if (found === null || !("inline" in found) || found.inline.hidden !== undefined) return null;
    a = found.inline.arg.node;
    s = found.inline.scope;
  }
  if (
    a.k !== "index" ||
    a.opt ||
    a.target.k !== "identity" ||
    a.key.k !== "literal" ||
    typeof a.key.v !== "string"
  )
    return null;
  const k = a.key.v;
  return IS_PROTO_KEY(k) || isIndexKey(k) ? null : k;
}

/** An object whose keys are listed in V8's own order (no key-order record): the one shape changed in place. */
function plainObject(i: Json): i is JObj {
  return isObject(i) && orderOf(i) === undefined;
}

/**
 * `del(.k)` on an unshared object: the key deleted from it. Charged as the ordinary form: the call's,
 * `delpaths`' and `path`'s steps, the one-path array (ALLOC and an element), the path's key, and
 * delKeys' copy of every key plus one.
 */
function delInPlace(key: string, plain: Opt): Opt {
  return (i, env) => {
    if (!plainObject(i)) return plain(i, env);
    const ks = Object.keys(i);
    charge(3 + ALLOC + 2 + COPY_KEY * ks.length + 1);
    // not `delete`: it makes a spread clone (a capture object) or an object losing a key other than its
    // last a dictionary, slow for every later step; a copy without the key is as fresh as the input was
    return Object.prototype.hasOwnProperty.call(i, key) ? (withoutKeyAt(i, ks, key) as JObj) : i;
  };
}

/**
 * `map_values(f)` on an unshared object: each value replaced in place, in key order. Charged as the
 * ordinary form (the call's step, then eachOfObject's copy and a write per key); `f` sees the values
 * as the ordinary form's does.
 */
function mapValuesInPlace(f: Val, plain: Opt): Opt {
  return (i, env) => {
    if (!plainObject(i)) return plain(i, env);
    step();
    const ks = Object.keys(i);
    const cnt = ks.length;
    if (cnt === 0) return i;
    charge(COPY_KEY * cnt + KEY + ALLOC);
    for (let j = 0; j < cnt; j++) {
      const k = ks[j];
      charge(3 + ALLOC);
      replaceAt(i, j, k, f(readAt(i, j, k) as Json, env));
    }
    return i;
  };
}
