/** Helpers to register native builtins concisely. */
import type { Json } from "../engines/common/json.js";
import { NATIVES, type Native } from "./compile.js";

/** Registers a native under `name/arity`. */
export function defNative(name: string, arity: number, n: Native): void {
  NATIVES.set(name + "/" + arity, n);
}

/**
 * Registers a one-output function of the input only. The input arrives as is: a number may carry
 * its literal (read it with `numOf`), so that error texts and pass-through keep the literal as jq does.
 */
export function def0(name: string, f: (i: Json) => Json): void {
  defNative(name, 0, { gen: (i, _a, _e, emit) => emit(f(i)), fn: f });
}

/**
 * Registers a jq-style C builtin of several value arguments: jq evaluates their cartesian
 * product with the FIRST argument varying fastest (arguments are pushed in reverse order).
 */
export function defC(name: string, arity: number, f: (i: Json, ...vals: Json[]) => Json): void {
  if (arity === 2) {
    defNative(name, 2, { gen: (i, a, env, emit) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(f(i, x, y)))), fn: f });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) => a[2].gen(i, env, (z) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(f(i, x, y, z))))),
      fn: f,
    });
  } else defV(name, arity, f);
}

/** Registers a function of the input and value arguments (cartesian product, first argument outermost, as jq-defined `$` parameters bind). */
export function defV(name: string, arity: number, f: (i: Json, ...vals: Json[]) => Json): void {
  if (arity === 1) {
    defNative(name, 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (x) => emit(f(i, x))), fn: f });
  } else if (arity === 2) {
    defNative(name, 2, { gen: (i, a, env, emit) => a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => emit(f(i, x, y)))), fn: f });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) => a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => a[2].gen(i, env, (z) => emit(f(i, x, y, z))))),
      fn: f,
    });
  } else throw new Error("unsupported arity");
}
