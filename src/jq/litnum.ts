/** Number literals that keep their decimal text while passed through unchanged (jq 1.7.1 literal preservation). */
import type { Json } from "../engines/common/json.js";
import { keysOf, setOrderedKey } from "./key-order.js";
import { walked } from "./work-guard.js";

/** A number carrying its canonical decimal literal; arithmetic sees only `n`. */
export class LitNum {
  constructor(
    readonly n: number,
    readonly text: string,
  ) {}
}

interface Dec {
  neg: boolean;
  c: string;
  e: number;
}

function parseDec(text: string): Dec | null {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(text.trim());
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const frac = m[3] ?? "";
  let c = (m[2] + frac).replace(/^0+/, "");
  if (c === "") c = "0";
  return { neg: m[1] === "-", c, e: Number(m[4] ?? "0") - frac.length };
}

/** The General Decimal Arithmetic to-scientific-string form of a literal (spec §2). */
export function canonicalLiteral(text: string): string | null {
  const d = parseDec(text);
  if (d === null) return null;
  const { c, e } = d;
  const adjusted = e + c.length - 1;
  let s: string;
  if (e <= 0 && adjusted >= -6) {
    const k = -e;
    if (k === 0) s = c;
    else if (c.length > k) s = c.slice(0, c.length - k) + "." + c.slice(c.length - k);
    else s = "0." + "0".repeat(k - c.length) + c;
  } else {
    s =
      c[0] + (c.length > 1 ? "." + c.slice(1) : "") + "E" + (adjusted >= 0 ? "+" : "-") + Math.abs(adjusted);
  }
  return (d.neg ? "-" : "") + s;
}

/** How many LitNums were ever made: the compiler checks it to know whether a program holds any. */
export const litStats = { created: 0 };

/** Compares two decimal literals exactly. */
export function compareDecimal(a: string, b: string): number {
  const x = parseDec(a);
  const y = parseDec(b);
  if (x === null || y === null) return 0;
  const xz = x.c === "0";
  const yz = y.c === "0";
  if (xz && yz) return 0;
  const sx = xz ? 0 : x.neg ? -1 : 1;
  const sy = yz ? 0 : y.neg ? -1 : 1;
  if (sx !== sy) return sx < sy ? -1 : 1;
  const ax = x.e + x.c.length;
  const ay = y.e + y.c.length;
  let mag: number;
  if (ax !== ay) mag = ax < ay ? -1 : 1;
  else {
    const n = Math.max(x.c.length, y.c.length);
    const cx = x.c.padEnd(n, "0");
    const cy = y.c.padEnd(n, "0");
    mag = cx < cy ? -1 : cx > cy ? 1 : 0;
  }
  return sx < 0 ? -mag : mag;
}

/**
 * A number from literal text: a plain double unless preserving the literal is observable
 * (its canonical text differs from how the double prints, or it is an integer beyond 2^53).
 */
export function numberFromText(text: string, printDouble: (n: number) => string): Json {
  const d = Number(text);
  const canon = canonicalLiteral(text);
  if (canon === null) return d;
  if (canon === printDouble(d) && Math.abs(d) < 2 ** 53) return d;
  litStats.created++;
  return new LitNum(d, canon) as unknown as Json;
}

/** Replaces every LitNum inside a value by its double (for the embedding API's plain JSON). */
export function plainJson(v: Json): Json {
  return plainAt(v, 0);
}

/** Below this depth {@link plainJson} recurses; deeper values go through the explicit-stack walk. */
const PLAIN_RECURSE_DEPTH = 256;

function plainAt(v: Json, depth: number): Json {
  if (typeof v !== "object" || v === null) return v;
  walked();
  if ((v as unknown) instanceof LitNum) return (v as unknown as LitNum).n;
  if (depth >= PLAIN_RECURSE_DEPTH) return plainDeep(v);
  if (Array.isArray(v)) {
    let out: Json[] | null = null;
    for (let i = 0; i < v.length; i++) {
      const p = plainAt(v[i], depth + 1);
      if (p !== v[i] && out === null) out = v.slice(0, i);
      if (out !== null) out.push(p);
    }
    return out ?? v;
  }
  let changed = false;
  const o: { [k: string]: Json } = {};
  for (const k of keysOf(v)) {
    const p = plainAt(v[k], depth + 1);
    if (p !== v[k]) changed = true;
    setOrderedKey(o, k, p);
  }
  return changed ? o : v;
}

interface PlainFrame {
  src: Json[] | { [k: string]: Json };
  keys: readonly string[] | null;
  i: number;
  /** The copy with literals replaced, made at the first changed member (null while none changed). */
  out: Json[] | { [k: string]: Json } | null;
}

/** {@link plainJson} with an explicit stack, for values of any depth. */
function plainDeep(root: Json): Json {
  const stack: PlainFrame[] = [];
  const frameOf = (c: Json[] | { [k: string]: Json }): PlainFrame => ({
    src: c,
    keys: Array.isArray(c) ? null : keysOf(c),
    i: 0,
    out: null,
  });
  stack.push(frameOf(root as Json[] | { [k: string]: Json }));
  let result: Json = root;
  let returned = false;
  while (stack.length > 0) {
    const f = stack[stack.length - 1];
    const n = f.keys === null ? (f.src as Json[]).length : f.keys.length;
    if (returned) {
      // `result` is the plain form of member i - 1
      returned = false;
      const j = f.i - 1;
      const old = f.keys === null ? (f.src as Json[])[j] : (f.src as { [k: string]: Json })[f.keys[j]];
      if (result !== old && f.out === null) {
        if (f.keys === null) f.out = (f.src as Json[]).slice(0, j);
        else {
          const o: { [k: string]: Json } = {};
          for (let m = 0; m < j; m++)
            setOrderedKey(o, f.keys[m], (f.src as { [k: string]: Json })[f.keys[m]]);
          f.out = o;
        }
      }
      if (f.out !== null) {
        if (f.keys === null) (f.out as Json[]).push(result);
        else setOrderedKey(f.out as { [k: string]: Json }, f.keys[j], result);
      }
    }
    if (f.i < n) {
      walked();
      const x = f.keys === null ? (f.src as Json[])[f.i] : (f.src as { [k: string]: Json })[f.keys[f.i]];
      f.i++;
      if (typeof x !== "object" || x === null || (x as unknown) instanceof LitNum) {
        result = typeof x === "object" && x !== null ? (x as unknown as LitNum).n : x;
        returned = true;
      } else stack.push(frameOf(x as Json[] | { [k: string]: Json }));
      continue;
    }
    stack.pop();
    result = (f.out ?? f.src) as Json;
    returned = true;
  }
  return result;
}
