/** Helpers to register native builtins concisely. */
import type { Json } from "../engines/common/json.js";
import { NATIVES, type Native } from "./compile.js";
import { charge } from "./runtime.js";

/** A string's or an array's length (found without walking it); 0 for other values. */
function lengthOf(v: Json): number {
  return typeof v === "string" || Array.isArray(v) ? v.length : 0;
}

/**
 * Charges a value builtin's work to the budget: the length of the string or
 * array it reads, before it runs (so a builtin whose input the budget cannot
 * pay never starts), then the length of what it built. Objects are not
 * counted here (that would walk every one of them); the builtins that walk an
 * object charge it themselves (`length`, `add`, `from_entries`), and what
 * they build from one is an array or a string.
 */
function chargeInput(input: Json): void {
  const n = lengthOf(input);
  if (n > 0) charge(n);
}

/** Charges what a value builtin built (see {@link chargeInput}) and returns it. */
function chargeOutput(out: Json): Json {
  const n = lengthOf(out);
  if (n > 0) charge(n);
  return out;
}

/** `f` with its work charged (see {@link chargeInput}). */
function chargedFn(f: (i: Json, ...vals: Json[]) => Json): (i: Json, ...vals: Json[]) => Json {
  return (i, ...vals) => {
    chargeInput(i);
    return chargeOutput(f(i, ...vals));
  };
}

/** Registers a native under `name/arity`. */
export function defNative(name: string, arity: number, n: Native): void {
  NATIVES.set(name + "/" + arity, n);
}

/**
 * Registers a one-output function of the input only. The input arrives as is: a number may carry
 * its literal (read it with `numOf`), so that error texts and pass-through keep the literal as jq does.
 */
export function def0(name: string, raw: (i: Json) => Json): void {
  const f = (i: Json): Json => {
    chargeInput(i);
    return chargeOutput(raw(i));
  };
  defNative(name, 0, { gen: (i, _a, _e, emit) => emit(f(i)), fn: f });
}

/**
 * Registers a jq-style C builtin of several value arguments: jq evaluates their cartesian
 * product with the FIRST argument varying fastest (arguments are pushed in reverse order).
 */
export function defC(name: string, arity: number, raw: (i: Json, ...vals: Json[]) => Json): void {
  const f = chargedFn(raw);
  if (arity === 2) {
    defNative(name, 2, {
      gen: (i, a, env, emit) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(f(i, x, y)))),
      fn: f,
    });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) =>
        a[2].gen(i, env, (z) => a[1].gen(i, env, (y) => a[0].gen(i, env, (x) => emit(f(i, x, y, z))))),
      fn: f,
    });
  } else defV(name, arity, raw);
}

/** Registers a function of the input and value arguments (cartesian product, first argument outermost, as jq-defined `$` parameters bind). */
export function defV(name: string, arity: number, raw: (i: Json, ...vals: Json[]) => Json): void {
  const f = chargedFn(raw);
  if (arity === 1) {
    defNative(name, 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (x) => emit(f(i, x))), fn: f });
  } else if (arity === 2) {
    defNative(name, 2, {
      gen: (i, a, env, emit) => a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => emit(f(i, x, y)))),
      fn: f,
    });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) =>
        a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => a[2].gen(i, env, (z) => emit(f(i, x, y, z))))),
      fn: f,
    });
  } else throw new Error("unsupported arity");
}
