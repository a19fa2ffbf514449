/** Translates Oniguruma (Perl-NT) patterns to JavaScript RegExp and runs jq-style matching. */
import type { Json } from "../engines/common/json.js";
import { JqError, desc, fail, type JObj } from "./values.js";
import { stripExtended } from "../engines/common/regex-extended.js";

/** Longest input string the regex functions accept (UTF-16 units). */
export const REGEX_MAX_INPUT = 100_000;
/** Longest input for patterns with nested unbounded quantifiers (catastrophic backtracking guard). */
export const REGEX_MAX_RISKY_INPUT = 32;

interface Compiled {
  re: RegExp;
  /** The same pattern without match indices (faster) for test, capture and group-less match. */
  plain: RegExp;
  names: Array<string | null>;
  risky: boolean;
  /** The validated jq flags it was compiled with, and what they ask for. */
  flags: string;
  /** Capture groups of the translated pattern (0: matches need no indices). */
  groups: number;
  global: boolean;
  skipEmpty: boolean;
}

const POSIX: Record<string, string> = {
  alpha: "a-zA-Z", digit: "0-9", alnum: "a-zA-Z0-9", upper: "A-Z", lower: "a-z", space: "\\s",
  blank: " \\t", punct: "!-\\/:-@\\[-`{-~", xdigit: "0-9A-Fa-f", word: "\\w", cntrl: "\\x00-\\x1f\\x7f",
  print: "\\x20-\\x7e", graph: "\\x21-\\x7e", ascii: "\\x00-\\x7f",
};
const JS_ESCAPES = new Set("dDwWsSbBnrtfv0xucpPk123456789".split(""));
const SYNTAX = new Set("^$\\.*+?()[]{}|/-".split(""));

const WORD = "\\p{L}\\p{N}\\p{M}_";

/** flags → pattern → compiled: two lookups on strings the program already holds, no key to build. */
const cache = new Map<string, Map<string, Compiled>>();
let cached = 0;

let lastPattern = "";
let lastFlags = "";
let lastCompiled: Compiled | null = null;

/** Compiles a pattern with jq flags (already validated), caching the result. */
export function compileRegex(pattern: string, flags: string): Compiled {
  if (lastCompiled !== null && pattern === lastPattern && flags === lastFlags) return lastCompiled;
  const r = compileRegexUncached(pattern, flags);
  lastPattern = pattern;
  lastFlags = flags;
  lastCompiled = r;
  return r;
}

function compileRegexUncached(pattern: string, flags: string): Compiled {
  let byPattern = cache.get(flags);
  const hit = byPattern?.get(pattern);
  if (hit) return hit;
  let p = pattern;
  let ci = flags.includes("i");
  let ext = flags.includes("x");
  let dotAll = /[mp]/.test(flags);
  let multiline = false;
  for (;;) {
    const m = /^\(\?([imsx]+)\)/.exec(p);
    if (!m) break;
    for (const f of m[1]) {
      if (f === "i") ci = true;
      else if (f === "x") ext = true;
      else if (f === "s") dotAll = true;
      else if (f === "m") multiline = true;
    }
    p = p.slice(m[0].length);
  }
  if (ext) p = stripExtended(p);
  const names: Array<string | null> = [];
  let out = "";
  let inClass = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === "\\") {
      const e = p[i + 1];
      i++;
      if (e === undefined) out += "\\\\";
      else if (e === "A") out += inClass ? "A" : multiline ? "(?<![\\s\\S])" : "^";
      else if (e === "z") out += inClass ? "z" : "(?![\\s\\S])";
      else if (e === "Z") out += inClass ? "Z" : multiline ? "(?=\\n?(?![\\s\\S]))" : "(?=\\n?$)";
      else if (e === "h" || e === "H") out += e;
      else if (e === "w") out += inClass ? WORD : `[${WORD}]`;
      else if (e === "W") out += inClass ? "\\W" : `[^${WORD}]`;
      else if (e === "d") out += inClass ? "\\p{Nd}" : "\\p{Nd}";
      else if (e === "D") out += inClass ? "\\D" : "\\P{Nd}";
      else if (e === "b" && !inClass) out += `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`;
      else if (e === "B" && !inClass) out += `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`;
      else if (JS_ESCAPES.has(e) || SYNTAX.has(e)) out += "\\" + e;
      else if (/[A-Za-z]/.test(e)) out += e;
      else out += /[\w\s]/.test(e) ? e : "\\" + e;
      continue;
    }
    if (inClass) {
      if (c === "[" && p[i + 1] === ":") {
        const m = /^\[:(\^?)([a-z]+):\]/.exec(p.slice(i));
        if (m && POSIX[m[2]] !== undefined && m[1] === "") {
          out += POSIX[m[2]];
          i += m[0].length - 1;
          continue;
        }
      }
      if (c === "]") inClass = false;
      out += c === "[" ? "\\[" : c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (p[i + 1] === "^") {
        out += "^";
        i++;
      }
      if (p[i + 1] === "]") {
        out += "\\]";
        i++;
      }
      continue;
    }
    if (c === "(") {
      if (p[i + 1] !== "?") names.push(null);
      else {
        const m = /^\(\?<([A-Za-z_][A-Za-z0-9_]*)>/.exec(p.slice(i));
        if (m) names.push(m[1]);
      }
      out += c;
      continue;
    }
    if (c === "$" && !multiline) {
      out += "(?=\\n?$)";
      continue;
    }
    out += c;
  }
  let re: RegExp;
  try {
    re = new RegExp(out, "dgu" + (ci ? "i" : "") + (dotAll ? "s" : "") + (multiline ? "m" : ""));
  } catch (e) {
    return fail(`Regex failure: ${(e as Error).message}`);
  }
  const risky = /\((?:[^()\\]|\\.)*(?:[+*]|\{\d+,\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,\})/.test(out);
  const r: Compiled = {
    re,
    names,
    risky,
    plain: new RegExp(re.source, re.flags.replace("d", "")),
    flags,
    groups: (new RegExp(out + "|", "u").exec("") as RegExpExecArray).length - 1,
    global: flags.includes("g"),
    skipEmpty: flags.includes("n"),
  };
  if (cached >= 1000) {
    cache.clear();
    cached = 0;
    byPattern = undefined;
  }
  if (byPattern === undefined) cache.set(flags, (byPattern = new Map()));
  byPattern.set(pattern, r);
  cached++;
  return r;
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
  if (s.length > REGEX_MAX_INPUT) return fail(`Regex failure: input longer than ${REGEX_MAX_INPUT} characters`);
  const c = compileRegex(reV, flags);
  if (c.risky && s.length > REGEX_MAX_RISKY_INPUT)
    return fail(`Regex failure: pattern with nested unbounded quantifiers on input longer than ${REGEX_MAX_RISKY_INPUT} characters`);
  return c;
}

/** `capture` objects without computing match offsets (named groups only). */
export function captureAll(sV: Json, reV: Json, flagsV: Json): JObj[] {
  const c = prepare(sV, reV, flagsV);
  const s = sV as string;
  if (c.skipEmpty) return (matchAll(sV, reV, flagsV, false) as JObj[]).map(captureFromMatch);
  const re = c.plain;
  re.lastIndex = 0;
  const out: JObj[] = [];
  const global = c.global;
  let guard = 0;
  while (re.lastIndex <= s.length) {
    if (++guard > 1_000_000) throw new JqError("Regex failure: too many matches");
    const m = re.exec(s);
    if (m === null) break;
    const o: JObj = {};
    const empty = m[0].length === 0;
    for (let g = 1; g < m.length; g++) {
      const name = c.names[g - 1];
      if (name !== null && name !== undefined) o[name] = empty ? "" : m[g] === undefined ? null : m[g];
    }
    out.push(o);
    if (!global) break;
    if (empty) {
      if (m.index >= s.length) break;
      re.lastIndex = m.index + ((s.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
    }
  }
  return out;
}

/**
 * The first match of a flag-less pattern, with the same checks and errors as `capture`
 * (for native functions that read a few groups and need no capture object).
 */
export function firstExec(sV: Json, pattern: string): RegExpExecArray | null {
  const re = prepare(sV, pattern, null).plain;
  re.lastIndex = 0;
  return re.exec(sV as string);
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
  if (testOnly && !c.skipEmpty) {
    c.plain.lastIndex = 0;
    return c.plain.test(s);
  }
  // match indices are only needed for the offsets of groups
  const re = c.groups === 0 ? c.plain : c.re;
  re.lastIndex = 0;
  const global = c.global;
  const skipEmpty = c.skipEmpty;
  const hasSur = /[\uD800-\uDFFF]/.test(s);
  const out: Json[] = [];
  let guard = 0;
  while (re.lastIndex <= s.length) {
    if (++guard > 1_000_000) throw new JqError("Regex failure: too many matches");
    const m = re.exec(s);
    if (m === null) break;
    const start = m.index;
    const len = m[0].length;
    if (len === 0) re.lastIndex = start + ((s.codePointAt(start) ?? 0) > 0xffff ? 2 : 1);
    if (len === 0 && skipEmpty) {
      if (!global) break;
      continue;
    }
    const off = cpIndex(s, hasSur, start);
    const caps: Json[] = [];
    const ind = m.indices as unknown as Array<[number, number] | undefined>;
    for (let g = 1; g < m.length; g++) {
      const name = c.names[g - 1] ?? null;
      const span = ind[g];
      if (len === 0) caps.push({ offset: off, string: "", length: 0, name });
      else if (span === undefined || m[g] === undefined) caps.push({ offset: -1, string: null, length: 0, name });
      else {
        const co = cpIndex(s, hasSur, span[0]);
        caps.push({ offset: co, length: cpIndex(s, hasSur, span[1]) - co, string: m[g], name });
      }
    }
    const obj: JObj = { offset: off, length: hasSur ? cpIndex(s, true, start + len) - off : len, string: m[0], captures: caps };
    out.push(obj);
    if (!global || testOnly) break;
    if (len === 0 && start < s.length) {
      const cp = s.codePointAt(start) as number;
      for (let k = 1; k < utf8Len(cp); k++) {
        const dupCaps = caps.map((x) => ({ ...(x as JObj), offset: off + 1 }));
        out.push({ offset: off + 1, length: 0, string: "", captures: dupCaps });
      }
      if (cp > 0xffff) re.lastIndex = start + 2;
    }
    if (start >= s.length) break;
  }
  return testOnly ? out.length > 0 : out;
}
