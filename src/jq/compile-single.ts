/**
 * Direct evaluators for expressions that always yield exactly one value (`.a.b`, `. > 5`,
 * `length`, `{a: .x}`...). They return the value instead of calling an emit callback, which
 * keeps the JavaScript stack flat (deep jq recursion) and avoids closure allocation per output.
 */
import type { Json } from "../engines/common/json.js";
import { inputFieldKey, type Node } from "./ast.js";
import type { Compiler, Native } from "./compile.js";
import { applyFormat } from "./formats.js";
import { binopFn, indexValue, literalComparison, sliceValue } from "./ops.js";
import { field, fieldSite } from "./eval-helpers.js";
import { printCompact } from "./print.js";
import { ALLOC, charge, chargeFormatted, Env, KEY, step, up, type Gen } from "./runtime.js";
import { JqCompileError, type Scope } from "./scope.js";
import { isMemoKey } from "./compile-inline.js";
import { updateEachOf } from "./compile-forms.js";
import { maybeOf, NONE, type Opt } from "./compile-maybe.js";
import { buildKey, isIndexKey } from "./key-order.js";
import { JqError, desc, fail, numOf, truthy, type JObj } from "./values.js";

/** A single-valued expression: input and environment in, one value out (or a thrown error). */
export type Val = (i: Json, env: Env | null) => Json;

/**
 * What the compiler keeps on a syntax node for the scope it was last compiled in (a node is compiled
 * in one scope at a time): its single-valued evaluator and its at-most-one evaluator (compile-maybe.ts),
 * undefined until built, null when it has none. One record under one property (`cm`), not a property
 * per result: every property added to a parsed node costs each compilation a hidden-class change and
 * a growth of the node's property store, and with four such properties instead of two compiling the
 * 20-line script took 20% more instructions (docs/performance.md, wt/jqcompile).
 */
export interface NodeMemo {
  sc: Scope;
  single: Val | null | undefined;
  maybe: Opt | null | undefined;
}

/** `n`'s memo record for `sc`, a fresh one (replacing the last scope's) when it was last compiled elsewhere. */
export function memoOf(n: Node, sc: Scope): NodeMemo {
  const h = n as { cm?: NodeMemo };
  const m = h.cm;
  if (m !== undefined && m.sc === sc) return m;
  const f: NodeMemo = { sc, single: undefined, maybe: undefined };
  h.cm = f;
  return f;
}

function hasBreak(n: unknown): boolean {
  if (n === null || typeof n !== "object") return false;
  if (Array.isArray(n)) {
    for (const x of n) if (hasBreak(x)) return true;
    return false;
  }
  const o = n as Record<string, unknown>;
  if (o.k === "break") return true;
  // a literal's value is JSON, not syntax
  if (o.k === "literal") return false;
  // no entries array per node: this walk runs for every array construction compiled
  for (const key in o) {
    if (isMemoKey(key)) continue;
    const v = o[key];
    if (v !== null && typeof v === "object" && hasBreak(v)) return true;
  }
  return false;
}

function text(v: Json): string {
  return typeof v === "string" ? v : printCompact(v);
}

/** Returns a direct evaluator when `n` always yields exactly one value, else null. */
export function singleOf(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>): Val | null {
  const m = (n as { cm?: NodeMemo }).cm;
  if (m !== undefined && m.sc === sc && m.single !== undefined) return m.single;
  const val = build(c, n, sc, natives);
  // looked up again: compiling `n` may have compiled it in another scope meanwhile
  memoOf(n, sc).single = val;
  return val;
}

/**
 * Operands are compiled by calling {@link singleOf} directly, with no helper closure over `c`, `sc` and
 * `natives`: such a closure (and the context holding them, which every evaluator built here then
 * pointed to) was allocated on every build. With the at-most-one tier's like it, they were 18 KB of
 * the 108 KB a compile of the 20-line script allocated, and in a loop of compiles V8 then pretenured
 * some of the compile's allocation sites, so a third of its instructions went to the garbage
 * collector (docs/performance.md, wt/jqcomp).
 */
function build(c: Compiler, n: Node, sc: Scope, natives: Map<string, Native>): Val | null {
  // an optional step may produce no value
  if ((n.k === "index" || n.k === "slice") && n.opt) return null;
  switch (n.k) {
    case "identity":
      return (i) => i;
    case "literal": {
      const v = n.v;
      return () => v;
    }
    case "loc": {
      const line = n.line;
      return () => ({ file: "<top-level>", line });
    }
    case "var": {
      const found = sc.lookupVar(n.name);
      if (found === null) return null;
      if ("value" in found) {
        const v = found.value;
        return () => v;
      }
      const d = found.slot;
      if (d === 0) return (_i, env) => (env as Env).v as Json;
      return (_i, env) => (up(env, d) as Env).v as Json;
    }
    case "index": {
      const t = singleOf(c, n.target, sc, natives);
      if (t === null) return null;
      if (n.key.k === "literal" && typeof n.key.v === "string") {
        const k = n.key.v;
        const safe = fieldSite(k);
        // `.k` and `.a.k`: the input's own fields, with no evaluator call for the target
        if (n.target.k === "identity") return (i) => field(i, k, safe);
        const k0 = inputFieldKey(n.target);
        if (k0 !== null) {
          const safe0 = fieldSite(k0);
          return (i) => field(field(i, k0, safe0), k, safe);
        }
        return (i, env) => field(t(i, env), k, safe);
      }
      const k = singleOf(c, n.key, sc, natives);
      if (k === null) return null;
      return (i, env) => {
        const kv = k(i, env);
        return indexValue(t(i, env), kv);
      };
    }
    case "slice": {
      const t = singleOf(c, n.target, sc, natives);
      const f = n.from ? singleOf(c, n.from, sc, natives) : () => null;
      const e = n.to ? singleOf(c, n.to, sc, natives) : () => null;
      if (t === null || f === null || e === null) return null;
      return (i, env) => {
        const fv = f(i, env);
        const ev = e(i, env);
        return sliceValue(t(i, env), fv, ev);
      };
    }
    case "neg": {
      const e = singleOf(c, n.e, sc, natives);
      if (e === null) return null;
      return (i, env) => {
        const v = e(i, env);
        const x = numOf(v);
        return typeof x === "number" ? -x : fail(`${desc(v)} cannot be negated`);
      };
    }
    case "binop": {
      const l = singleOf(c, n.l, sc, natives);
      const r = singleOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      const op = n.op;
      const lit = literalComparison(op, n.l, n.r);
      const f = lit ?? binopFn(op);
      if (lit === null) {
        const a = arithmetic(op, n.l, n.r, l, r, f);
        if (a !== null) return a;
      }
      // a literal operand is its value: no evaluator call for it
      if (n.r.k === "literal") {
        const rv = n.r.v;
        return (i, env) => f(l(i, env), rv);
      }
      return (i, env) => {
        const rv = r(i, env);
        return f(l(i, env), rv);
      };
    }
    case "and":
    case "or": {
      const l = singleOf(c, n.l, sc, natives);
      const r = singleOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      const isAnd = n.k === "and";
      return (i, env) => (truthy(l(i, env)) !== isAnd ? !isAnd : truthy(r(i, env)));
    }
    case "alt": {
      const l = singleOf(c, n.l, sc, natives);
      const r = singleOf(c, n.r, sc, natives);
      if (l === null || r === null) return null;
      return (i, env) => {
        const v = l(i, env);
        return truthy(v) ? v : r(i, env);
      };
    }
    case "pipe": {
      const l = singleOf(c, n.l, sc, natives);
      if (l === null) return null;
      const r = singleOf(c, n.r, sc, natives);
      if (r === null) return null;
      return (i, env) => r(l(i, env), env);
    }
    case "if": {
      const cnd = singleOf(c, n.cond, sc, natives);
      const t = singleOf(c, n.then, sc, natives);
      const f = n.else ? singleOf(c, n.else, sc, natives) : (i: Json) => i;
      if (cnd === null || t === null || f === null) return null;
      return (i, env) => (truthy(cnd(i, env)) ? t(i, env) : f(i, env));
    }
    case "try": {
      if (n.handler === null) return null;
      const b = singleOf(c, n.body, sc, natives);
      const h = singleOf(c, n.handler, sc, natives);
      if (b === null || h === null) return null;
      return (i, env) => {
        try {
          return b(i, env);
        } catch (e) {
          if (!(e instanceof JqError)) throw e;
          return h(e.value, env);
        }
      };
    }
    case "array": {
      if (n.e === null) return () => [];
      if (hasBreak(n.e)) return null;
      // one element (`[path(f)]`, `[$x]`): no generator, no callback
      const e1 = n.e.k === "comma" ? null : singleOf(c, n.e, sc, natives);
      if (e1 !== null)
        return (i, env) => {
          charge(ALLOC);
          const v = e1(i, env);
          charge(1);
          return [v];
        };
      // at most one element (`[.a?]`, `[select(f)]`): the array is still the one output
      const m1 = n.e.k === "comma" ? null : maybeOf(c, n.e, sc, natives);
      if (m1 !== null)
        return (i, env) => {
          charge(ALLOC);
          const v = m1(i, env);
          if (v === NONE) return [];
          charge(1);
          return [v];
        };
      const g: Gen = c.gen(n.e, sc);
      return (i, env) => {
        const out: Json[] = [];
        charge(ALLOC);
        g(i, env, (v) => (charge(1), out.push(v), false));
        return out;
      };
    }
    case "object": {
      const ks: Array<Val | string> = [];
      const vs: Val[] = [];
      for (const e of n.entries) {
        if (e.key.k === "literal" && typeof e.key.v !== "string")
          throw new JqCompileError(`Cannot use ${desc(e.key.v)} as object key`, 0);
        if (e.key.k === "literal" && typeof e.key.v === "string") ks.push(e.key.v);
        else {
          const k = singleOf(c, e.key, sc, natives);
          if (k === null) return null;
          ks.push(k);
        }
        const v = singleOf(c, e.value, sc, natives);
        if (v === null) return null;
        vs.push(v);
      }
      const cnt = ks.length;
      if (ks.every((k) => typeof k === "string" && !isIndexKey(k) && k !== "__proto__")) {
        const names = ks as string[];
        // what the general path charges for an object of known keys (objectGen): a unit a key, and the object
        const built = cnt + ALLOC;
        return (i, env) => {
          const o: JObj = {};
          for (let j = 0; j < cnt; j++) o[names[j]] = vs[j](i, env);
          charge(built);
          return o;
        };
      }
      // keys computed at run time are interned and shape a new hidden class (KEY each)
      const cost = cnt + ALLOC + KEY * ks.filter((k) => typeof k !== "string").length;
      return (i, env) => {
        charge(cost);
        const o: JObj = {};
        let ord: string[] | undefined;
        for (let j = 0; j < cnt; j++) {
          const kk = ks[j];
          const key = typeof kk === "string" ? kk : kk(i, env);
          if (typeof key !== "string") return fail(`Cannot use ${desc(key)} as object key`);
          ord = buildKey(o, key, vs[j](i, env), ord);
        }
        return o;
      };
    }
    case "str": {
      const parts: Array<string | Val> = [];
      for (const p of n.parts) {
        if (typeof p === "string") parts.push(p);
        else {
          const v = singleOf(c, p, sc, natives);
          if (v === null) return null;
          parts.push(v);
        }
      }
      const fmt = n.fmt;
      // what the general path charges (strGen): the string's length, and two allocations a part
      const perString = 2 * ALLOC * parts.length;
      return (i, env) => {
        let s = "";
        for (const p of parts)
          s += typeof p === "string" ? p : fmt === null ? text(p(i, env)) : applyFormat(fmt, p(i, env));
        charge(s.length + perString);
        return s;
      };
    }
    case "format": {
      const name = n.name;
      return (i) => chargeFormatted(applyFormat(name, i));
    }
    case "call": {
      const found = sc.lookupCallable(n.name, n.args.length);
      // an inlined filter argument is its own code, compiled in its caller's scope
      if (found !== null && "inline" in found) {
        const hidden = found.inline.hidden;
        if (hidden === undefined) return singleOf(c, found.inline.arg.node, found.inline.scope, natives);
        const d = sc.lookupVar(hidden) as { slot: number };
        return d.slot === 0
          ? (_i, env) => (env as Env).v as Json
          : (_i, env) => (up(env, d.slot) as Env).v as Json;
      }
      if (found !== null && "fi" in found && found.fi.native === undefined)
        return c.inlinedVal(n, found.fi, sc);
      const nat =
        found === null
          ? natives.get(n.name + "/" + n.args.length)
          : "fi" in found
            ? found.fi.native
            : undefined;
      if (nat !== undefined && nat === natives.get("path/1")) return literalPathVal(n.args[0], sc);
      if (nat === undefined || nat.fn === undefined) return null;
      const fn = nat.fn;
      const args: Val[] = [];
      for (const a of n.args) {
        const v = singleOf(c, a, sc, natives);
        if (v === null) return null;
        args.push(v);
      }
      if (args.length === 0)
        return (i) => {
          step();
          return fn(i);
        };
      if (args.length === 1) {
        const a0 = args[0];
        return (i, env) => {
          step();
          return fn(i, a0(i, env));
        };
      }
      return (i, env) => {
        step();
        return fn(i, ...args.map((a) => a(i, env)));
      };
    }
    case "assign":
      return updateEachOf(c, n.op, n.l, n.r, sc);
    default:
      return null;
  }
}

/**
 * `path(f)` where `f` is (or, through inlined filter parameters, stands for) a chain of literal keys
 * on `.` (`.a.b`, `.[0]`): its one path, with path mode's reads, errors and charges, else null.
 */
function literalPathVal(arg: Node, sc: Scope): Val | null {
  let a = arg;
  let s = sc;
  for (let d = 0; a.k === "call" && a.args.length === 0 && d < 64; d++) {
    const found = s.lookupCallable(a.name, 0);
    if (found === null || !("inline" in found) || found.inline.hidden !== undefined) return null;
    a = found.inline.arg.node;
    s = found.inline.scope;
  }
  const keys: Json[] = [];
  while (a.k === "index" && !a.opt && a.key.k === "literal") {
    keys.unshift(a.key.v);
    a = a.target;
  }
  if (a.k !== "identity" || keys.length === 0) return null;
  const n = keys.length;
  return (i) => {
    step();
    let tv = i;
    for (let j = 0; j < n; j++) {
      charge(j + 1);
      tv = tv === null ? null : indexValue(tv, keys[j]);
    }
    return keys.slice();
  };
}

/**
 * `+`, `-` and `*` with their number case in the evaluator itself, one closure per operator (a shared
 * closure calling the operator's function saw every operator at that call, so it could not inline the
 * number case), and a `.k` left operand read in place: `.weeks * 604800 + .days * 86400` runs as
 * three closures instead of seven calls. Other operands go to the operator's function, as before;
 * the operands are evaluated in the same order (the right one first).
 */
function arithmetic(
  op: string,
  ln: Node,
  rn: Node,
  l: Val,
  r: Val,
  f: (a: Json, b: Json) => Json,
): Val | null {
  if (op !== "+" && op !== "-" && op !== "*") return null;
  if (rn.k === "literal" && typeof rn.v === "number") {
    const rv = rn.v;
    const k = inputFieldKey(ln);
    if (k !== null) {
      const safe = fieldSite(k);
      if (op === "*")
        return (i) => {
          const a = field(i, k, safe);
          return typeof a === "number" ? a * rv : f(a, rv);
        };
      if (op === "+")
        return (i) => {
          const a = field(i, k, safe);
          return typeof a === "number" ? a + rv : f(a, rv);
        };
      return (i) => {
        const a = field(i, k, safe);
        return typeof a === "number" ? a - rv : f(a, rv);
      };
    }
    if (op === "*")
      return (i, env) => {
        const a = l(i, env);
        return typeof a === "number" ? a * rv : f(a, rv);
      };
    if (op === "+")
      return (i, env) => {
        const a = l(i, env);
        return typeof a === "number" ? a + rv : f(a, rv);
      };
    return (i, env) => {
      const a = l(i, env);
      return typeof a === "number" ? a - rv : f(a, rv);
    };
  }
  if (rn.k === "literal") return null;
  if (op === "*")
    return (i, env) => {
      const b = r(i, env);
      const a = l(i, env);
      return typeof a === "number" && typeof b === "number" ? a * b : f(a, b);
    };
  if (op === "+")
    return (i, env) => {
      const b = r(i, env);
      const a = l(i, env);
      return typeof a === "number" && typeof b === "number" ? a + b : f(a, b);
    };
  return (i, env) => {
    const b = r(i, env);
    const a = l(i, env);
    return typeof a === "number" && typeof b === "number" ? a - b : f(a, b);
  };
}
