/** Native builtins for paths and generators: path, getpath, select, recurse, first, limit, range... */
import type { Json } from "../engines/common/json.js";
import { defC, defNative, defV } from "./builtins-define.js";
import { invalidPathResult, pathOf, recurseAll, recursePaths, valOf } from "./compile.js";
import { delPaths, getPath, setPath } from "./paths.js";
import { add, indexValue, sub } from "./ops.js";
import { lengthOf } from "./builtins-core.js";
import { step, type Env, type Path } from "./runtime.js";
import { compare, equals, fail, numOf, truthy } from "./values.js";

// paths
defNative("path", 1, {
  gen: (i, a, env, emit) => pathOf(a[0])(i, [], env, (v, p) => (p === null ? invalidPathResult(v) : emit(p))),
});
defNative("getpath", 1, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (p) => emit(getPath(i, p))),
  // jq 1.7.1's f_getpath: the lookup's own error is raised; from an input that is not a path the
  // value is passed on as a non-path (so `path(...)` names the value it got)
  pgen: (i, path, a, env, emit) =>
    a[0].gen(i, env, (p) => {
      const v = getPath(i, p);
      return emit(v, path === null ? null : path.concat(p as Json[]));
    }),
});
defC("setpath", 2, (i, p, v) => setPath(i, p, v));
defV("delpaths", 1, (i, ps) => delPaths(i, ps));
defNative("select", 1, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (c) => (truthy(c) ? emit(i) : false)),
  pgen: (i, p, a, env, emit) => a[0].gen(i, env, (c) => (truthy(c) ? emit(i, p) : false)),
});
defNative("recurse", 0, {
  gen: (i, _a, _e, emit) => recurseAll(i, emit),
  pgen: (i, p, _a, _e, emit) => recursePaths(i, p, emit),
});
defNative("recurse", 1, {
  gen: (i, a, env, emit) => {
    const f = a[0].gen;
    const rec = (v: Json): boolean => {
      step();
      return emit(v) || f(v, env, rec);
    };
    return rec(i);
  },
  pgen: (i, p, a, env, emit) => {
    const f = pathOf(a[0]);
    const rec = (v: Json, vp: Path): boolean => {
      step();
      return emit(v, vp) || f(v, vp, env, rec);
    };
    return rec(i, p);
  },
});

// generators with early exit
defNative("first", 1, {
  gen: (i, a, env, emit) => {
    let mine = false;
    let down = false;
    const stop = a[0].gen(i, env, (v) => {
      mine = true;
      down = emit(v);
      return true;
    });
    return mine ? down : stop;
  },
  pgen: (i, p, a, env, emit) => {
    let mine = false;
    let down = false;
    const stop = pathOf(a[0])(i, p, env, (v, vp) => {
      mine = true;
      down = emit(v, vp);
      return true;
    });
    return mine ? down : stop;
  },
});
defNative("isempty", 1, {
  gen: (i, a, env, emit) => {
    let mine = false;
    const stop = a[0].gen(i, env, () => {
      mine = true;
      return true;
    });
    if (!mine && stop) return true;
    return emit(!mine);
  },
});
/**
 * jq 1.7.1: `def limit($n; exp): if $n > 0 then label $out | foreach exp as $item ($n; .-1; $item, if . <= 0
 * then break $out else empty end) elif $n == 0 then empty else exp end;` — `$n` is compared in jq's
 * order, so a string limit passes the test and fails at `. - 1` only once `exp` has an output.
 */
function limitGen<E extends unknown[]>(
  n: Json,
  run: (emit: (...v: E) => boolean) => boolean,
  emit: (...v: E) => boolean,
): boolean {
  if (compare(n, 0) <= 0) return equals(n, 0) ? false : run(emit);
  let left = n;
  let mine = false;
  let down = false;
  const stop = run((...v) => {
    left = sub(left, 1);
    down = emit(...v);
    if (down || compare(left, 0) <= 0) {
      mine = true;
      return true;
    }
    return false;
  });
  return mine ? down : stop;
}
defNative("limit", 2, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (n) => limitGen<[Json]>(n, (e) => a[1].gen(i, env, e), emit)),
  pgen: (i, p, a, env, emit) => {
    const f = pathOf(a[1]);
    return a[0].gen(i, env, (n) => limitGen<[Json, Path]>(n, (e) => f(i, p, env, e), emit));
  },
});
// jq 1.7.1: def nth($n; g): if $n < 0 then error("nth doesn't support negative indices")
//   else label $out | foreach g as $item ($n + 1; . - 1; if . <= 0 then $item, break $out else empty end) end;
defNative("nth", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (n) => {
      if (compare(n, 0) < 0) return fail("nth doesn't support negative indices");
      let left = add(n, 1);
      let mine = false;
      let down = false;
      const stop = a[1].gen(i, env, (v) => {
        left = sub(left, 1);
        if (compare(left, 0) > 0) return false;
        mine = true;
        down = emit(v);
        return true;
      });
      return mine ? down : stop;
    }),
});
// jq 1.7.1 defines bsearch in jq: the loop below gives the same answers on arrays (sorted or not);
// other inputs go through its first steps: `length == 0` gives -1, otherwise `.[0]` raises
defV("bsearch", 1, (i, target) => {
  if (!Array.isArray(i)) return lengthOf(i) === 0 ? -1 : indexValue(i, 0);
  let lo = 0;
  let hi = i.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compare(i[mid], target);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1 - lo;
});
/** All outputs of a generator, or null when it asked to stop (a `break` passing through). */
function collect(
  g: (i: Json, env: Env | null, emit: (v: Json) => boolean) => boolean,
  i: Json,
  env: Env | null,
): Json[] | null {
  const out: Json[] = [];
  return g(i, env, (v) => (out.push(v), false)) ? null : out;
}

// def until(cond; update): def _until: if cond then . else (update | _until) end; _until;
// iterative while cond and update give one output each, so long loops need no stack; a plain
// loop when both are single-valued expressions (compile-single.ts)
defNative("until", 2, {
  gen: (i, a, env, emit) => {
    const cond = valOf(a[0]);
    const update = valOf(a[1]);
    if (cond !== null && update !== null) {
      // both single-valued: a plain loop, no output arrays or callbacks per iteration
      let v = i;
      for (;;) {
        step();
        if (truthy(cond(v, env))) return emit(v);
        v = update(v, env);
      }
    }
    const rec = (v0: Json): boolean => {
      let v = v0;
      for (;;) {
        step();
        const cs = collect(a[0].gen, v, env);
        if (cs === null) return true;
        if (cs.length !== 1) {
          for (const c of cs) if (truthy(c) ? emit(v) : a[1].gen(v, env, rec)) return true;
          return false;
        }
        if (truthy(cs[0])) return emit(v);
        const us = collect(a[1].gen, v, env);
        if (us === null) return true;
        if (us.length !== 1) {
          for (const u of us) if (rec(u)) return true;
          return false;
        }
        v = us[0];
      }
    };
    return rec(i);
  },
});
// def while(cond; update): def _while: if cond then ., (update | _while) else empty end; _while;
defNative("while", 2, {
  gen: (i, a, env, emit) => {
    const cond = valOf(a[0]);
    const update = valOf(a[1]);
    if (cond !== null && update !== null) {
      let v = i;
      for (;;) {
        step();
        if (!truthy(cond(v, env))) return false;
        if (emit(v)) return true;
        v = update(v, env);
      }
    }
    const rec = (v0: Json): boolean => {
      let v = v0;
      for (;;) {
        step();
        const cs = collect(a[0].gen, v, env);
        if (cs === null) return true;
        if (cs.length !== 1) {
          for (const c of cs) if (truthy(c) && (emit(v) || a[1].gen(v, env, rec))) return true;
          return false;
        }
        if (!truthy(cs[0])) return false;
        if (emit(v)) return true;
        const us = collect(a[1].gen, v, env);
        if (us === null) return true;
        if (us.length !== 1) {
          for (const u of us) if (rec(u)) return true;
          return false;
        }
        v = us[0];
      }
    };
    return rec(i);
  },
});
// jq 1.7.1: def repeat(f): def _repeat: f, _repeat; _repeat;  (f re-applied to the same input)
defNative("repeat", 1, {
  gen: (i, a, env, emit) => {
    for (;;) {
      step();
      if (a[0].gen(i, env, emit)) return true;
    }
  },
});
/** `range/1,2` (jq 1.7.1's RANGE opcode): numeric bounds only, step 1. */
function rangeLoop(from: Json, upto: Json, by: number, emit: (v: Json) => boolean): boolean {
  from = numOf(from);
  upto = numOf(upto);
  if (typeof from !== "number" || typeof upto !== "number") return fail("Range bounds must be numeric");
  return numericRange(from, upto, by, emit);
}

function numericRange(from: number, upto: number, by: number, emit: (v: Json) => boolean): boolean {
  if (by > 0) {
    for (let x = from; x < upto; x += by) {
      step();
      if (emit(x)) return true;
    }
  } else if (by < 0) {
    for (let x = from; x > upto; x += by) {
      step();
      if (emit(x)) return true;
    }
  }
  return false;
}

/**
 * jq 1.7.1: `def range($init; $upto; $by): if $by > 0 then $init|while(. < $upto; . + $by) elif $by < 0
 * then $init|while(. > $upto; . + $by) else empty end;` — any values, compared in jq's order.
 */
function range3(from: Json, upto: Json, by: Json, emit: (v: Json) => boolean): boolean {
  const f = numOf(from);
  const u = numOf(upto);
  const b = numOf(by);
  if (typeof f === "number" && typeof u === "number" && typeof b === "number")
    return numericRange(f, u, b, emit);
  const dir = compare(by, 0);
  if (dir === 0) return false;
  for (let x = from; dir > 0 ? compare(x, upto) < 0 : compare(x, upto) > 0; x = add(x, by)) {
    step();
    if (emit(x)) return true;
  }
  return false;
}
defNative("range", 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (n) => rangeLoop(0, n, 1, emit)) });
defNative("range", 2, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (f) => a[1].gen(i, env, (t) => rangeLoop(f, t, 1, emit))),
});
defNative("range", 3, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (f) => a[1].gen(i, env, (t) => a[2].gen(i, env, (b) => range3(f, t, b, emit)))),
});
