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
import { PikeVm } from "./pike.js";
import { chargeRegex, setWorkHook, type Spend } from "./work.js";
import { compileProgram, MAX_PROGRAM, programSize, type Prog } from "./program.js";
import { currentBudget, UNLIMITED } from "../budget.js";
import { dfaApplicable, dfaByteCap, LazyDfa } from "./dfa.js";
import { inspectSimple } from "./inspect-simple.js";
import { exactTexts } from "./exact-set.js";
import { passes, prefilterOf, type Prefilter } from "./prefilter.js";
import { CachePool, Lru } from "./lru.js";
import type { Node, Parsed } from "./ast.js";

export type { Origin } from "./dialect.js";
export type { RegexFlags } from "./parse.js";
export type { RegexProblem } from "./ast.js";
export type { Spend } from "./work.js";
export { describeProblem } from "./messages.js";
export { CachePool, Lru } from "./lru.js";

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
  /** The same match in RegExp's shape (group strings, undefined when unset, and `index`), for callers that need no offsets. */
  match(s: string, from: number): RegExpExecArray | null;
  /**
   * Text every input `test` accepts starts with (an anchored pattern's leading
   * literal), or "" (or absent) when none is known: callers may reject inputs
   * without it before calling `test`, which rejects them the same way, unbilled.
   */
  readonly prefix?: string;
  /**
   * Text every input `test` accepts contains (the longest literal run the
   * pattern always matches), or "" (or absent): like `prefix`, a caller may
   * reject inputs without it before calling `test`.
   */
  readonly required?: string;
}

/** Slots as RegExp's match array. */
function asMatch(s: string, m: Int32Array, groups: number): RegExpExecArray {
  const out: Array<string | undefined> = [];
  for (let g = 0; g <= groups; g++) out.push(m[2 * g] < 0 ? undefined : s.slice(m[2 * g], m[2 * g + 1]));
  return Object.assign(out, { index: m[0], input: s, groups: undefined }) as RegExpExecArray;
}

/**
 * Replaces (null: removes) the callback told how much work each match did, in
 * steps roughly proportional to input length × live threads. By default the
 * work goes to the current decision's budget (`spend` of ../budget.ts).
 */
export function setRegexSpend(spend: Spend | null): void {
  setWorkHook(spend);
}

class FastRegex implements LinearRegex {
  readonly fast = true;
  /** The RegExp without `g` or `d`, for yes/no searches. */
  readonly plain: RegExp;
  private readonly global: RegExp;
  private readonly strings: RegExp;

  constructor(
    source: string,
    fold: boolean,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
    /** Paths a backtracking attempt may take (fast-path.ts): each match is charged that many times its length. */
    readonly paths = 1,
  ) {
    const flags = fold ? "iu" : "u";
    this.plain = new RegExp(source, flags);
    this.global = new RegExp(source, flags + (groups > 0 ? "dg" : "g"));
    this.strings = groups > 0 ? new RegExp(source, flags + "g") : this.global;
  }

  match(s: string, from: number): RegExpExecArray | null {
    chargeRegex((s.length - from + 1) * this.paths);
    const re = this.strings;
    re.lastIndex = from;
    return re.exec(s);
  }

  test(s: string): boolean {
    chargeRegex((s.length + 1) * this.paths);
    return this.plain.test(s);
  }

  exec(s: string, from: number): Int32Array | null {
    chargeRegex((s.length - from + 1) * this.paths);
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
  private readonly dfa: LazyDfa | null;

  constructor(
    private readonly vm: PikeVm,
    private readonly testVm: PikeVm,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
    prog: Prog,
  ) {
    this.dfa = dfaApplicable(prog) ? new LazyDfa(prog) : null;
  }

  test(s: string): boolean {
    const dfa = this.dfa;
    if (dfa !== null) {
      dfa.work = 0;
      const r = dfa.test(s);
      chargeRegex(dfa.work);
      dfa.work = 0;
      return r;
    }
    const r = this.testVm.exec(s, 0, false) === true;
    report(this.testVm);
    return r;
  }

  exec(s: string, from: number): Int32Array | null {
    const r = this.vm.exec(s, from, false) as Int32Array | null;
    report(this.vm);
    return r;
  }

  match(s: string, from: number): RegExpExecArray | null {
    const m = this.exec(s, from);
    return m === null ? null : asMatch(s, m, this.groups);
  }
}

function report(vm: PikeVm): void {
  const w = vm.work;
  vm.work = 0;
  chargeRegex(w);
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

  match(s: string, from: number): RegExpExecArray | null {
    return s.length - from <= SHORT_INPUT ? this.js.match(s, from) : this.slow().match(s, from);
  }
}

/** Capture groups beyond which a pattern runs on the Pike VM even when RegExp could run it linearly. */
export const MAX_FAST_GROUPS = 100;

/** Capture cells (instructions × capture slots) a charged compile allocates per work unit. */
export const CELLS_PER_UNIT = 32;

/** Picks the engine for a tree: RegExp when provably linear, the hybrid for deterministic patterns, else the Pike VM. */
function engineFor(parsed: Parsed, charged: boolean): LinearRegex | null {
  const groups = parsed.names.length;
  const makeVm = (): VmRegex | null => {
    // the hybrid builds its VM at the first long input, inside whichever decision brings it: charged there
    const prog = compileProgram(parsed.node, groups, parsed.word, charged);
    if (prog === null) return null;
    // each VM's thread lists hold a capture row per instruction: zeroing them is work in proportion to both
    if (charged) chargeRegex(Math.ceil((prog.op.length * prog.slots) / CELLS_PER_UNIT));
    const prefix = literalPrefix(parsed.node);
    return new VmRegex(
      new PikeVm(prog, prefix),
      new PikeVm({ ...prog, slots: 0 }, prefix),
      groups,
      parsed.names,
      prog,
    );
  };
  // RegExp compiles many capture groups slowly, and past some thousands overflows its own stack when first run
  const fast = groups > MAX_FAST_GROUPS ? null : fastPathSource(parsed);
  if (fast === null) return makeVm();
  let js: FastRegex;
  try {
    js = new FastRegex(fast.source, fast.fold, groups, parsed.names, fast.paths);
  } catch {
    // RegExp's own compiler can give up on a translation it accepts in principle (thousands of groups: "Stack overflow")
    return makeVm();
  }
  if (fast.linear) return js;
  // a pattern that compiled for RegExp is far below the VM's size limit
  return new HybridRegex(js, () => makeVm() as VmRegex, groups, parsed.names);
}

/** The compiled pattern handed out: one object shape whatever engines run it, so callers' call sites stay monomorphic. */
class Regex implements LinearRegex {
  constructor(
    readonly fast: boolean,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
    readonly test: (s: string) => boolean,
    readonly exec: (s: string, from: number) => Int32Array | null,
    readonly match: (s: string, from: number) => RegExpExecArray | null,
    readonly prefix: string,
    readonly required: string,
    /** Estimated bytes it keeps, its matchers built later included ({@link regexBytes}). */
    readonly bytes: number,
  ) {}
}

/** What any compiled pattern keeps besides its matchers: three RegExp objects or the literal checks, the source. */
const PATTERN_BYTES = 4_096;

/**
 * Estimated bytes a matcher keeps once built (the Pike VM and the DFA are
 * built on first need, so they are counted from the start): per instruction,
 * the program (9), two VMs' thread lists and stacks (56 plus 8 per capture
 * slot) and the DFA's marks (4); and the DFA's own bound.
 */
function engineBytes(engine: LinearRegex, node: Node, groups: number): number {
  if (engine instanceof FastRegex) return 0;
  const size = programSize(node, MAX_PROGRAM);
  if (size === Infinity) return 0;
  return size * (69 + 8 * 2 * (groups + 1)) + dfaByteCap(size);
}

/**
 * The estimated bytes a compiled pattern keeps (0 for one this module did not
 * compile): what the request-pattern caches weigh their entries by. A pattern
 * near the 50,000-instruction limit keeps about 5 MB (measured in Node: typed
 * arrays, outside the JavaScript heap's own figures).
 */
export function regexBytes(rx: LinearRegex): number {
  return rx instanceof Regex ? rx.bytes : 0;
}

/** The yes/no search: pure string methods for literal patterns, literal checks in front of the engine otherwise. */
function testerOf(engine: LinearRegex, f: Prefilter | null): (s: string) => boolean {
  if (engine instanceof FastRegex && (f === null || (f.exact === null && f.whole === null))) {
    // RegExp finds a required substring itself: only a prefix is checked first (see prefilter.ts)
    const re = engine.plain;
    const prefix = f === null ? "" : f.prefix;
    const paths = engine.paths;
    if (prefix === "")
      return (s) => {
        chargeRegex((s.length + 1) * paths);
        return re.test(s);
      };
    return (s) => {
      if (!s.startsWith(prefix)) return false;
      chargeRegex((s.length + 1) * paths);
      return re.test(s);
    };
  }
  if (f === null) return (s) => engine.test(s);
  if (f.exact !== null) return (s) => passes(f, s, 0);
  if (f.whole === "includes") {
    const lit = f.required;
    return (s) => s.includes(lit);
  }
  if (f.whole === "startsWith") {
    const lit = f.prefix;
    return (s) => s.startsWith(lit);
  }
  return (s) => passes(f, s, 0) && engine.test(s);
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

/** The Pike VM alone for a pattern (no RegExp, no literal checks): for differential tests and benchmarks. */
export function compileVmOnly(pattern: string, origin: Origin, flags: RegexFlags = {}): LinearRegex | null {
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return null;
  const groups = parsed.names.length;
  const prog = compileProgram(parsed.node, groups, parsed.word);
  if (prog === null) return null;
  return new VmRegex(new PikeVm(prog, ""), new PikeVm({ ...prog, slots: 0 }, ""), groups, parsed.names, prog);
}

/**
 * Compiles a pattern of an origin, or gives the problem (syntax error or
 * unsupported construct). A `charged` compile (a pattern that arrived with a
 * request) pays the programs it builds to the current budget as it builds
 * them (see compileProgram), throwing when that spends it.
 */
export function compileLinear(
  pattern: string,
  origin: Origin,
  flags: RegexFlags = {},
  charged = false,
): { ok: true; value: LinearRegex } | { ok: false; error: RegexProblem } {
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return { ok: false, error: parsed };
  const engine = engineFor(parsed, charged);
  if (engine === null) return { ok: false, error: { kind: "too-large", offset: 0, text: pattern } };
  const trimmed = trimForTest(parsed.node);
  const testEngine = trimmed === parsed.node ? engine : (engineFor({ ...parsed, node: trimmed }, charged) ?? engine);
  const test = testerOf(testEngine, prefilterOf(trimmed === parsed.node || testEngine === engine ? parsed.node : trimmed));
  const pf = prefilterOf(parsed.node);
  // RegExp finds a required substring itself; the checks pay for the Pike VM, and for prefixes (see prefilter.ts)
  const f = pf !== null && engine.fast && pf.prefix === "" && pf.exact === null ? null : pf;
  const groups = parsed.names.length;
  const bytes =
    PATTERN_BYTES +
    4 * pattern.length +
    engineBytes(engine, parsed.node, groups) +
    (testEngine === engine ? 0 : engineBytes(testEngine, trimmed, groups));
  const exec =
    f === null
      ? (s: string, from: number) => engine.exec(s, from)
      : (s: string, from: number) => (passes(f, s, from) ? engine.exec(s, from) : null);
  const match =
    f === null
      ? (s: string, from: number) => engine.match(s, from)
      : (s: string, from: number) => (passes(f, s, from) ? engine.match(s, from) : null);
  return {
    ok: true,
    value: new Regex(
      engine.fast,
      engine.groups,
      engine.names,
      test,
      exec,
      match,
      pf?.prefix ?? "",
      pf?.required ?? "",
      bytes,
    ),
  };
}

/**
 * What a policy compile reads off a pattern it stores: the literals every
 * match starts with and contains, and, when the pattern matches only a few
 * whole texts (`^(u1|v1)$`), those texts (exact-set.ts), which a decision can
 * look up instead of compiling the pattern.
 */
export interface PatternFacts {
  prefix: string;
  required: string;
  /** Every text the pattern matches, when it is anchored at both ends and they are few (absent otherwise). */
  exact?: string[];
}

/**
 * Whether a pattern compiles, and its {@link PatternFacts}, without building
 * its matchers: what a policy compile needs to validate and store an
 * expression that a decision compiles on first use. Agrees with
 * `compileLinear` on every pattern (one past the program limit is given to it
 * to decide).
 */
export function inspectPattern(
  pattern: string,
  origin: Origin,
  flags: RegexFlags = {},
): { ok: true; value: PatternFacts } | { ok: false; error: RegexProblem } {
  // a plain pattern (literals, classes, `.`, `*+?`, anchors) needs no tree: read once (inspect-simple.ts)
  if (!flags.i && !flags.m && !flags.s && !flags.x && !flags.U && !flags.a) {
    const quick = inspectSimple(pattern);
    if (quick !== null) return { ok: true, value: quick };
  }
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return { ok: false, error: parsed };
  if (programSize(parsed.node, MAX_PROGRAM) === Infinity) {
    const r = compileLinear(pattern, origin, flags);
    return r.ok ? { ok: true, value: { prefix: r.value.prefix ?? "", required: r.value.required ?? "" } } : r;
  }
  const pf = prefilterOf(parsed.node);
  const facts: PatternFacts = { prefix: pf?.prefix ?? "", required: pf?.required ?? "" };
  const exact = exactTexts(parsed.node, pattern);
  if (exact !== null) facts.exact = exact;
  return { ok: true, value: facts };
}

/** What a cached compile gives: the regex, or the problem in the origin's words. */
export type CachedRegex =
  { ok: true; value: LinearRegex } | { ok: false; error: RegexProblem; message: string };

/** Patterns held per origin and option set; request-supplied patterns beyond that evict the least recently used. */
export const REGEX_CACHE_SIZE = 256;

/**
 * Estimated bytes every cache of request-supplied patterns keeps in all
 * (every origin and option set, jq's own cache included), and the most one
 * pattern may weigh to be kept among them: of heavier ones only the latest is
 * kept, beside the others (issue 24 item 10: 256 near-cap patterns kept about 1.3 GB
 * of typed arrays, past the 128 MB an isolate may use).
 */
export const REGEX_CACHE_BYTES = 32 * 1024 * 1024;
/** See {@link REGEX_CACHE_BYTES}. */
export const REGEX_ENTRY_MAX_BYTES = 4 * 1024 * 1024;

/** The byte budget the request-pattern caches share. */
export const REQUEST_PATTERNS = new CachePool(REGEX_CACHE_BYTES, REGEX_ENTRY_MAX_BYTES);

function cachedBytes(r: CachedRegex): number {
  return r.ok ? regexBytes(r.value) : PATTERN_BYTES + 4 * r.message.length;
}

/**
 * Distinct patterns one decision may compile (cache misses); past it a
 * pattern is refused with {@link TOO_MANY_PATTERNS}, so one decision can
 * neither spend its whole budget on compiling nor flush the shared caches.
 */
export const MAX_COMPILES_PER_DECISION = 32;

/** The refusal of a pattern past {@link MAX_COMPILES_PER_DECISION} (jq reports it as its error text). */
export const TOO_MANY_PATTERNS = `Regex failure: more than ${MAX_COMPILES_PER_DECISION} distinct patterns compiled in one decision`;

/**
 * Work units a compile pays before it starts, plus {@link UNITS_PER_PATTERN_CHAR}
 * per character of the pattern: a small pattern's compile takes about 100 µs of
 * CPU (the engines, caches and literal checks it sets up), and the parse and the
 * RegExp translation about 2.5 µs per character (measured with bench/hostile.ts).
 */
export const UNITS_PER_COMPILE = 1_000;
/** See {@link UNITS_PER_COMPILE}. */
export const UNITS_PER_PATTERN_CHAR = 20;

const ORIGINS: readonly Origin[] = ["re2", "python", "onig", "pcre"];
const caches: Array<Lru<CachedRegex>> = [];

/**
 * Compiles a request-supplied pattern through bounded LRU caches (one per
 * origin and option set). A miss is work of the current decision: counted
 * against {@link MAX_COMPILES_PER_DECISION} and charged to its budget (a fixed
 * part, the pattern's length, and the instructions built), throwing
 * `BudgetExceeded` when that spends it.
 */
export function cachedLinear(pattern: string, origin: Origin, flags: RegexFlags = {}): CachedRegex {
  const slot =
    ORIGINS.indexOf(origin) * 16 +
    (flags.i ? 1 : 0) +
    (flags.m ? 2 : 0) +
    (flags.s ? 4 : 0) +
    (flags.x ? 8 : 0);
  const cache = (caches[slot] ??= new Lru<CachedRegex>(REGEX_CACHE_SIZE, cachedBytes, REQUEST_PATTERNS));
  let r = cache.get(pattern);
  if (r === undefined) {
    const b = currentBudget();
    if (b !== UNLIMITED && ++b.regexCompiles > MAX_COMPILES_PER_DECISION) {
      return { ok: false, error: { kind: "too-large", offset: 0, text: pattern }, message: TOO_MANY_PATTERNS };
    }
    chargeRegex(UNITS_PER_COMPILE + UNITS_PER_PATTERN_CHAR * pattern.length);
    const c = compileLinear(pattern, origin, flags, true);
    r = c.ok ? c : { ok: false, error: c.error, message: describeProblem(origin, c.error, pattern) };
    cache.set(pattern, r);
  }
  return r;
}
