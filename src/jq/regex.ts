/**
 * jq's regex functions on the linear-time matcher (src/engines/common/regex):
 * patterns are Oniguruma's Perl_NT syntax with jq's flags; constructs that
 * need backtracking are an error value naming them and their offset.
 */
import type { Json } from "../engines/common/json.js";
import {
  cachedLinear,
  Lru,
  REGEX_CACHE_SIZE,
  regexBytes,
  REQUEST_PATTERNS,
  type LinearRegex,
} from "../engines/common/regex/index.js";
import { trustedRegExp } from "../engines/common/regex/trusted.js";
import { cloneAt, isIndexKey, storeAt } from "./key-order.js";
import { JqError, desc, fail, type JObj } from "./values.js";

/** Longest input string the regex functions accept (UTF-16 units). */
export const REGEX_MAX_INPUT = 100_000;

interface Compiled {
  rx: LinearRegex;
  names: ReadonlyArray<string | null>;
  /** The validated jq flags it was compiled with, and what they ask for. */
  flags: string;
  global: boolean;
  skipEmpty: boolean;
  /**
   * `capture`'s object shape for this pattern, made at its first capture: every named group null, in
   * group order (null when names repeat or one is `__proto__` or index-like: those take the store
   * loop). A capture clones it through the pattern's own spread site and sets the groups that took part.
   */
  template: JObj | null | undefined;
  /** The spread site ({@link cloneAt}) this pattern's capture objects are cloned through. */
  site: number;
}

/** How many patterns have been given a clone site: the next one gets the next site. */
let sitesGiven = 0;

/** Whether a group of the match took no part (its value undefined). */
function missesGroup(m: RegExpExecArray): boolean {
  for (let g = 1; g < m.length; g++) if (m[g] === undefined) return true;
  return false;
}

/** The object shape of {@link Compiled.template}, or null when the pattern's names need the store loop. */
function templateOf(names: ReadonlyArray<string | null>): JObj | null {
  const t: JObj = {};
  for (const name of names) {
    if (name === null) continue;
    if (name === "__proto__" || isIndexKey(name) || Object.prototype.hasOwnProperty.call(t, name))
      return null;
    t[name] = null;
  }
  return t;
}

let lastPattern = "";
let lastFlags = "";
let lastCompiled: Compiled | null = null;
/** flags → pattern → compiled: two lookups on strings the program already holds, no key to build (bounded per flag set). */
const byFlags = new Map<string, Lru<Compiled>>();

/** Compiles a pattern with jq flags (already validated) through bounded caches. */
export function compileRegex(pattern: string, flags: string): Compiled {
  if (lastCompiled !== null && pattern === lastPattern && flags === lastFlags) return lastCompiled;
  let cache = byFlags.get(flags);
  let c = cache?.get(pattern);
  if (c === undefined) {
    // jq's flags: i case-insensitive, x extended, s single line (Perl_NT's default), p and m: dot matches newline
    const r = cachedLinear(pattern, "onig", {
      i: flags.includes("i"),
      x: flags.includes("x"),
      s: /[mp]/.test(flags),
    });
    if (!r.ok) return fail(r.message);
    c = {
      rx: r.value,
      names: r.value.names,
      flags,
      global: flags.includes("g"),
      skipEmpty: flags.includes("n"),
      template: undefined,
      site: sitesGiven++,
    };
    if (cache === undefined) {
      if (byFlags.size >= 64) {
        for (const old of byFlags.values()) old.dispose();
        byFlags.clear();
      }
      // weighed in the same pool as the compiled patterns it holds, so that evicting one there frees it here too
      byFlags.set(
        flags,
        (cache = new Lru<Compiled>(REGEX_CACHE_SIZE, (x) => regexBytes(x.rx), REQUEST_PATTERNS)),
      );
    }
    cache.set(pattern, c);
  }
  lastPattern = pattern;
  lastFlags = flags;
  lastCompiled = c;
  return c;
}

/** Validates jq regex flags, returning them or raising `<flags> is not a valid modifier string`. */
export function checkFlags(flags: Json): string {
  if (flags === null) return "";
  if (typeof flags !== "string") return fail(`${desc(flags)} is not a string`);
  for (const f of flags) if (!"gimnpslx".includes(f)) return fail(`${flags} is not a valid modifier string`);
  return flags;
}

function cpIndex(s: string, hasSur: boolean, idx: number): number {
  if (!hasSur) return idx;
  let n = 0;
  for (let i = 0; i < idx; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

function utf8Len(cp: number): number {
  return cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
}

/** Checks input and pattern once for every regex function; returns the compiled pattern. */
function prepare(s: Json, reV: Json, flagsV: Json): Compiled {
  if (typeof s !== "string") return fail(`${desc(s)} cannot be matched, as it is not a string`);
  if (typeof reV !== "string") return fail(`${desc(reV)} is not a string`);
  const flags = checkFlags(flagsV);
  if (s.length > REGEX_MAX_INPUT)
    return fail(`Regex failure: input longer than ${REGEX_MAX_INPUT} characters`);
  return compileRegex(reV, flags);
}

/** `capture` objects without computing match offsets (named groups only). */
export function captureAll(sV: Json, reV: Json, flagsV: Json): JObj[] {
  return capturesOf(prepare(sV, reV, flagsV), sV, reV, flagsV);
}

/** captureAll over the pattern `prepare` gave. */
function capturesOf(c: Compiled, sV: Json, reV: Json, flagsV: Json): JObj[] {
  const s = sV as string;
  if (c.skipEmpty) return (matchAll(sV, reV, flagsV, false) as JObj[]).map(captureFromMatch);
  const out: JObj[] = [];
  let from = 0;
  let guard = 0;
  while (from <= s.length) {
    if (++guard > 1_000_000) throw new JqError("Regex failure: too many matches");
    const m = c.rx.match(s, from);
    if (m === null) break;
    out.push(captureObject(c, m));
    if (!c.global) break;
    const start = m.index;
    from = start + m[0].length;
    if (m[0].length === 0) {
      if (start >= s.length) break;
      from = start + ((s.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
    }
  }
  return out;
}

function captureObject(c: Compiled, m: RegExpExecArray): JObj {
  const names = c.names;
  const empty = m[0].length === 0;
  const t = c.template === undefined ? (c.template = templateOf(names)) : c.template;
  if (t !== null && !empty && missesGroup(m)) {
    // the whole shape at once (a clone of the pattern's template: V8 copies a monomorphic spread's
    // shape in one step, where adding six keys one by one walked six transitions), then the groups
    // that took part, each through its position's site. Only when some group took no part: with
    // every group set, the clone and a store per group cost more than the stores that build the
    // object (1 to 4 groups, all set: 50 to 100 instructions more, seeded cachegrind)
    const o = cloneAt(t, c.site);
    for (let g = 1; g < m.length; g++) {
      const v = m[g];
      if (v === undefined) continue;
      const name = names[g - 1];
      if (name !== null && name !== undefined) captureStore(o, g, name, v);
    }
    return o;
  }
  const o: JObj = {};
  // named groups, each through its position's store site of this function's own (see captureStore)
  for (let g = 1; g < m.length; g++) {
    const name = names[g - 1];
    if (name === null || name === undefined) continue;
    const v = empty ? "" : m[g] === undefined ? null : m[g];
    if (name === "__proto__") storeAt(o, g, name, v);
    else captureStore(o, g, name, v);
  }
  return o;
}

/**
 * `o[k] = v` through one of eight store sites picked by the group's position `g`, kept for capture
 * objects alone: key-order.ts's storeAt sites are shared with the stores into existing keys of every
 * other object the engine builds or changes (`map_values`, object construction, path copies), which
 * made them polymorphic, and each capture paid that (about 1,200 instructions of a six-group
 * capture in a pipeline with `map_values`). Here each site sees the transitions of capture shapes only.
 */
function captureStore(o: JObj, g: number, k: string, v: Json): void {
  switch (g & 7) {
    case 0:
      o[k] = v;
      return;
    case 1:
      o[k] = v;
      return;
    case 2:
      o[k] = v;
      return;
    case 3:
      o[k] = v;
      return;
    case 4:
      o[k] = v;
      return;
    case 5:
      o[k] = v;
      return;
    case 6:
      o[k] = v;
      return;
    default:
      o[k] = v;
  }
}

/**
 * Emits `capture`'s objects until `emit` returns true; returns whether it did. Without `g` the
 * one match is emitted as found (no array of results); with `g` every match is found first, as
 * jq finds them all before its first output.
 */
export function captureEach(sV: Json, reV: Json, flagsV: Json, emit: (o: JObj) => boolean): boolean {
  const c = prepare(sV, reV, flagsV);
  if (c.global || c.skipEmpty) {
    for (const o of capturesOf(c, sV, reV, flagsV)) if (emit(o)) return true;
    return false;
  }
  const m = c.rx.match(sV as string, 0);
  return m === null ? false : emit(captureObject(c, m));
}

/** `capture`'s one object without `g` (its first match), or null when nothing matches; as {@link captureEach} with an emit that stops. */
export function captureFirst(sV: Json, reV: Json, flagsV: Json): JObj | null {
  const c = prepare(sV, reV, flagsV);
  if (c.global || c.skipEmpty) {
    for (const o of capturesOf(c, sV, reV, flagsV)) return o;
    return null;
  }
  const m = c.rx.match(sV as string, 0);
  return m === null ? null : captureObject(c, m);
}

/**
 * The first match of one of the pscheduler modules' own constant patterns (not
 * user-supplied; see trusted.ts for why RegExp is linear on them), as RegExp gives it.
 */
export function firstExec(sV: Json, pattern: string): RegExpExecArray | null {
  return execTrusted(sV, trustedRegExp(pattern));
}

/** {@link firstExec} with the pattern's RegExp already at hand (`trustedRegExp(pattern)`, kept by the caller). */
export function execTrusted(sV: Json, rx: RegExp): RegExpExecArray | null {
  if (typeof sV !== "string") return fail(`${desc(sV)} cannot be matched, as it is not a string`);
  if (sV.length > REGEX_MAX_INPUT)
    return fail(`Regex failure: input longer than ${REGEX_MAX_INPUT} characters`);
  return rx.exec(sV);
}

/** Group names of a flag-less pattern, in group order (null for unnamed groups). */
export function groupNames(pattern: string): ReadonlyArray<string | null> {
  return compileRegex(pattern, "").names;
}

function captureFromMatch(m: JObj): JObj {
  const o: JObj = {};
  for (const c of m.captures as JObj[]) if (c.name !== null) o[c.name as string] = c.string;
  return o;
}

/** All matches (or the first unless `g`) of `re` in `s` as jq match objects. */
export function matchAll(sV: Json, reV: Json, flagsV: Json, testOnly: boolean): Json[] | boolean {
  const s = sV as string;
  const c = prepare(sV, reV, flagsV);
  if (testOnly && !c.skipEmpty) return c.rx.test(s);
  const global = c.global;
  const skipEmpty = c.skipEmpty;
  const groups = c.rx.groups;
  const hasSur = /[\uD800-\uDFFF]/.test(s);
  const out: Json[] = [];
  let from = 0;
  let guard = 0;
  while (from <= s.length) {
    if (++guard > 1_000_000) throw new JqError("Regex failure: too many matches");
    const m = c.rx.exec(s, from);
    if (m === null) break;
    const start = m[0];
    const len = m[1] - start;
    from = m[1];
    if (len === 0) from = start + ((s.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
    if (len === 0 && skipEmpty) {
      if (!global) break;
      continue;
    }
    const off = cpIndex(s, hasSur, start);
    const caps: Json[] = [];
    for (let g = 1; g <= groups; g++) {
      const name = c.names[g - 1] ?? null;
      if (len === 0) caps.push({ offset: off, string: "", length: 0, name });
      else if (m[2 * g] < 0) caps.push({ offset: -1, string: null, length: 0, name });
      else {
        const co = cpIndex(s, hasSur, m[2 * g]);
        caps.push({
          offset: co,
          length: cpIndex(s, hasSur, m[2 * g + 1]) - co,
          string: s.slice(m[2 * g], m[2 * g + 1]),
          name,
        });
      }
    }
    const obj: JObj = {
      offset: off,
      length: hasSur ? cpIndex(s, true, start + len) - off : len,
      string: s.slice(start, start + len),
      captures: caps,
    };
    out.push(obj);
    if (!global || testOnly) break;
    if (len === 0 && start < s.length) {
      const cp = s.codePointAt(start) as number;
      for (let k = 1; k < utf8Len(cp); k++) {
        const dupCaps = caps.map((x) => ({ ...(x as JObj), offset: off + 1 }));
        out.push({ offset: off + 1, length: 0, string: "", captures: dupCaps });
      }
    }
    if (start >= s.length) break;
  }
  return testOnly ? out.length > 0 : out;
}
