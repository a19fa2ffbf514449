/** Native string builtins: case, explode/implode, trimming, split, indices. */
import type { Json } from "../engines/common/json.js";
import { def0, defV } from "./builtins-define.js";
import { indexValue, indicesOf, sliceValue } from "./ops.js";
import { printCompact } from "./print.js";
import { charge } from "./runtime.js";
import { fail, numOf, typeOf } from "./values.js";

// strings
const UPPER_RUN = /[A-Z]+/g;
const LOWER_RUN = /[a-z]+/g;
const toLower = (c: string): string => c.toLowerCase();
const toUpper = (c: string): string => c.toUpperCase();

/**
 * Changes the case of ASCII letters only: an all-ASCII string goes through the (then
 * equivalent) built-in case mapping, others through a replace of letter runs.
 */
export function asciiCase(s: string, upper: boolean): string {
  for (let k = 0; k < s.length; k++) {
    if (s.charCodeAt(k) > 0x7f) return upper ? s.replace(LOWER_RUN, toUpper) : s.replace(UPPER_RUN, toLower);
  }
  return upper ? s.toUpperCase() : s.toLowerCase();
}
def0("ascii_downcase", (i) =>
  typeof i === "string" ? asciiCase(i, false) : fail("explode input must be a string"),
);
def0("ascii_upcase", (i) =>
  typeof i === "string" ? asciiCase(i, true) : fail("explode input must be a string"),
);
def0("explode", (i) =>
  typeof i === "string"
    ? Array.from(i, (c) => c.codePointAt(0) as number)
    : fail("explode input must be a string"),
);
def0("implode", (i) => {
  if (!Array.isArray(i)) return fail("implode input must be an array");
  let s = "";
  for (const c0 of i) {
    const c = numOf(c0);
    if (typeof c !== "number" || c !== c)
      return fail(
        `${typeOf(c)} (${c !== c ? "null" : printCompact(c)}) can't be imploded, unicode codepoint needs to be numeric`,
      );
    const n = Math.trunc(c);
    s += n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff) ? "\uFFFD" : String.fromCodePoint(n);
  }
  return s;
});
defV("ltrimstr", 1, (i, p) =>
  typeof i === "string" && typeof p === "string" && i.startsWith(p) ? i.slice(p.length) : i,
);
defV("rtrimstr", 1, (i, p) =>
  typeof i === "string" && typeof p === "string" && i.endsWith(p) && p.length > 0
    ? i.slice(0, i.length - p.length)
    : i,
);
defV("startswith", 1, (i, p) =>
  typeof i === "string" && typeof p === "string"
    ? i.startsWith(p)
    : fail("startswith() requires string inputs"),
);
defV("endswith", 1, (i, p) =>
  typeof i === "string" && typeof p === "string" ? i.endsWith(p) : fail("endswith() requires string inputs"),
);
defV("split", 1, (i, sep) => {
  if (typeof i !== "string" || typeof sep !== "string")
    return fail("split input and separator must be strings");
  if (i === "") return [];
  return sep === "" ? Array.from(i) : i.split(sep);
});

/** Byte offsets of every (overlapping) occurrence of `sub` in `s` (none for an empty `sub`). */
function strIndices(s: string, sub: string): Json {
  if (sub === "") return [];
  const enc = new TextEncoder();
  const hb = enc.encode(s);
  const nb = enc.encode(sub);
  const out: number[] = [];
  // the naive search compares up to needle-length bytes at each offset: charged before it runs
  charge(hb.length * Math.min(nb.length, hb.length) + nb.length);
  outer: for (let i = 0; i + nb.length <= hb.length; i++) {
    for (let j = 0; j < nb.length; j++) if (hb[i + j] !== nb[j]) continue outer;
    out.push(i);
  }
  return out;
}
/**
 * jq 1.7.1: `def indices($i): if type == "array" and ($i|type) == "array" then .[$i] elif type == "array"
 * then .[[$i]] elif type == "string" and ($i|type) == "string" then _strindices($i) else .[$i] end;`
 */
function indices(i: Json, x: Json): Json {
  if (Array.isArray(i)) return indicesOf(i, Array.isArray(x) ? x : [x]);
  if (typeof i === "string" && typeof x === "string") return strIndices(i, x);
  return indexValue(i, x);
}
defV("indices", 1, indices);
defV("_strindices", 1, (i, x) =>
  typeof i === "string" && typeof x === "string" ? strIndices(i, x) : fail("_strindices requires strings"),
);
// def index($i): indices($i) | .[0];  def rindex($i): indices($i) | .[-1:][0];
defV("index", 1, (i, x) => indexValue(indices(i, x), 0));
defV("rindex", 1, (i, x) => indexValue(sliceValue(indices(i, x), -1, null), 0));
