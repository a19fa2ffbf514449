/**
 * String built-ins: strcat, join, substr, toUpper/toLower, strcmp/stricmp,
 * the version comparisons, string lists (stringListsIntersect and the
 * HTCondor stringList* additions) and unparse.
 */
import { cmpBytes, cmpFold } from "../operators.js";
import type { EvalState } from "../state.js";
import { unparseNode } from "../unparse.js";
import { ERROR, ListValue, UNDEF, isInt, type Value } from "../values.js";
import { eager, toStr, type Builtin } from "./helpers.js";

const enc = new TextEncoder();
const dec = new TextDecoder();

function isAscii(s: string): boolean {
  return /^[\x00-\x7f]*$/.test(s);
}

/** Concatenates items (strcat) or joins them with a separator (join), as the library does. */
function concat(items: Value[], isJoin: boolean): Value {
  let buf = "";
  let sep = "";
  let undef = false;
  let def = false;
  for (let i = 0; i < items.length; i++) {
    const v = items[i];
    if (v === UNDEF) {
      undef = true;
      if (isJoin) continue;
      def = false;
      break;
    }
    if (v === ERROR) return ERROR;
    const s = toStr(v) ?? "";
    if (isJoin) {
      if (i === 0) {
        sep = s;
        continue;
      }
      if (buf !== "") buf += sep;
    }
    def = true;
    buf += s;
  }
  if (undef && !def) return UNDEF;
  return buf;
}

const strcat: Builtin = (args, ad, st) => {
  const vals: Value[] = [];
  for (const a of args) {
    const v = a(ad, st);
    vals.push(v);
    if (v === UNDEF || v === ERROR) break;
  }
  return concat(vals, false);
};

const join: Builtin = (args, ad, st) => {
  let vals = args.map((a) => a(ad, st));
  if (vals.length >= 1 && vals.length <= 2) {
    const last = vals[vals.length - 1];
    if (last instanceof ListValue) {
      const items: Value[] = [];
      for (let i = 0; i < last.length; i++) items.push(last.at(i, st));
      vals = [vals.length === 2 ? vals[0] : "", ...items];
    }
  }
  return concat(vals, true);
};

/** C `(int)` of an int64: the low 32 bits as a signed number. */
function int32(v: number | bigint): number {
  return typeof v === "number" && v >= -2147483648 && v <= 2147483647
    ? v
    : Number(BigInt.asIntN(32, BigInt(v)));
}

/**
 * substr(s, off[, len]) as fnCall.cpp has it: UNDEFINED anywhere first (so
 * `substr(error, undefined)` is UNDEFINED), then s must be a String and off,
 * len Integers (read as C ints) or the result is ERROR.
 */
const substr: Builtin = (args, ad, st) => {
  if (args.length < 2 || args.length > 3) return ERROR;
  const s = args[0](ad, st);
  const o = args[1](ad, st);
  const l = args.length === 3 ? args[2](ad, st) : 0;
  if (s === UNDEF || o === UNDEF || l === UNDEF) return UNDEF;
  if (typeof s !== "string" || !isInt(o) || !isInt(l)) return ERROR;
  const ascii = isAscii(s);
  const bytes = ascii ? null : enc.encode(s);
  const alen = ascii ? s.length : (bytes as Uint8Array).length;
  let off = int32(o);
  let len = int32(l);
  if (off < 0) off = Math.max(0, alen + off);
  else if (off >= alen) off = alen;
  if (len <= 0) len = Math.max(0, alen - off + len);
  else if (len > alen - off) len = alen - off;
  if (args.length === 3 && int32(l) === 0) len = 0;
  return ascii ? s.substr(off, len) : dec.decode((bytes as Uint8Array).subarray(off, off + len));
};

function changeCase(upper: boolean): Builtin {
  return eager(1, 1, ([v]) => {
    const s = toStr(v);
    if (s === null) return ERROR;
    return s.replace(upper ? /[a-z]+/g : /[A-Z]+/g, (m) => (upper ? m.toUpperCase() : m.toLowerCase()));
  });
}

/**
 * A builtin of two string arguments with compareString's and
 * compareVersion's rules: exactly two arguments, UNDEFINED before anything
 * else, then both converted to strings (lists and ads unparsed; ERROR stays
 * ERROR).
 */
function twoStrings(body: (a: string, b: string) => Value): Builtin {
  return (args, ad, st) => {
    if (args.length !== 2) return ERROR;
    const a = args[0](ad, st);
    const b = args[1](ad, st);
    if (a === UNDEF || b === UNDEF) return UNDEF;
    const sa = toStr(a);
    const sb = toStr(b);
    if (sa === null || sb === null) return ERROR;
    return body(sa, sb);
  };
}

function strCompare(fold: boolean): Builtin {
  return twoStrings((sa, sb) => {
    const c = fold ? cmpFold(sa, sb) : cmpBytes(sa, sb);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  });
}

function isD(s: Uint8Array, i: number): boolean {
  return i < s.length && s[i] >= 48 && s[i] <= 57;
}

/** strverscmp-style natural comparison on the bytes of two strings. */
export function naturalCmp(a: string, b: string): number {
  const s1 = enc.encode(a);
  const s2 = enc.encode(b);
  const at = (s: Uint8Array, i: number) => (i < s.length ? s[i] : 0);
  let i = 0;
  while (i < s1.length && at(s1, i) === at(s2, i)) i++;
  if (at(s1, i) === at(s2, i)) return 0;
  let n1 = i;
  while (n1 > 0 && isD(s1, n1 - 1)) n1--;
  const n2 = n1; // same prefix in both strings
  if (n1 === i && (!isD(s1, i) || !isD(s2, i))) return at(s1, i) - at(s2, i);
  let z1 = n1;
  while (at(s1, z1) === 48) z1++;
  let z2 = n2;
  while (at(s2, z2) === 48) z2++;
  if (z1 > n1 && !isD(s1, z1)) z1--;
  if (z2 > n2 && !isD(s2, z2)) z2--;
  if (z1 - n1 !== z2 - n2) return z2 - n2 - (z1 - n1);
  if (z1 > n1) return at(s1, i) - at(s2, i);
  let e1 = z1;
  while (isD(s1, e1)) e1++;
  let e2 = z2;
  while (isD(s2, e2)) e2++;
  if (e1 - n1 !== e2 - n2) return e1 - n1 - (e2 - n2);
  return at(s1, i) - at(s2, i);
}

function version(kind: string): Builtin {
  return twoStrings((sa, sb) => {
    const r = naturalCmp(sa, sb);
    switch (kind) {
      case "cmp":
        return r;
      case "lt":
        return r < 0;
      case "le":
        return r <= 0;
      case "gt":
        return r > 0;
      case "ge":
        return r >= 0;
      default:
        return r === 0;
    }
  });
}

/** version_in_range(v, lo, hi): UNDEFINED only for an UNDEFINED bound; an UNDEFINED or ERROR version is ERROR. */
const versionInRange: Builtin = (args, ad, st) => {
  if (args.length !== 3) return ERROR;
  const vals = args.map((a) => a(ad, st));
  if (vals[1] === UNDEF || vals[2] === UNDEF) return UNDEF;
  const s = vals.map(toStr);
  if (s.some((x) => x === null)) return ERROR;
  const [v, lo, hi] = s as string[];
  return naturalCmp(lo, v) <= 0 && naturalCmp(v, hi) <= 0;
};

function splitOn(s: string, delims: string, trim: boolean): string[] {
  const out: string[] = [];
  let cur = "";
  const flush = () => {
    const t = trim ? cur.trim() : cur;
    if (t !== "") out.push(t);
    cur = "";
  };
  for (const ch of s) {
    if (delims.includes(ch)) flush();
    else cur += ch;
  }
  flush();
  return out;
}

const stringListsIntersect: Builtin = (args, ad, st) => {
  if (args.length !== 2 && args.length !== 3) return ERROR;
  const vals = args.map((a) => a(ad, st));
  if (vals.some((v) => v === ERROR)) return ERROR;
  if (vals.some((v) => v === UNDEF)) return UNDEF;
  const delims = vals.length === 3 ? vals[2] : " ,";
  if (typeof delims !== "string" || typeof vals[0] !== "string" || typeof vals[1] !== "string") return ERROR;
  const d = delims === "" ? " ," : delims;
  const set = new Set(splitOn(vals[1], d, false));
  return splitOn(vals[0], d, false).some((x) => set.has(x));
};

const unparse: Builtin = (args, ad, _st, nodes) => {
  if (args.length !== 1 || nodes[0].k !== "attr") return ERROR;
  const slot = ad.get(unparseNode(nodes[0]).toLowerCase());
  return slot === undefined ? "" : unparseNode(slot.c.node);
};

/** The string built-ins by lower-cased name. */
export const STRINGS: ReadonlyArray<readonly [string, Builtin]> = [
  ["strcat", strcat],
  ["join", join],
  ["substr", substr],
  ["toupper", changeCase(true)],
  ["tolower", changeCase(false)],
  ["strcmp", strCompare(false)],
  ["stricmp", strCompare(true)],
  ["versioncmp", version("cmp")],
  ["versionlt", version("lt")],
  ["versionle", version("le")],
  ["versiongt", version("gt")],
  ["versionge", version("ge")],
  ["versioneq", version("eq")],
  ["version_in_range", versionInRange],
  ["stringlistsintersect", stringListsIntersect],
  ["unparse", unparse],
];

export type { EvalState };
