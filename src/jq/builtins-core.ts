/** Native core builtins: types, containers, conversions, sorting, entries and I/O stand-ins. */
import type { Json } from "../engines/common/json.js";
import { def0, defNative, defV } from "./builtins-define.js";
import { iterate } from "./compile.js";
import { applyFormat } from "./formats.js";
import { fromJson } from "./json-parse.js";
import { add, cpLength, indexValue } from "./ops.js";
import { formatNumber, printCompact } from "./print.js";
import { numberFromText } from "./litnum.js";
import { S, step } from "./runtime.js";
import { HaltSignal, JqError, compare, compareStrings, desc, equals, fail, isObject, setKey, sortedKeys, truthy, typeOf, type JObj } from "./values.js";

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
def0("fromjson", (i) => (typeof i === "string" ? fromJson(i) : fail(`${desc(i)} only strings can be parsed`)));
def0("tonumber", (i) => {
  if (typeof i === "object" && i !== null && typeOf(i) === "number") return i;
  if (typeof i === "number") return i;
  if (typeof i === "string") {
    const t = i.trim();
    if (/^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t)) return numberFromText(t, formatNumber);
    if (/^-?nan$/i.test(t)) return NaN;
    return fail(`Cannot parse '${i}' as JSON`);
  }
  return fail(`${desc(i)} cannot be parsed as a number`);
}, true);
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
    return sur ? out.sort((x, y) => compareStrings(x as string, y as string)) : out.sort();
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

export { step };
