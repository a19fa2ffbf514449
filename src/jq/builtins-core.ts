/** Native core builtins: types, containers, conversions, sorting, entries and I/O stand-ins. */
import type { Json } from "../engines/common/json.js";
import { def0, defNative, defV } from "./builtins-define.js";
import { iterate } from "./compile.js";
import { applyFormat } from "./formats.js";
import { fromJson } from "./json-parse.js";
import { add, cpLength, indexValue, sub } from "./ops.js";
import { formatNumber, printCompact } from "./print.js";
import { numberFromText } from "./litnum.js";
import { keyCount, keysOf as orderedKeys } from "./key-order.js";
import { ALLOC, charge, chargeSort, KEY, S, step } from "./runtime.js";
import {
  HaltSignal,
  JqError,
  compare,
  compareStrings,
  desc,
  equals,
  fail,
  isObject,
  numOf,
  setKey,
  sortedKeys,
  truthy,
  typeOf,
  type JObj,
} from "./values.js";

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
/** `length`: null 0, numbers their absolute value, strings code points, containers sizes. */
export function lengthOf(i: Json): number {
  if (i === null) return 0;
  switch (typeof i) {
    case "boolean":
      return fail(`${desc(i)} has no length`);
    case "number":
      return Math.abs(i);
    case "string":
      return cpLength(i);
  }
  // a number's length is its absolute value as a double (the literal is not kept)
  if (typeOf(i) === "number") return Math.abs(numOf(i) as number);
  if (Array.isArray(i)) return i.length;
  // counting an object's keys walks them: charged to the work budget
  const n = keyCount(i);
  charge(n);
  return n;
}
def0("length", lengthOf);
def0("utf8bytelength", (i) =>
  typeof i === "string"
    ? new TextEncoder().encode(i).length
    : fail(`${desc(i)} only strings have UTF-8 byte length`),
);
function keysOf(i: Json, sorted: boolean): Json {
  if (isObj(i)) return sorted ? sortedKeys(i) : orderedKeys(i).slice();
  if (Array.isArray(i)) return i.map((_, j) => j);
  return fail(`${desc(i)} has no keys`);
}
def0("keys", (i) => keysOf(i, true));
def0("keys_unsorted", (i) => keysOf(i, false));
defV("has", 1, (i, k) => {
  if (i === null) return false;
  if (isObj(i) && typeof k === "string") return Object.prototype.hasOwnProperty.call(i, k);
  const n = numOf(k);
  if (Array.isArray(i) && typeof n === "number") return n >= 0 && n < i.length;
  return fail(`Cannot check whether ${typeOf(i)} has a ${typeOf(k)} key`);
});

function kind(v: Json): string {
  return v === true ? "true" : v === false ? "false" : typeOf(v);
}
function contains(a: Json, b: Json): boolean {
  if (typeof a === "string") {
    if (typeof b !== "string" || b.length > a.length) return false;
    // a string of the same length contains only itself (no substring search)
    return b.length === a.length ? a === b : a.includes(b);
  }
  if (kind(a) !== kind(b)) return false;
  if (isObj(a)) {
    for (const k in b as JObj) {
      if (!Object.prototype.hasOwnProperty.call(a, k) || !contains(a[k], (b as JObj)[k])) return false;
    }
    return true;
  }
  if (Array.isArray(a)) {
    // every element of b against the elements of a: charged before the pairs are tried
    const bs = b as Json[];
    charge(a.length * bs.length + 1);
    for (let j = 0; j < bs.length; j++) {
      const x = bs[j];
      let found = false;
      for (let i = 0; i < a.length && !found; i++) found = contains(a[i], x);
      if (!found) return false;
    }
    return true;
  }
  return equals(a, b);
}
defV("contains", 1, (i, b) => {
  if (kind(i) !== kind(b)) return fail(`${desc(i)} and ${desc(b)} cannot have their containment checked`);
  return contains(i, b);
});

def0("tostring", (i) => (typeof i === "string" ? i : printCompact(i)));
def0("tojson", (i) => printCompact(i));
def0("fromjson", (i) =>
  typeof i === "string" ? fromJson(i) : fail(`${desc(i)} only strings can be parsed`),
);
/** Leading and trailing white space as jq's JSON reader skips it (not \uFEFF or other Unicode spaces). */
const JSON_BLANKS = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** Whether `s` is 1 to 15 ASCII digits: an integer below 2^53 whose double prints as its canonical literal. */
function shortDigits(s: string): boolean {
  const n = s.length;
  if (n === 0 || n > 15) return false;
  for (let j = 0; j < n; j++) {
    const c = s.charCodeAt(j);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

def0("tonumber", (i) => {
  if (typeOf(i) === "number") return i;
  if (typeof i !== "string") return fail(`${desc(i)} cannot be parsed as a number`);
  // the common case (what a regex capture of digits gives) needs no literal kept
  if (shortDigits(i)) return Number(i);
  // jq 1.7.1 reads the text with decNumber, which also takes a leading `+` ("+05" is 5)
  const t = i.replace(JSON_BLANKS, "");
  if (/^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(t))
    return numberFromText(t[0] === "+" ? t.slice(1) : t, formatNumber);
  const v = fromJson(i);
  return typeOf(v) === "number" ? v : fail(`${desc(i)} cannot be parsed as a number`);
});
def0("infinite", () => Infinity);
def0("nan", () => NaN);
def0("isinfinite", (i) => {
  const n = numOf(i);
  return n === Infinity || n === -Infinity;
});
def0("isnan", (i) => {
  const n = numOf(i);
  return typeof n === "number" && n !== n;
});
// def isfinite: type == "number" and (isinfinite | not);  (NaN counts as finite)
def0("isfinite", (i) => {
  const n = numOf(i);
  return typeof n === "number" && n !== Infinity && n !== -Infinity;
});
def0("isnormal", (i0) => {
  const i = numOf(i0);
  if (typeof i !== "number") return false;
  const a = Math.abs(i);
  return a >= 2.2250738585072014e-308 && a !== Infinity;
});
function sortArray(i: Json, what: string): Json[] {
  if (!Array.isArray(i)) return fail(`${desc(i)} cannot be ${what}, as it is not an array`);
  return i;
}
/** Sorts values in jq order, with a faster comparator when all are strings or all numbers. */
function jqSort(a: Json[]): Json[] {
  chargeSort(a.length);
  const out = a.slice();
  if (out.every((v) => typeof v === "string")) {
    const sur = out.some((v) => /[\uD800-\uDFFF]/.test(v as string));
    return sur ? out.sort((x, y) => compareStrings(x as string, y as string)) : out.sort();
  }
  if (out.every((v) => typeof v === "number" && v === v))
    return out.sort((x, y) => (x as number) - (y as number));
  return out.sort(compare);
}
def0("sort", (i) => jqSort(sortArray(i, "sorted")));

type KeyGen = { gen: (i: Json, e: never, emit: (v: Json) => boolean) => boolean };

/** `map([f])`: each element (object values too) with all outputs of `f` as its key. */
function keyed(i: Json, a: KeyGen, env: unknown): Array<{ k: Json[]; v: Json }> {
  const out: Array<{ k: Json[]; v: Json }> = [];
  iterate(i, (v) => {
    charge(1 + 2 * ALLOC);
    const k: Json[] = [];
    a.gen(v, env as never, (x) => (k.push(x), false));
    out.push({ k, v });
    return false;
  });
  return out;
}

/** The `_sort_by_impl`-style check: the input itself must be an array (objects fail after `map`). */
function byImpl(i: Json, ks: Array<{ k: Json[] }>, what: string): void {
  if (!Array.isArray(i)) fail(`${desc(i)} and ${desc(ks.map((e) => e.k))} ${what}`);
}

function sortedKeyed(i: Json, a: KeyGen, env: unknown): Array<{ k: Json[]; v: Json }> {
  const ks = keyed(i, a, env);
  byImpl(i, ks, "cannot be sorted, as they are not both arrays");
  chargeSort(ks.length);
  return ks.sort((x, y) => compare(x.k, y.k));
}
defNative("sort_by", 1, {
  gen: (i, a, env, emit) => emit(sortedKeyed(i, a[0], env).map((e) => e.v)),
});
function groups(i: Json, a: KeyGen, env: unknown): Json[][] {
  const ks = sortedKeyed(i, a, env);
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
  if (!Array.isArray(i)) {
    const ks = keyed(i, { gen: (v, _e, emit) => emit(v) }, null);
    byImpl(i, ks, "cannot be sorted, as they are not both arrays");
  }
  const s = jqSort(i as Json[]);
  return s.filter((v, j) => j === 0 || (typeof v === "string" ? v !== s[j - 1] : compare(s[j - 1], v) !== 0));
});
function best(ks: Array<{ k: Json[]; v: Json }>, max: boolean): Json {
  if (ks.length === 0) return null;
  let b = ks[0];
  for (let j = 1; j < ks.length; j++) {
    const c = compare(ks[j].k, b.k);
    if (max ? c >= 0 : c < 0) b = ks[j];
  }
  return b.v;
}
function minMax(i: Json, max: boolean): Json {
  if (!Array.isArray(i)) return fail(`${desc(i)} and ${desc(i)} cannot be iterated over`);
  return best(
    i.map((v) => ({ k: [v] as Json[], v })),
    max,
  );
}
function minMaxBy(i: Json, a: KeyGen, env: unknown, max: boolean): Json {
  const ks = keyed(i, a, env);
  byImpl(i, ks, "cannot be iterated over");
  return best(ks, max);
}
def0("min", (i) => minMax(i, false));
def0("max", (i) => minMax(i, true));
defNative("min_by", 1, { gen: (i, a, env, emit) => emit(minMaxBy(i, a[0], env, false)) });
defNative("max_by", 1, { gen: (i, a, env, emit) => emit(minMaxBy(i, a[0], env, true)) });
// def reverse: [.[length - 1 - range(0;length)]];
def0("reverse", (i) => {
  if (Array.isArray(i)) return i.slice().reverse();
  if (i === null) return [];
  const n = lengthOf(i);
  if (n === 0) return [];
  return indexValue(i, n - 1);
});
def0("add", (i) => {
  let acc: Json = null;
  iterate(i, (v) => {
    charge(1);
    acc = add(acc, v);
    return false;
  });
  return acc;
});
defV("join", 1, (i, sep) => {
  let acc: Json = null;
  iterate(i, (x) => {
    // `$i | if type=="boolean" or type=="number" then tostring else .//"" end` (a literal keeps its text)
    const t = typeOf(x);
    const piece = x === null ? "" : t === "boolean" || t === "number" ? printCompact(x) : x;
    acc = add(acc === null ? "" : add(acc, sep), piece);
    return false;
  });
  return acc === null ? "" : acc;
});
/**
 * jq 1.7.1: `def _flatten($x): reduce .[] as $i ([]; if $i | type == "array" and $x != 0 then
 * . + ($i | _flatten($x - 1)) else . + [$i] end)`; a depth that is not a number fails (at `$x - 1`)
 * only when there is an array to descend into, and a fractional depth never reaches 0.
 */
function flattenInto(v: Json, depth: Json, out: Json[]): void {
  iterate(v, (x) => {
    if (Array.isArray(x) && !equals(depth, 0)) flattenInto(x, sub(depth, 1), out);
    else out.push(x);
    return false;
  });
}
defV("flatten", 1, (i, d) => {
  if (compare(d, 0) < 0) return fail("flatten depth must not be negative");
  const out: Json[] = [];
  flattenInto(i, d, out);
  return out;
});
def0("flatten", (i) => {
  const out: Json[] = [];
  flattenInto(i, -1, out);
  return out;
});
def0("to_entries", (i) => {
  const ks = keysOf(i, false) as Json[];
  return ks.map((k) => ({ key: k, value: indexValue(i, k) }));
});
def0("from_entries", (i) => {
  const o: JObj = {};
  // each entry's key is set into the object (KEY), charged before any is
  if (Array.isArray(i)) charge(KEY * i.length);
  else if (isObject(i)) charge(KEY * keyCount(i));
  iterate(i, (e) => {
    let k: Json = null;
    for (const name of ["key", "Key", "name", "Name"]) {
      k = indexValue(e, name);
      if (truthy(k)) break;
    }
    let v: Json;
    if (isObj(e) && Object.prototype.hasOwnProperty.call(e, "value")) v = e.value;
    else v = indexValue(e, "Value");
    if (typeof k !== "string") return fail(`Cannot use ${desc(k)} as object key`);
    setKey(o, k, v);
    return false;
  });
  return o;
});
// def abs: if . < 0 then - . else . end;  (a non-negative literal passes through unchanged)
def0("abs", (i) => {
  if (typeof i === "number") return i < 0 ? -i : i;
  if (compare(i, 0) >= 0) return i;
  const n = numOf(i);
  return typeof n === "number" ? -n : fail(`${desc(i)} cannot be negated`);
});
defV("format", 1, (i, f) =>
  typeof f === "string" ? applyFormat(f, i) : fail(`${desc(f)} is not a valid format`),
);
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
  const n = numOf(code);
  if (typeof n !== "number") return fail(`${desc(i)} halt_error/1: number required`);
  throw new HaltSignal(i, n, true);
});
def0("debug", (i) => {
  S.debug(["DEBUG:", i]);
  return i;
});
def0("stderr", (i) => {
  S.debug(i);
  return i;
});

/**
 * `INDEX(rows; key)`: jq 1.7.1 defines it as `reduce rows as $row ({}; .[$row|key|tostring] = $row)`;
 * the object is built in place (it is private until emitted) instead of copied per row.
 */
function indexRows(
  rows: (emit: (v: Json) => boolean) => boolean,
  key: KeyGen,
  env: unknown,
  emit: (v: Json) => boolean,
): boolean {
  const acc: JObj = {};
  const stop = rows((row) => {
    step();
    return key.gen(row, env as never, (k) => {
      charge(KEY);
      setKey(acc, typeof k === "string" ? k : printCompact(k), row);
      return false;
    });
  });
  return stop ? true : emit(acc);
}
defNative("INDEX", 2, { gen: (i, a, env, emit) => indexRows((e) => a[0].gen(i, env, e), a[1], env, emit) });
defNative("INDEX", 1, { gen: (i, a, env, emit) => indexRows((e) => iterate(i, e), a[0], env, emit) });

export { step };
