/**
 * The linear-time regex layer every engine uses: an origin's pattern is parsed
 * with that origin's syntax, then run either on JavaScript's RegExp (only when
 * the tree proves a backtracking run is linear, see fast-path.ts) or on the
 * Pike VM. Constructs that need backtracking are refused with their offset.
 */
import type { RegexProblem } from "./ast.js";
import type { Origin } from "./dialect.js";
import { fastPathSource, trimForTest } from "./fast-path.js";
import { describeProblem } from "./messages.js";
import { parsePattern, type RegexFlags } from "./parse.js";
import { PikeVm, type Spend } from "./pike.js";
import { compileProgram } from "./program.js";
import type { Node, Parsed } from "./ast.js";

export type { Origin } from "./dialect.js";
export type { RegexFlags } from "./parse.js";
export type { RegexProblem } from "./ast.js";
export type { Spend } from "./pike.js";
export { describeProblem } from "./messages.js";

/** A compiled pattern. Offsets are UTF-16 code units. */
export interface LinearRegex {
  /** Capture groups, not counting the whole match. */
  readonly groups: number;
  /** Group i's name at names[i - 1], or null. */
  readonly names: ReadonlyArray<string | null>;
  /** Whether the pattern runs on JavaScript's RegExp (provably linear) rather than the Pike VM. */
  readonly fast: boolean;
  /** Whether a match exists anywhere in `s`. */
  test(s: string): boolean;
  /** The leftmost-first match at or after `from`: [start, end] per group, group 0 first, -1 when unset; or null. */
  exec(s: string, from: number): Int32Array | null;
}

let spendHook: Spend | null = null;

/**
 * Installs (or removes, with null) the callback told how much work each match
 * did, in steps roughly proportional to input length × pattern size, so a
 * per-decision budget can count regex work with everything else.
 */
export function setRegexSpend(spend: Spend | null): void {
  spendHook = spend;
}

class FastRegex implements LinearRegex {
  readonly fast = true;
  private readonly plain: RegExp;
  private readonly global: RegExp;

  constructor(
    source: string,
    fold: boolean,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
  ) {
    const flags = fold ? "iu" : "u";
    this.plain = new RegExp(source, flags);
    this.global = new RegExp(source, flags + (groups > 0 ? "dg" : "g"));
  }

  test(s: string): boolean {
    if (spendHook !== null) spendHook(s.length + 1);
    return this.plain.test(s);
  }

  exec(s: string, from: number): Int32Array | null {
    if (spendHook !== null) spendHook(s.length - from + 1);
    const re = this.global;
    re.lastIndex = from;
    const m = re.exec(s);
    if (m === null) return null;
    const out = new Int32Array(2 * (this.groups + 1)).fill(-1);
    out[0] = m.index;
    out[1] = m.index + m[0].length;
    const ind = m.indices;
    if (ind !== undefined) {
      for (let g = 1; g <= this.groups; g++) {
        const span = ind[g];
        if (span !== undefined) {
          out[2 * g] = span[0];
          out[2 * g + 1] = span[1];
        }
      }
    }
    return out;
  }
}

class VmRegex implements LinearRegex {
  readonly fast = false;

  constructor(
    private readonly vm: PikeVm,
    private readonly testVm: PikeVm,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
  ) {}

  test(s: string): boolean {
    const r = this.testVm.exec(s, 0, false) === true;
    report(this.testVm);
    return r;
  }

  exec(s: string, from: number): Int32Array | null {
    const r = this.vm.exec(s, from, false) as Int32Array | null;
    report(this.vm);
    return r;
  }
}

function report(vm: PikeVm): void {
  if (spendHook !== null) spendHook(vm.work);
  vm.work = 0;
}

/**
 * Inputs up to this many code units may run a deterministic but unanchored,
 * unbounded pattern on RegExp: each attempt is linear, so a search costs at
 * most SHORT_INPUT × length × pattern steps, linear with a fixed factor.
 */
export const SHORT_INPUT = 256;

/** A deterministic pattern: RegExp on short inputs, the Pike VM (built on first need) on longer ones. */
class HybridRegex implements LinearRegex {
  readonly fast = true;
  private vm: VmRegex | null = null;

  constructor(
    private readonly js: FastRegex,
    private readonly makeVm: () => VmRegex,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
  ) {}

  private slow(): VmRegex {
    return (this.vm ??= this.makeVm());
  }

  test(s: string): boolean {
    return s.length <= SHORT_INPUT ? this.js.test(s) : this.slow().test(s);
  }

  exec(s: string, from: number): Int32Array | null {
    return s.length - from <= SHORT_INPUT ? this.js.exec(s, from) : this.slow().exec(s, from);
  }
}

/** Picks the engine for a tree: RegExp when provably linear, the hybrid for deterministic patterns, else the Pike VM. */
function engineFor(parsed: Parsed): LinearRegex | null {
  const groups = parsed.names.length;
  const makeVm = (): VmRegex | null => {
    const prog = compileProgram(parsed.node, groups, parsed.word);
    if (prog === null) return null;
    const prefix = literalPrefix(parsed.node);
    return new VmRegex(new PikeVm(prog, prefix), new PikeVm({ ...prog, slots: 0 }, prefix), groups, parsed.names);
  };
  const fast = fastPathSource(parsed);
  if (fast === null) return makeVm();
  const js = new FastRegex(fast.source, fast.fold, groups, parsed.names);
  if (fast.linear) return js;
  // a pattern that compiled for RegExp is far below the VM's size limit
  return new HybridRegex(js, () => makeVm() as VmRegex, groups, parsed.names);
}

/** The exec engine with a separate engine for yes/no searches when trimming the pattern helps. */
class SplitRegex implements LinearRegex {
  constructor(
    private readonly main: LinearRegex,
    private readonly tester: LinearRegex,
  ) {}

  get fast(): boolean {
    return this.main.fast;
  }
  get groups(): number {
    return this.main.groups;
  }
  get names(): ReadonlyArray<string | null> {
    return this.main.names;
  }
  test(s: string): boolean {
    return this.tester.test(s);
  }
  exec(s: string, from: number): Int32Array | null {
    return this.main.exec(s, from);
  }
}

/** The literal text every match starts with (case-sensitive characters only). */
function literalPrefix(n: Node): string {
  let out = "";
  const walk = (x: Node): boolean => {
    switch (x.t) {
      case "char":
        out += String.fromCodePoint(x.cp);
        return true;
      case "cat":
        for (const y of x.xs) if (!walk(y)) return false;
        return true;
      case "group":
        return walk(x.x);
      default:
        return false;
    }
  };
  walk(n);
  return out;
}

/** Compiles a pattern of an origin, or gives the problem (syntax error or unsupported construct). */
export function compileLinear(pattern: string, origin: Origin, flags: RegexFlags = {}): { ok: true; value: LinearRegex } | { ok: false; error: RegexProblem } {
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return { ok: false, error: parsed };
  const main = engineFor(parsed);
  if (main === null) return { ok: false, error: { kind: "too-large", offset: 0, text: pattern } };
  const trimmed = trimForTest(parsed.node);
  if (trimmed === parsed.node) return { ok: true, value: main };
  const tester = engineFor({ ...parsed, node: trimmed });
  return { ok: true, value: tester === null ? main : new SplitRegex(main, tester) };
}

/** A bounded least-recently-used map, for patterns that arrive with requests. */
export class Lru<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly capacity: number) {}

  /** The value for `key`, marking it recently used. */
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  /** Stores a value, dropping the least recently used entry when full. */
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as string);
  }
}

/** What a cached compile gives: the regex, or the problem in the origin's words. */
export type CachedRegex = { ok: true; value: LinearRegex } | { ok: false; error: RegexProblem; message: string };

const cache = new Lru<CachedRegex>(512);

/** Compiles a request-supplied pattern through a bounded LRU shared by all origins. */
export function cachedLinear(pattern: string, origin: Origin, flags: RegexFlags = {}): CachedRegex {
  const key = `${origin}${flags.i ? "i" : ""}${flags.m ? "m" : ""}${flags.s ? "s" : ""}${flags.x ? "x" : ""}\u0000${pattern}`;
  let r = cache.get(key);
  if (r === undefined) {
    const c = compileLinear(pattern, origin, flags);
    r = c.ok ? c : { ok: false, error: c.error, message: describeProblem(origin, c.error, pattern) };
    cache.set(key, r);
  }
  return r;
}
