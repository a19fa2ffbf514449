/**
 * Built-ins for types, control, lists and numbers: isX, ifThenElse, size,
 * sum/avg/min/max, anyCompare/allCompare, member/identicalMember, int, real,
 * string, bool, floor/ceiling/round, pow, quantize, random, debug.
 */
import { ClassAd } from "../classad.js";
import { arith, compare, metaEqual, metaNotEqual, type CmpOp } from "../operators.js";
import { USED_RANDOM } from "../state.js";
import {
  AbsTime,
  ERROR,
  ListValue,
  Real,
  RelTime,
  UNDEF,
  isInt,
  realToInt,
  truth,
  typeName,
  type Value,
} from "../values.js";
import { eager, toInt, toReal, toStr, type Builtin } from "./helpers.js";

const utf8 = new TextEncoder();

/** Byte length of a string (UTF-8). */
export function byteLength(s: string): number {
  return /^[\x00-\x7f]*$/.test(s) ? s.length : utf8.encode(s).length;
}

function isType(t: string): Builtin {
  return (args, ad, st) => {
    if (args.length !== 1) return ERROR;
    return typeName(args[0](ad, st)) === t;
  };
}

const ifThenElse: Builtin = (args, ad, st) => {
  if (args.length !== 3) return ERROR;
  const c = args[0](ad, st);
  if (c === UNDEF) return UNDEF;
  const t = truth(c);
  if (t === null) return ERROR;
  return t ? args[1](ad, st) : args[2](ad, st);
};

const size: Builtin = eager(1, 1, ([v]) => {
  if (typeof v === "string") return byteLength(v);
  if (v instanceof ListValue) return v.length;
  if (v instanceof ClassAd) return v.size;
  return ERROR;
});

function isNumberLike(v: Value): boolean {
  return isInt(v) || v instanceof Real || typeof v === "boolean";
}

function sumAvg(avg: boolean): Builtin {
  return eager(1, 1, ([l], st) => {
    if (!(l instanceof ListValue)) return ERROR;
    let acc: Value = 0;
    let n = 0;
    for (let i = 0; i < l.length; i++) {
      const v = l.at(i, st);
      if (v === UNDEF) continue;
      if (!isNumberLike(v)) return ERROR;
      acc = arith("+", acc, typeof v === "boolean" ? (v ? 1 : 0) : v);
      n++;
    }
    if (!avg || n === 0) return acc;
    return arith("/", acc, new Real(n));
  });
}

function minMax(isMin: boolean): Builtin {
  return eager(1, 1, ([l], st) => {
    if (!(l instanceof ListValue)) return ERROR;
    let best: Value = UNDEF;
    let count = 0;
    let anyReal = false;
    for (let i = 0; i < l.length; i++) {
      const v = l.at(i, st);
      if (v === UNDEF) continue;
      if (!isNumberLike(v)) return ERROR;
      if (v instanceof Real) anyReal = true;
      const n: Value = typeof v === "boolean" ? (v ? 1 : 0) : v;
      if (count === 0 || compare(isMin ? "<" : ">", n, best) === true) best = count === 0 ? v : n;
      count++;
    }
    if (count <= 1) return best;
    if (typeof best === "boolean") best = best ? 1 : 0;
    return anyReal && !(best instanceof Real) ? new Real(toReal(best) as number) : best;
  });
}

const COMPARE_OPS: Record<string, (a: Value, b: Value) => Value> = {
  "<": (a, b) => compare("<", a, b),
  "<=": (a, b) => compare("<=", a, b),
  "==": (a, b) => compare("==", a, b),
  "!=": (a, b) => compare("!=", a, b),
  ">=": (a, b) => compare(">=", a, b),
  ">": (a, b) => compare(">", a, b),
  is: metaEqual,
  isnt: metaNotEqual,
};

function listCompare(all: boolean): Builtin {
  return (args, ad, st) => {
    if (args.length !== 3) return ERROR;
    const opv = args[0](ad, st);
    if (opv === UNDEF) return UNDEF;
    if (typeof opv !== "string") return ERROR;
    const op = Object.hasOwn(COMPARE_OPS, opv) ? COMPARE_OPS[opv] : undefined;
    if (op === undefined) return ERROR;
    const l = args[1](ad, st);
    if (l === UNDEF) return UNDEF;
    if (!(l instanceof ListValue)) return ERROR;
    const x = args[2](ad, st);
    for (let i = 0; i < l.length; i++) {
      const r = op(l.at(i, st), x);
      if (r === UNDEF) return false;
      if (typeof r !== "boolean") return ERROR;
      if (r && !all) return true;
      if (!r && all) return false;
    }
    return all;
  };
}

/**
 * member and identicalMember as testMember has them: an UNDEFINED list is
 * UNDEFINED whatever the item; member also answers UNDEFINED for an
 * UNDEFINED item and ERROR for an ERROR item, while identicalMember compares
 * them with =?= like any other value (`identicalMember(undefined, {undefined})`
 * is true).
 */
function member(identical: boolean): Builtin {
  return (args, ad, st) => {
    if (args.length !== 2) return ERROR;
    const x = args[0](ad, st);
    const l = args[1](ad, st);
    if (l === UNDEF || (!identical && x === UNDEF)) return UNDEF;
    if (!(l instanceof ListValue) || x instanceof ListValue || x instanceof ClassAd) return ERROR;
    if (!identical && x === ERROR) return ERROR;
    for (let i = 0; i < l.length; i++) {
      const e = l.at(i, st);
      const r = identical ? metaEqual(e, x) : compare("==", e, x);
      if (r === true) return true;
    }
    return false;
  };
}

const intFn: Builtin = eager(1, 1, ([v]) => {
  if (v instanceof ListValue || v instanceof ClassAd) return ERROR;
  return toInt(v);
});

const realFn: Builtin = eager(1, 1, ([v]) => {
  if (v instanceof ListValue || v instanceof ClassAd) return ERROR;
  const r = toReal(v);
  return typeof r === "number" ? new Real(r) : r;
});

const stringFn: Builtin = eager(1, 1, ([v]) => toStr(v) ?? ERROR);

const boolFn: Builtin = eager(1, 1, ([v]) => {
  if (typeof v === "boolean") return v;
  if (typeof v === "string") {
    const l = v.toLowerCase();
    return l === "true" ? true : l === "false" ? false : UNDEF;
  }
  if (v instanceof RelTime) return v.secs !== 0;
  if (v instanceof ListValue || v instanceof ClassAd || v instanceof AbsTime) return ERROR;
  return truth(v) ?? ERROR;
});

function roundFn(kind: "floor" | "ceiling" | "round"): Builtin {
  return (args, ad, st) => {
    if (args.length !== 1) return ERROR;
    const v = args[0](ad, st);
    if (isInt(v)) return v;
    if (v instanceof ListValue || v instanceof ClassAd) return ERROR;
    const r = toReal(v);
    if (typeof r !== "number") return ERROR;
    if (kind === "floor") return realToInt(Math.floor(r));
    if (kind === "ceiling") return realToInt(Math.ceil(r));
    // rint: round half to even
    const f = Math.floor(r);
    const diff = r - f;
    const rounded = diff > 0.5 ? f + 1 : diff < 0.5 ? f : f % 2 === 0 ? f : f + 1;
    return realToInt(rounded);
  };
}

const pow: Builtin = (args, ad, st) => {
  if (args.length !== 2) return ERROR;
  const b = args[0](ad, st);
  const e = args[1](ad, st);
  if (isInt(b) && isInt(e) && e >= 0) return realToInt(Math.pow(Number(b), Number(e)) + 0.5);
  const rb = toReal(b);
  const re = toReal(e);
  if (typeof rb !== "number" || typeof re !== "number") return ERROR;
  return new Real(Math.pow(rb, re));
};

const quantize: Builtin = (args, ad, st) => {
  if (args.length !== 2) return ERROR;
  const a = args[0](ad, st);
  let b = args[1](ad, st);
  const ra = toReal(a);
  if (typeof ra !== "number") return ERROR;
  if (b instanceof ListValue) {
    let last: Value = new Real(0);
    for (let i = 0; i < b.length; i++) {
      last = b.at(i, st);
      const r = toReal(last);
      if (typeof r !== "number") return ERROR;
      if (r >= ra) return last;
    }
    b = last;
  }
  const rb = toReal(b);
  if (typeof rb !== "number") return ERROR;
  if (isInt(b)) {
    if (Number(b) === 0) return a;
    if (isInt(a)) {
      const ia = BigInt(a);
      const ib = BigInt(b);
      return realToInt(Number(((ia + ib - 1n) / ib) * ib));
    }
    return new Real(Math.ceil(ra / rb) * rb);
  }
  if (rb >= -1e-8 && rb <= 1e-8) return a;
  return new Real(Math.ceil(ra / rb) * rb);
};

const random: Builtin = (args, ad, st) => {
  if (args.length > 1) return ERROR;
  st.used |= USED_RANDOM;
  const v = args.length === 0 ? new Real(1) : args[0](ad, st);
  if (isInt(v)) {
    const n = Number(v);
    if (n <= 0) {
      st.failed = true;
      return ERROR;
    }
    return Math.floor(st.ctx.random() * Math.min(n, 2147483647));
  }
  if (v instanceof Real) {
    if (v.v <= 0) {
      st.failed = true;
      return ERROR;
    }
    return new Real(v.v * st.ctx.random());
  }
  return ERROR;
};

const debug: Builtin = (args, ad, st) => (args.length === 1 ? args[0](ad, st) : ERROR);

/** The type, control, list and number built-ins by lower-cased name. */
export const CORE: ReadonlyArray<readonly [string, Builtin]> = [
  ["isundefined", isType("undefined")],
  ["iserror", isType("error")],
  ["isstring", isType("string")],
  ["isinteger", isType("integer")],
  ["isreal", isType("real")],
  ["islist", isType("list")],
  ["isclassad", isType("classad")],
  ["isboolean", isType("boolean")],
  ["isabstime", isType("abstime")],
  ["isreltime", isType("reltime")],
  ["ifthenelse", ifThenElse],
  ["size", size],
  ["sum", sumAvg(false)],
  ["avg", sumAvg(true)],
  ["min", minMax(true)],
  ["max", minMax(false)],
  ["anycompare", listCompare(false)],
  ["allcompare", listCompare(true)],
  ["member", member(false)],
  ["identicalmember", member(true)],
  ["int", intFn],
  ["real", realFn],
  ["string", stringFn],
  ["bool", boolFn],
  ["floor", roundFn("floor")],
  ["ceiling", roundFn("ceiling")],
  ["ceil", roundFn("ceiling")],
  ["round", roundFn("round")],
  ["pow", pow],
  ["quantize", quantize],
  ["random", random],
  ["debug", debug],
];

export type { CmpOp };
