/** Helpers to register native builtins concisely. */
import type { Json } from "../engines/common/json.js";
import { NATIVES, type Native } from "./compile.js";
import { charge } from "./runtime.js";
import { numOf } from "./values.js";

/** A string's or an array's length (found without walking it); 0 for other values. */
function lengthOf(v: Json): number {
  return typeof v === "string" || Array.isArray(v) ? v.length : 0;
}

/**
 * Charges a value builtin's work: the lengths of the string or array it read
 * and built. Objects are not counted here (that would walk every one of them);
 * the builtins that walk an object charge it themselves (`length`, `add`), and
 * what they build from one is an array or a string counted here.
 */
function charged(input: Json, out: Json): Json {
  const n = lengthOf(input) + lengthOf(out);
  if (n > 0) charge(n);
  return out;
}

/** Registers a native under `name/arity`. */
export function defNative(name: string, arity: number, n: Native): void {
  NATIVES.set(name + "/" + arity, n);
}

/** Registers a one-output function of the input only. */
export function def0(name: string, f: (i: Json) => Json, keepLiteral = false): void {
  const fn = keepLiteral ? (i: Json) => charged(i, f(i)) : (i: Json) => charged(i, f(numOf(i)));
  defNative(name, 0, { gen: (i, _a, _e, emit) => emit(fn(i)), fn });
}

/**
 * Registers a jq-style C builtin of several value arguments: jq evaluates their cartesian
 * product with the FIRST argument varying fastest (arguments are pushed in reverse order).
 */
export function defC(name: string, arity: number, f: (i: Json, ...vals: Json[]) => Json): void {
  const fn = (i: Json, ...vals: Json[]): Json => charged(i, f(numOf(i), ...vals.map(numOf)));
  if (arity === 2) {
    defNative(name, 2, { gen: (i, a, env, emit) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(fn(i, x, y)))), fn });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) => a[2].gen(i, env, (z) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(fn(i, x, y, z))))),
      fn,
    });
  } else defV(name, arity, f);
}

/** Registers a function of the input and value arguments (cartesian product, first argument outermost, as jq-defined `$` parameters bind). */
export function defV(name: string, arity: number, f: (i: Json, ...vals: Json[]) => Json): void {
  const fn = (i: Json, ...vals: Json[]): Json => charged(i, f(numOf(i), ...vals.map(numOf)));
  if (arity === 1) {
    defNative(name, 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (x) => emit(charged(i, f(numOf(i), numOf(x))))), fn });
  } else if (arity === 2) {
    defNative(name, 2, {
      gen: (i, a, env, emit) => a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => emit(charged(i, f(numOf(i), numOf(x), numOf(y)))))),
      fn,
    });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) =>
        a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => a[2].gen(i, env, (z) => emit(charged(i, f(numOf(i), numOf(x), numOf(y), numOf(z))))))),
      fn,
    });
  } else throw new Error("unsupported arity");
}
