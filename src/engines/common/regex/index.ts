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
import { chargeRegex, recordingWork, setWorkHook, type Spend } from "./work.js";
import { currentCompileMemo, type CompileMemo } from "./memo.js";
import { compileProgram, MAX_PROGRAM, programSize, type Prog } from "./program.js";
import { currentBudget, UNLIMITED } from "../budget.js";
import { dfaApplicable, dfaByteCap, LazyDfa } from "./dfa.js";
import { inspectSimple } from "./inspect-simple.js";
import { exactTexts } from "./exact-set.js";
import { classRunOf, passes, prefilterOf, type ClassRun, type Prefilter } from "./prefilter.js";
import { buildCharSet } from "./charset.js";
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
  // built on first need: a compile whose user only tests (or tests short texts only) never allocates the others
  private vmMade: PikeVm | null = null;
  private testVmMade: PikeVm | null = null;
  private dfaMade: LazyDfa | null | undefined = undefined;

  constructor(
    private readonly prog: Prog,
    /** A literal every match starts with (see PikeVm). */
    private readonly lead: string,
    readonly groups: number,
    readonly names: ReadonlyArray<string | null>,
  ) {}

  private get dfa(): LazyDfa | null {
    if (this.dfaMade === undefined) this.dfaMade = dfaApplicable(this.prog) ? new LazyDfa(this.prog) : null;
    return this.dfaMade;
  }

  private get vm(): PikeVm {
    return (this.vmMade ??= new PikeVm(this.prog, this.lead));
  }

  private get testVm(): PikeVm {
    return (this.testVmMade ??= new PikeVm({ ...this.prog, slots: 0 }, this.lead));
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
    const vm = this.testVm;
    const r = vm.exec(s, 0, false) === true;
    report(vm);
    return r;
  }

  exec(s: string, from: number): Int32Array | null {
    const vm = this.vm;
    const r = vm.exec(s, from, false) as Int32Array | null;
    report(vm);
    return r;
  }

  match(s: string, from: number): RegExpExecArray | null {
    const m = this.exec(s, from);
    return m === null ? null : asMatch(s, m, this.groups);
  }

  /** The same program with machines of its own (none built yet). */
  copy(): VmRegex {
    return new VmRegex(this.prog, this.lead, this.groups, this.names);
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

/** The Pike VM for a tree (the hybrid's is built at its first long input, inside whichever decision brings it: charged there); null when too large. */
function makeVm(parsed: Parsed, charged: boolean): VmRegex | null {
  const groups = parsed.names.length;
  const prog = compileProgram(parsed.node, groups, parsed.word, charged);
  if (prog === null) return null;
  // each VM's thread lists hold a capture row per instruction: zeroing them is work in proportion to both
  if (charged) chargeRegex(Math.ceil((prog.op.length * prog.slots) / CELLS_PER_UNIT));
  return new VmRegex(prog, literalPrefix(parsed.node), groups, parsed.names);
}

/**
 * The engine chosen for a tree, before any matcher is built: RegExp when
 * provably linear (`linear`), the hybrid for deterministic patterns (`js`
 * without `linear`), else the Pike VM (`vm`, null when too large). The RegExp
 * keeps no state between calls, so every compile made from the plan shares it.
 */
interface EnginePlan {
  readonly js: FastRegex | null;
  readonly linear: boolean;
  readonly vm: VmRegex | null;
}

/** Picks the engine for a tree (see {@link EnginePlan}); its program is charged as it is built. */
function planEngine(parsed: Parsed): EnginePlan {
  const groups = parsed.names.length;
  // RegExp compiles many capture groups slowly, and past some thousands overflows its own stack when first run
  const fast = groups > MAX_FAST_GROUPS ? null : fastPathSource(parsed);
  if (fast === null) return { js: null, linear: false, vm: makeVm(parsed, true) };
  try {
    return {
      js: new FastRegex(fast.source, fast.fold, groups, parsed.names, fast.paths),
      linear: fast.linear,
      vm: null,
    };
  } catch {
    // RegExp's own compiler can give up on a translation it accepts in principle (thousands of groups: "Stack overflow")
    return { js: null, linear: false, vm: makeVm(parsed, true) };
  }
}

/** A compile's own engine from a plan (a Pike VM of its own over the plan's program); null when too large. */
function engineOf(plan: EnginePlan, parsed: Parsed, charged: boolean): LinearRegex | null {
  if (plan.js !== null) {
    if (plan.linear) return plan.js;
    // a pattern that compiled for RegExp is far below the VM's size limit
    return new HybridRegex(
      plan.js,
      () => makeVm(parsed, charged) as VmRegex,
      parsed.names.length,
      parsed.names,
    );
  }
  return plan.vm === null ? null : plan.vm.copy();
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
function engineBytes(engine: EnginePlan, node: Node, groups: number): number {
  if (engine.js !== null && engine.linear) return 0;
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
  const vm = vmProgram(pattern, origin, flags);
  return vm === null ? null : new VmRegex(vm.prog, "", vm.parsed.names.length, vm.parsed.names);
}

/** A pattern's tree and Pike VM program (uncharged), or null when it does not parse or its program is too large. */
function vmProgram(
  pattern: string,
  origin: Origin,
  flags: RegexFlags,
): { parsed: Parsed; prog: Prog } | null {
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return null;
  const prog = compileProgram(parsed.node, parsed.names.length, parsed.word);
  return prog === null ? null : { parsed, prog };
}

/**
 * A yes/no matcher on the Pike VM alone, without capture slots, linearity
 * proof, RegExp or DFA: the cheapest start for a few short texts tested once
 * (a diff's witness candidates); null when the pattern does not compile or
 * its program is too large. Its matches are charged like any Pike VM run.
 */
export function compileVmTester(
  pattern: string,
  origin: Origin,
  flags: RegexFlags = {},
): ((s: string) => boolean) | null {
  const made = vmProgram(pattern, origin, flags);
  if (made === null) return null;
  const vm = new PikeVm({ ...made.prog, slots: 0 }, "");
  return (s) => {
    const r = vm.exec(s, 0, false) === true;
    report(vm);
    return r;
  };
}

/**
 * Everything a compile decides from the pattern alone (the tree, the engines
 * chosen and their programs, the literal checks), and the work it was
 * charged in order: each compile builds its own matchers from it.
 */
interface Plan {
  readonly parsed: Parsed | RegexProblem;
  readonly engine: EnginePlan | null;
  /** The tree a yes/no search runs (trimForTest), its engine, and whether that is `engine` itself. */
  readonly testParsed: Parsed | null;
  readonly test: EnginePlan | null;
  readonly testSame: boolean;
  readonly pf: Prefilter | null;
  readonly testPf: Prefilter | null;
  readonly bytes: number;
  readonly charges: number[];
  /** Estimated bytes the plan keeps in a compile memo (memo.ts): the tree, the programs, the RegExp objects. */
  readonly memoBytes: number;
}

let plansMade = 0;

/** How many compiles planned their pattern afresh (parsed it, proved it, built its programs) in this isolate so far. */
export function regexPlansMade(): number {
  return plansMade;
}

/** A plan with nothing to run: a pattern that failed to parse (no engine), or one no engine takes. */
function unrunPlan(
  parsed: Plan["parsed"],
  engine: Plan["engine"],
  charges: number[],
  memoBytes: number,
): Plan {
  return {
    parsed,
    engine,
    testParsed: null,
    test: null,
    testSame: true,
    pf: null,
    testPf: null,
    bytes: 0,
    charges,
    memoBytes,
  };
}

function planOf(pattern: string, origin: Origin, flags: RegexFlags, charged: boolean): Plan {
  plansMade++;
  const charges: number[] = [];
  const parsed = parsePattern(pattern, origin, flags);
  const memoBytes = 1_024 + 64 * pattern.length;
  if ("kind" in parsed) return unrunPlan(parsed, null, charges, memoBytes);
  return recordingWork(charges, charged, () => {
    const engine = planEngine(parsed);
    // a program's three arrays and its sets, about 16 bytes an instruction
    const size = (e: EnginePlan, n: Node): number => (e.vm === null ? 0 : 16 * programSize(n, MAX_PROGRAM));
    if (engine.js === null && engine.vm === null) return unrunPlan(parsed, engine, charges, memoBytes);
    const trimmed = trimForTest(parsed.node);
    const testParsed = trimmed === parsed.node ? parsed : { ...parsed, node: trimmed };
    const test = trimmed === parsed.node ? engine : planEngine(testParsed);
    const testSame = test === engine || (test.js === null && test.vm === null);
    const groups = parsed.names.length;
    return {
      parsed,
      engine,
      testParsed,
      test,
      testSame,
      // RegExp finds a required substring itself; the checks pay for the Pike VM, and for prefixes (see prefilter.ts)
      pf: prefilterOf(parsed.node),
      testPf: prefilterOf(testSame ? parsed.node : trimmed),
      bytes:
        PATTERN_BYTES +
        4 * pattern.length +
        engineBytes(engine, parsed.node, groups) +
        (testSame ? 0 : engineBytes(test, trimmed, groups)),
      charges,
      memoBytes: memoBytes + size(engine, parsed.node) + (testSame ? 0 : size(test, trimmed)),
    };
  });
}

/** A compile made from a plan: matchers of its own over the plan's programs. */
function fromPlan(pattern: string, plan: Plan, charged: boolean): ReturnType<typeof compileLinear> {
  const parsed = plan.parsed;
  if ("kind" in parsed) return { ok: false, error: parsed };
  const engine = engineOf(plan.engine as EnginePlan, parsed, charged);
  if (engine === null) return { ok: false, error: { kind: "too-large", offset: 0, text: pattern } };
  const testEngine = plan.testSame
    ? engine
    : (engineOf(plan.test as EnginePlan, plan.testParsed as Parsed, charged) as LinearRegex);
  const test = testerOf(testEngine, plan.testPf);
  const pf = plan.pf;
  const f = pf !== null && engine.fast && pf.prefix === "" && pf.exact === null ? null : pf;
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
      plan.bytes,
    ),
  };
}

/**
 * Compiles a pattern of an origin, or gives the problem (syntax error or
 * unsupported construct). A `charged` compile (a pattern that arrived with a
 * request) pays the programs it builds to the current budget as it builds
 * them (see compileProgram), throwing when that spends it. Within a compile
 * memo (memo.ts, a diff) a pattern compiled before reuses that compile's plan
 * and, when charged, is charged what that compile was, in the same order.
 */
export function compileLinear(
  pattern: string,
  origin: Origin,
  flags: RegexFlags = {},
  charged = false,
): { ok: true; value: LinearRegex } | { ok: false; error: RegexProblem } {
  const memo = currentCompileMemo() as CompileMemo<Plan> | null;
  if (memo === null) return fromPlan(pattern, planOf(pattern, origin, flags, charged), charged);
  const key = `${origin}:${flags.i ? "i" : ""}${flags.m ? "m" : ""}${flags.s ? "s" : ""}${flags.x ? "x" : ""}${flags.U ? "U" : ""}${flags.a ? "a" : ""}:${pattern}`;
  let plan = memo.get(key);
  if (plan === undefined) {
    // a first compile is charged as it goes (a spent budget stops it part-way, and nothing is kept)
    plan = planOf(pattern, origin, flags, charged);
    memo.set(key, plan, plan.memoBytes);
  } else if (charged) for (const units of plan.charges) chargeRegex(units);
  return fromPlan(pattern, plan, charged);
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

/**
 * The run of single characters every match of the pattern holds one after
 * another that rules out the most ASCII text (see `ClassRun`), or null when
 * there is none or the pattern does not compile: like the required literal,
 * a store may skip a value without it before the regex runs.
 */
export function requiredClassRun(pattern: string, origin: Origin, flags: RegexFlags = {}): ClassRun | null {
  const parsed = parsePattern(pattern, origin, flags);
  if ("kind" in parsed) return null;
  return classRunOf(parsed.node, (x) => buildCharSet(x.set)?.ascii ?? null);
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
    ORIGINS.indexOf(origin) * 64 +
    (flags.i ? 1 : 0) +
    (flags.m ? 2 : 0) +
    (flags.s ? 4 : 0) +
    (flags.x ? 8 : 0) +
    (flags.U ? 16 : 0) +
    (flags.a ? 32 : 0);
  const cache = (caches[slot] ??= new Lru<CachedRegex>(REGEX_CACHE_SIZE, cachedBytes, REQUEST_PATTERNS));
  let r = cache.get(pattern);
  if (r === undefined) {
    const b = currentBudget();
    if (b !== UNLIMITED && ++b.regexCompiles > MAX_COMPILES_PER_DECISION) {
      return {
        ok: false,
        error: { kind: "too-large", offset: 0, text: pattern },
        message: TOO_MANY_PATTERNS,
      };
    }
    chargeRegex(UNITS_PER_COMPILE + UNITS_PER_PATTERN_CHAR * pattern.length);
    const c = compileLinear(pattern, origin, flags, true);
    r = c.ok ? c : { ok: false, error: c.error, message: describeProblem(origin, c.error, pattern) };
    cache.set(pattern, r);
  }
  return r;
}
