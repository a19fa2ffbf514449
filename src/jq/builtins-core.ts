/** Native core builtins: types, containers, control helpers and paths. */
import type { Json } from "../engines/common/json.js";
import { def0, defNative, defV } from "./builtins-define.js";
import { invalidPathResult, iterate, pathOf, recurseAll, recursePaths } from "./compile.js";
import { applyFormat } from "./formats.js";
import { fromJson } from "./json-parse.js";
import { add, cpLength, indexValue, indicesOf } from "./ops.js";
import { delPaths, getPath, setPath } from "./paths.js";
import { printCompact } from "./print.js";
import { S, step, type Path } from "./runtime.js";
import { HaltSignal, JqError, compare, compareStrings, desc, equals, fail, isObject, numOf, setKey, sortedKeys, truthy, typeOf, type JObj } from "./values.js";

const isObj = isObject;

defNative("empty", 0, { gen: () => false, pgen: () => false });
defNative("error", 0, {
  gen: (i) => {
    throw new JqError(i);
  },
  pgen: (i) => {
    throw new JqError(i);
  },
});
defNative("error", 1, {
  gen: (i, a, env) =>
    a[0].gen(i, env, (v) => {
      throw new JqError(v);
    }),
  pgen: (i, _p, a, env) =>
    a[0].gen(i, env, (v) => {
      throw new JqError(v);
    }),
});
def0("not", (i) => !truthy(i));
def0("type", typeOf);
def0("length", (i) => {
  if (i === null) return 0;
  switch (typeof i) {
    case "boolean":
      return fail(`${desc(i)} has no length`);
    case "number":
      return Math.abs(i);
    case "string":
      return cpLength(i);
  }
  return Array.isArray(i) ? i.length : Object.keys(i).length;
});
def0("utf8bytelength", (i) =>
  typeof i === "string" ? new TextEncoder().encode(i).length : fail(`${desc(i)} only strings have UTF-8 byte length`),
);
function keysOf(i: Json, sorted: boolean): Json {
  if (isObj(i)) return sorted ? sortedKeys(i) : Object.keys(i);
  if (Array.isArray(i)) return i.map((_, j) => j);
  return fail(`${desc(i)} has no keys`);
}
def0("keys", (i) => keysOf(i, true));
def0("keys_unsorted", (i) => keysOf(i, false));
defV("has", 1, (i, k) => {
  if (isObj(i) && typeof k === "string") return Object.prototype.hasOwnProperty.call(i, k);
  if (Array.isArray(i) && typeof k === "number") return k >= 0 && k < i.length;
  return fail(`Cannot check whether ${typeOf(i)} has a ${typeOf(k)} key`);
});

function kind(v: Json): string {
  return v === true ? "true" : v === false ? "false" : typeOf(v);
}
function contains(a: Json, b: Json): boolean {
  if (kind(a) !== kind(b)) return false;
  if (isObj(a)) {
    for (const k in b as JObj) {
      if (!Object.prototype.hasOwnProperty.call(a, k) || !contains(a[k], (b as JObj)[k])) return false;
    }
    return true;
  }
  if (Array.isArray(a)) return (b as Json[]).every((x) => a.some((y) => contains(y, x)));
  if (typeof a === "string") return a.includes(b as string);
  return equals(a, b);
}
defV("contains", 1, (i, b) => {
  if (kind(i) !== kind(b)) return fail(`${desc(i)} and ${desc(b)} cannot have their containment checked`);
  return contains(i, b);
});

def0("tostring", (i) => (typeof i === "string" ? i : printCompact(i)), true);
def0("tojson", (i) => printCompact(i), true);
def0("fromjson", (i) => (typeof i === "string" ? fromJson(i) : fail(`${desc(i)} cannot be parsed as JSON`)));
def0("tonumber", (i) => {
  if (typeof i === "number") return i;
  if (typeof i === "string") {
    const t = i.trim();
    if (/^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) return Number(t);
    if (/^-?nan$/i.test(t)) return NaN;
    return fail(`Cannot parse '${i}' as JSON`);
  }
  return fail(`${desc(i)} cannot be parsed as a number`);
});
def0("infinite", () => Infinity);
def0("nan", () => NaN);
def0("isinfinite", (i) => (typeof i === "number" ? i === Infinity || i === -Infinity : fail(`${desc(i)} number required`)));
def0("isnan", (i) => (typeof i === "number" ? i !== i : fail(`${desc(i)} number required`)));
def0("isnormal", (i) => {
  if (typeof i !== "number") return fail(`${desc(i)} number required`);
  const a = Math.abs(i);
  return a >= 2.2250738585072014e-308 && a !== Infinity;
});
def0("not", (i) => !truthy(i));

function sortArray(i: Json, what: string): Json[] {
  if (!Array.isArray(i)) return fail(`${desc(i)} cannot be ${what}, as it is not an array`);
  return i;
}
/** Sorts values in jq order, with a faster comparator when all are strings or all numbers. */
function jqSort(a: Json[]): Json[] {
  const out = a.slice();
  if (out.every((v) => typeof v === "string")) {
    const sur = out.some((v) => /[\uD800-\uDFFF]/.test(v as string));
    return out.sort(sur ? (x, y) => compareStrings(x as string, y as string) : (x, y) => ((x as string) < (y as string) ? -1 : x === y ? 0 : 1));
  }
  if (out.every((v) => typeof v === "number" && v === v)) return out.sort((x, y) => (x as number) - (y as number));
  return out.sort(compare);
}
def0("sort", (i) => jqSort(sortArray(i, "sorted")));

/** Evaluates `f` on each element to get its sort key (all outputs collected), as `map([f])` does. */
function keyed(i: Json, a: { gen: (i: Json, e: never, emit: (v: Json) => boolean) => boolean }, env: unknown): Array<{ k: Json[]; v: Json }> {
  if (!Array.isArray(i)) {
    if (isObj(i)) return fail(`Cannot index object with number`);
    return fail(`Cannot index ${typeOf(i)} with number`);
  }
  return i.map((v) => {
    const k: Json[] = [];
    a.gen(v, env as never, (x) => (k.push(x), false));
    return { k, v };
  });
}
defNative("sort_by", 1, {
  gen: (i, a, env, emit) => emit(keyed(i, a[0], env).sort((x, y) => compare(x.k, y.k)).map((e) => e.v)),
});
function groups(i: Json, a: Parameters<typeof keyed>[1], env: unknown): Json[][] {
  const ks = keyed(i, a, env).sort((x, y) => compare(x.k, y.k));
  const out: Json[][] = [];
  let prev: Json[] | null = null;
  for (const e of ks) {
    if (prev !== null && equals(prev, e.k)) out[out.length - 1].push(e.v);
    else out.push([e.v]);
    prev = e.k;
  }
  return out;
}
defNative("group_by", 1, { gen: (i, a, env, emit) => emit(groups(i, a[0], env)) });
defNative("unique_by", 1, { gen: (i, a, env, emit) => emit(groups(i, a[0], env).map((g) => g[0])) });
def0("unique", (i) => {
  const s = jqSort(sortArray(i, "sorted"));
  return s.filter((v, j) => j === 0 || (typeof v === "string" ? v !== s[j - 1] : compare(s[j - 1], v) !== 0));
});
function minMax(i: Json, a: Parameters<typeof keyed>[1] | null, env: unknown, max: boolean): Json {
  const ks = a === null ? sortArray(i, "sorted").map((v) => ({ k: [v] as Json[], v })) : keyed(i, a, env);
  if (ks.length === 0) return null;
  let best = ks[0];
  for (let j = 1; j < ks.length; j++) {
    const c = compare(ks[j].k, best.k);
    if (max ? c >= 0 : c < 0) best = ks[j];
  }
  return best.v;
}
def0("min", (i) => minMax(i, null, null, false));
def0("max", (i) => minMax(i, null, null, true));
defNative("min_by", 1, { gen: (i, a, env, emit) => emit(minMax(i, a[0], env, false)) });
defNative("max_by", 1, { gen: (i, a, env, emit) => emit(minMax(i, a[0], env, true)) });
def0("reverse", (i) => {
  if (typeof i === "string") return Array.from(i).reverse().join("");
  if (i === null) return [];
  if (Array.isArray(i)) return i.slice().reverse();
  if (isObj(i) && Object.keys(i).length === 0) return [];
  return indexValue(i, 0);
});
def0("add", (i) => {
  let acc: Json = null;
  iterate(i, (v) => {
    acc = add(acc, v);
    return false;
  });
  return acc;
});
defV("join", 1, (i, sep) => {
  let acc: Json = null;
  iterate(i, (x) => {
    const piece = x === null ? "" : typeof x === "boolean" || typeof x === "number" ? printCompact(x) : x;
    acc = add(acc === null ? "" : add(acc, sep), piece);
    return false;
  });
  return acc === null ? "" : acc;
});
function flatten(a: Json[], depth: number, out: Json[]): Json[] {
  for (const x of a) {
    if (Array.isArray(x) && depth > 0) flatten(x, depth - 1, out);
    else out.push(x);
  }
  return out;
}
defV("flatten", 1, (i, d) => {
  if (typeof d !== "number") return fail("flatten depth must not be negative");
  if (d < 0) return fail("flatten depth must not be negative");
  if (!Array.isArray(i)) return fail(`Cannot iterate over ${desc(i)}`);
  return flatten(i, d, []);
});
def0("flatten", (i) => (Array.isArray(i) ? flatten(i, 1e9, []) : fail(`Cannot iterate over ${desc(i)}`)));
def0("to_entries", (i) => {
  const ks = keysOf(i, false) as Json[];
  return ks.map((k) => ({ key: k, value: indexValue(i, k) }));
});
def0("from_entries", (i) => {
  const o: JObj = {};
  iterate(i, (e) => {
    let k: Json = null;
    for (const name of ["key", "Key", "name", "Name"]) {
      k = indexValue(e, name);
      if (truthy(k)) break;
    }
    let v: Json;
    if (isObj(e) && Object.prototype.hasOwnProperty.call(e, "value")) v = e.value;
    else v = indexValue(e, "Value");
    if (typeof k === "number" || typeof k === "boolean") k = printCompact(k);
    if (typeof k !== "string") return fail(`Cannot use ${desc(k)} as object key`);
    setKey(o, k, v);
    return false;
  });
  return o;
});
def0("toarray", (i) => (Array.isArray(i) ? i : [i]));
def0("abs", (i) => {
  if (typeof i === "number") return i < 0 ? -i : i;
  if (compare(i, 0) < 0) return fail(`${desc(i)} cannot be negated`);
  return i;
});
defV("format", 1, (i, f) => (typeof f === "string" ? applyFormat(f, i) : fail(`${desc(f)} is not a valid format`)));
def0("input_filename", () => null);
def0("input_line_number", () => 0);
defNative("input", 0, {
  gen: (_i, _a, _e, emit) => {
    if (S.input === null) return fail("break");
    const v = S.input();
    return v === undefined ? fail("No more inputs") : emit(v);
  },
});
defNative("inputs", 0, {
  gen: (_i, _a, _e, emit) => {
    if (S.input === null) return false;
    for (;;) {
      step();
      const v = S.input();
      if (v === undefined) return false;
      if (emit(v)) return true;
    }
  },
});
def0("env", () => S.env);
def0("halt", () => {
  throw new HaltSignal(null, 0, false);
});
defV("halt_error", 1, (i, code) => {
  if (typeof code !== "number") return fail(`${desc(i)} halt_error/1: number required`);
  throw new HaltSignal(i, code, true);
});
def0("debug", (i) => {
  S.debug(["DEBUG:", i]);
  return i;
});
def0("stderr", (i) => {
  S.debug(i);
  return i;
});

// paths
defNative("path", 1, {
  gen: (i, a, env, emit) => pathOf(a[0])(i, [], env, (v, p) => (p === null ? invalidPathResult(v) : emit(p))),
});
defNative("getpath", 1, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (p) => emit(getPath(i, p))),
  pgen: (i, path, a, env, emit) =>
    a[0].gen(i, env, (p) => {
      if (!Array.isArray(p)) return fail("Path must be specified as an array");
      if (path === null) return invalidPathResult(i);
      let v: Json;
      try {
        v = getPath(i, p);
      } catch (e) {
        if (!(e instanceof JqError)) throw e;
        v = null;
      }
      return emit(v, path.concat(p));
    }),
});
defV("setpath", 2, (i, p, v) => setPath(i, p, v));
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
defNative("limit", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (n0) => {
      const n = numOf(n0);
      if (typeof n !== "number") return fail("Invalid limit: must be a number");
      if (n <= 0) return n < 0 ? a[1].gen(i, env, emit) : false;
      let count = 0;
      let mine = false;
      let down = false;
      const stop = a[1].gen(i, env, (v) => {
        count++;
        down = emit(v);
        if (down || count >= n) {
          mine = true;
          return true;
        }
        return false;
      });
      return mine ? down : stop;
    }),
  pgen: (i, p, a, env, emit) =>
    a[0].gen(i, env, (n0) => {
      const n = numOf(n0);
      if (typeof n !== "number") return fail("Invalid limit: must be a number");
      const f = pathOf(a[1]);
      if (n <= 0) return n < 0 ? f(i, p, env, emit) : false;
      let count = 0;
      let mine = false;
      let down = false;
      const stop = f(i, p, env, (v, vp) => {
        count++;
        down = emit(v, vp);
        if (down || count >= n) {
          mine = true;
          return true;
        }
        return false;
      });
      return mine ? down : stop;
    }),
});
defNative("nth", 2, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (n0) => {
      const n = numOf(n0);
      if (typeof n !== "number") return fail(`Cannot index ${typeOf(n)} with number`);
      if (n < 0) return fail("nth doesn't support negative indices");
      let count = 0;
      let mine = false;
      let down = false;
      const stop = a[1].gen(i, env, (v) => {
        if (count++ < n) return false;
        mine = true;
        down = emit(v);
        return true;
      });
      return mine ? down : stop;
    }),
});
defV("bsearch", 1, (i, target) => {
  if (!Array.isArray(i)) return fail(`${desc(i)} cannot be searched from`);
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
defNative("until", 2, {
  gen: (i, a, env, emit) => {
    const rec = (v: Json): boolean => {
      step();
      return a[0].gen(v, env, (c) => (truthy(c) ? emit(v) : a[1].gen(v, env, rec)));
    };
    return rec(i);
  },
});
defNative("while", 2, {
  gen: (i, a, env, emit) => {
    const rec = (v: Json): boolean => {
      step();
      return a[0].gen(v, env, (c) => (truthy(c) ? emit(v) || a[1].gen(v, env, rec) : false));
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
function rangeLoop(from: Json, upto: Json, by: Json, emit: (v: Json) => boolean): boolean {
  from = numOf(from);
  upto = numOf(upto);
  by = numOf(by);
  if (typeof from !== "number" || typeof upto !== "number" || typeof by !== "number") return fail("Range bounds must be numeric");
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
defNative("range", 1, { gen: (i, a, env, emit) => a[0].gen(i, env, (n) => rangeLoop(0, n, 1, emit)) });
defNative("range", 2, {
  gen: (i, a, env, emit) => a[0].gen(i, env, (f) => a[1].gen(i, env, (t) => rangeLoop(f, t, 1, emit))),
});
defNative("range", 3, {
  gen: (i, a, env, emit) =>
    a[0].gen(i, env, (f) => a[1].gen(i, env, (t) => a[2].gen(i, env, (b) => rangeLoop(f, t, b, emit)))),
});

// strings
def0("ascii_downcase", (i) =>
  typeof i === "string" ? i.replace(/[A-Z]/g, (c) => c.toLowerCase()) : fail(`${desc(i)} cannot be ascii_downcased`),
);
def0("ascii_upcase", (i) =>
  typeof i === "string" ? i.replace(/[a-z]/g, (c) => c.toUpperCase()) : fail(`${desc(i)} cannot be ascii_upcased`),
);
def0("explode", (i) => (typeof i === "string" ? Array.from(i, (c) => c.codePointAt(0) as number) : fail(`${desc(i)} cannot be exploded`)));
def0("implode", (i) => {
  if (!Array.isArray(i)) return fail("implode input must be an array");
  let s = "";
  for (const c of i) {
    if (typeof c !== "number" || c !== c)
      return fail(`${typeOf(c)} (${c !== c ? "null" : printCompact(c)}) can't be imploded, unicode codepoint needs to be numeric`);
    const n = Math.trunc(c);
    s += n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(n);
  }
  return s;
});
def0("ascii", (i) => (typeof i === "number" ? String.fromCodePoint(i) : fail(`${desc(i)} cannot be converted to ascii`)));
defV("ltrimstr", 1, (i, p) => (typeof i === "string" && typeof p === "string" && i.startsWith(p) ? i.slice(p.length) : i));
defV("rtrimstr", 1, (i, p) =>
  typeof i === "string" && typeof p === "string" && i.endsWith(p) && p.length > 0 ? i.slice(0, i.length - p.length) : i,
);
defV("startswith", 1, (i, p) => (typeof i === "string" && typeof p === "string" ? i.startsWith(p) : fail("startswith() requires string inputs")));
defV("endswith", 1, (i, p) => (typeof i === "string" && typeof p === "string" ? i.endsWith(p) : fail("endswith() requires string inputs")));
const WS = /^[ \t\n\r\f\v]+|[ \t\n\r\f\v]+$/g;
def0("trim", (i) => (typeof i === "string" ? i.replace(WS, "") : fail(`${desc(i)} trim input must be a string`)));
def0("ltrim", (i) => (typeof i === "string" ? i.replace(/^[ \t\n\r\f\v]+/, "") : fail(`${desc(i)} trim input must be a string`)));
def0("rtrim", (i) => (typeof i === "string" ? i.replace(/[ \t\n\r\f\v]+$/, "") : fail(`${desc(i)} trim input must be a string`)));
defV("split", 1, (i, sep) => {
  if (typeof i !== "string" || typeof sep !== "string") return fail("split input and separator must be strings");
  if (i === "") return [];
  return sep === "" ? Array.from(i) : i.split(sep);
});

/** Byte offsets of every (overlapping) occurrence of `sub` in `s`. */
function strIndices(s: string, sub: string): Json {
  if (sub === "") return null;
  const enc = new TextEncoder();
  const hb = enc.encode(s);
  const nb = enc.encode(sub);
  const out: number[] = [];
  outer: for (let i = 0; i + nb.length <= hb.length; i++) {
    for (let j = 0; j < nb.length; j++) if (hb[i + j] !== nb[j]) continue outer;
    out.push(i);
  }
  return out;
}
function indices(i: Json, x: Json): Json {
  if (i === null) return null;
  if (Array.isArray(i)) return indicesOf(i, Array.isArray(x) ? x : [x]);
  if (typeof i === "string" && typeof x === "string") return strIndices(i, x);
  return indexValue(i, x);
}
defV("indices", 1, indices);
defV("_strindices", 1, (i, x) => (typeof i === "string" && typeof x === "string" ? strIndices(i, x) : fail("_strindices requires strings")));
defV("index", 1, (i, x) => {
  const r = indices(i, x);
  return Array.isArray(r) ? (r.length ? r[0] : null) : null;
});
defV("rindex", 1, (i, x) => {
  const r = indices(i, x);
  return Array.isArray(r) ? (r.length ? r[r.length - 1] : null) : null;
});

export { step };
