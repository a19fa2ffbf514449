/** Helpers to register native builtins concisely. */
import type { Json } from "../engines/common/json.js";
import { NATIVES, type Native } from "./compile.js";

/** Registers a native under `name/arity`. */
export function defNative(name: string, arity: number, n: Native): void {
  NATIVES.set(name + "/" + arity, n);
}

/** Registers a one-output function of the input only. */
export function def0(name: string, f: (i: Json) => Json): void {
  defNative(name, 0, { gen: (i, _a, _e, emit) => emit(f(i)) });
}

/** Registers a function of the input and value arguments (cartesian product, first argument outermost). */
export function defV(name: string, arity: number, f: (i: Json, ...vals: Json[]) => Json): void {
  if (arity === 1) {
    defNative(name, 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (x) => emit(f(i, x))) });
  } else if (arity === 2) {
    defNative(name, 2, {
      gen: (i, a, env, emit) => a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => emit(f(i, x, y)))),
    });
  } else if (arity === 3) {
    defNative(name, 3, {
      gen: (i, a, env, emit) =>
        a[0].gen(i, env, (x) => a[1].gen(i, env, (y) => a[2].gen(i, env, (z) => emit(f(i, x, y, z))))),
    });
  } else throw new Error("unsupported arity");
}
