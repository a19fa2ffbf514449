/** The embedding API: compile a jq program once, run it many times under a step budget. */
import type { Json } from "../engines/common/json.js";
import { err, ok, policyError, type PolicyError, type Result } from "../engines/common/result.js";
import {
  BudgetExceeded,
  BUDGET_EXCEEDED_MESSAGE,
  currentBudget,
  UNLIMITED,
} from "../engines/common/budget.js";
import type { Directive, FuncDef, ProgramAst } from "./ast.js";
import "./builtins-core.js";
import "./builtins-control.js";
import "./builtins-strings.js";
import "./builtins-math.js";
import "./builtins-regex.js";
import "./builtins-dates.js";
import { moduleMetaNative } from "./module-meta.js";
import { Compiler, NATIVES, type Native } from "./compile.js";
import { defNative } from "./builtins-define.js";
import { JqSyntaxError, lineCol } from "./lexer.js";
import { BUILTIN_MODULES } from "./modules.js";
import { ModuleLoadError, recordModules, type FoundModule, type ModuleProvider } from "./module-provider.js";
import { NATIVE_MODULE_FUNCTIONS } from "./modules-native.js";
import { parseModule, parseProgram } from "./parser.js";
import { PRELUDE } from "./prelude.js";
import { litStats, plainJson } from "./litnum.js";
import { chargeTree, printCompact } from "./print.js";
import { setWorkGuard } from "./work-guard.js";
import { forgetClone } from "./key-order.js";
import { ALLOC, charge, Env, S, type Gen } from "./runtime.js";
import { JqCompileError, Scope } from "./scope.js";
import { lazily } from "../engines/common/lazy.js";
import { BUDGET_MESSAGE, BudgetError, HaltSignal, isObject, JqError } from "./values.js";

export interface CompileOptions {
  /** Variables `$name` visible in the whole program; their values can be replaced per run via `vars`. */
  args?: Record<string, Json>;
  /** Extra jq-source modules for `import "name" as x;` / `include "name";` (and `name.json` for `import "name" as $x;`). */
  modules?: Record<string, string>;
  /** `$ARGS.positional` (the command line's `--args` / `--jsonargs` values); default `[]`. */
  positional?: Json[];
  /** Finds the modules the program imports (the command line's `-L` search path); replaces `modules`. */
  moduleProvider?: ModuleProvider;
  /**
   * Native versions of definitions the caller prepends to the program (a library), by `name/arity`:
   * calls of the first leading definition of that name (`def f: …; … body`) go to the native; a
   * later or nested definition of the same name is the program's own. The definition is compiled
   * and checked all the same.
   */
  natives?: Readonly<Record<string, Native>>;
}

export interface RunOptions {
  /**
   * Step budget for this run. Default: what is left of the current decision's
   * shared work budget (src/engines/common/budget.ts), or 1,000,000 outside a decision.
   */
  maxSteps?: number;
  /** Values for `$ENV` / `env` (default `{}`). */
  env?: Record<string, string>;
  /** Per-run values for variables declared in `args` at compile time. */
  vars?: Record<string, Json>;
  /** Seconds since the epoch returned by `now` (default: the host clock). */
  now?: number;
  /** Receives `debug` / `stderr` messages. */
  debug?: (msg: Json) => void;
  /** Supplies `input` / `inputs` (the command line's remaining input values); without it `input` raises "break". */
  input?: () => Json | undefined;
  /** Keep number literals in outputs (for printers such as the CLI); outputs are then not plain JSON. */
  keepLiterals?: boolean;
}

export type RunResult =
  | {
      outputs: Json[];
      error?: undefined;
      halt?: undefined;
      errorValue?: undefined;
      /** Set when `halt` ended the run. */ halted?: true;
    }
  | {
      outputs: Json[];
      error: string;
      halt?: { value: Json; code: number };
      errorValue?: Json;
      halted?: undefined;
    };

/** A compiled program: immutable, reusable across runs. */
export interface JqProgram {
  run(input: Json, options?: RunOptions): RunResult;
  /** The first output (evaluation stops there), or undefined when there is none or the run fails. */
  first(input: Json, options?: RunOptions): Json | undefined;
}

/**
 * The scope of jq's builtin library (the prelude, parsed and compiled), made on the first compile
 * and kept: an isolate that never compiles jq (one that only places or matches) never builds it
 * (docs/performance.md, wt/heap2).
 */
export const jqBuiltinScope = lazily((): Scope => {
  const preludeCompiler = new Compiler(false);
  let rootScope = new Scope("root", "", null, 0);
  for (const d of parseModule(PRELUDE).defs) rootScope = preludeCompiler.define(d, rootScope);
  const ROOT = rootScope;
  // jq binds its builtin library as one block, so a builtin may use one defined after it
  const rootTable = new Map<string, import("./scope.js").FuncInfo>();
  for (let s: Scope | null = ROOT; s !== null; s = s.parent) {
    if (s.fi !== null) {
      s.fi.scope = ROOT;
      if (!rootTable.has(s.name)) rootTable.set(s.name, s.fi);
    }
  }
  ROOT.table = rootTable;
  return ROOT;
});

/** Turns an uncaught error value into the message text jq prints. */
export function errorMessage(v: Json): string {
  return typeof v === "string" ? v : `${printCompact(v)} (not a string)`;
}

function pos(e: unknown): number {
  return e instanceof JqSyntaxError || e instanceof JqCompileError ? e.pos : 0;
}

const moduleCache = new Map<string, Scope[]>();

/** One compile's module resolution: where modules come from, and those already compiled (by id). */
interface Linker {
  provider: ModuleProvider | null;
  compiled: Map<string, Scope[]>;
}

/** Where an error in a module's own text is: `<module id>:<line>:<column>`. */
function inModule(id: string, source: string, e: unknown): unknown {
  if (!(e instanceof JqSyntaxError || e instanceof JqCompileError) || e.pos < 0) return e;
  const err = new JqCompileError(e.message, -1);
  err.at = `${id}:${lineCol(source, e.pos)}`;
  return err;
}

/**
 * Adds one import's definitions to `sc`: a code module's functions prefixed with `alias::` (unprefixed
 * for include), or a data module's values bound to `$alias` and `$alias::alias` (as jq binds them).
 */
function addModule(d: Directive, from: string | null, sc: Scope, link: Linker, seen: Set<string>): Scope {
  let found: FoundModule | undefined;
  try {
    found = link.provider?.find({ path: d.path, data: d.isData, from, meta: d.meta });
  } catch (e) {
    if (e instanceof ModuleLoadError) throw new JqCompileError(e.message, -1);
    throw e;
  }
  const alias = d.kind === "include" ? null : d.alias;
  if (found !== undefined && "data" in found) {
    const name = alias as string;
    return sc.pushConst(`${name}::${name}`, found.data).pushConst(name, found.data);
  }
  const builtin =
    found === undefined && !d.isData && Object.prototype.hasOwnProperty.call(BUILTIN_MODULES, d.path);
  if (found === undefined && !builtin) {
    if (d.meta !== null && isObject(d.meta) && d.meta.optional === true) return sc;
    throw new JqCompileError(`module not found: ${d.path}`, -1);
  }
  const id = found === undefined ? d.path : found.id;
  const source = found === undefined ? BUILTIN_MODULES[d.path] : found.source;
  if (seen.has(id)) throw new JqCompileError(`module import cycle: ${id}`, -1);
  let exported = builtin ? moduleCache.get(id) : link.compiled.get(id);
  if (exported === undefined) {
    exported = [];
    try {
      const ast = parseModule(source);
      let inner = jqBuiltinScope();
      const next = new Set(seen).add(id);
      for (const dep of ast.directives) inner = addModule(dep, builtin ? null : id, inner, link, next);
      const c = new Compiler(true);
      const natives = builtin ? NATIVE_MODULE_FUNCTIONS[id] : undefined;
      for (const def of ast.defs) {
        inner = c.define(def, inner);
        const fi = inner.fi;
        const nat = natives?.[def.name + "/" + def.params.length];
        if (fi !== null && nat !== undefined) fi.native = nat;
        exported.push(inner);
      }
    } catch (e) {
      throw inModule(id, source, e);
    }
    if (builtin) moduleCache.set(id, exported);
    else link.compiled.set(id, exported);
  }
  let out = sc;
  for (const s of exported) {
    const fi = s.fi;
    if (fi === null) continue;
    const key = (alias === null ? "" : alias + "::") + fi.def.name + "/" + fi.arity;
    out = new Scope("func", key, out, out.depth, fi);
  }
  return out;
}

/** Compiles a jq program; parse and compile errors come back as PolicyErrors with `at` = "line:column". */
export function compileJq(program: string, options: CompileOptions = {}): Result<JqProgram, PolicyError[]> {
  // the builtin library first (on the first compile): its literals are not this program's
  const builtins = jqBuiltinScope();
  let ast: ProgramAst;
  const litsBefore = litStats.created;
  let hasLit = false;
  try {
    ast = parseProgram(program);
  } catch (e) {
    if (e instanceof JqSyntaxError)
      return err([policyError("jq_syntax_error", e.message, lineCol(program, e.pos))]);
    if (e instanceof RangeError)
      return err([policyError("jq_syntax_error", "program is nested too deeply", "1:1")]);
    throw e;
  }
  if (ast.body === null)
    return err([
      policyError(
        "jq_compile_error",
        'Top-level program not given (try ".")',
        lineCol(program, program.length),
      ),
    ]);
  const argNames = Object.keys(options.args ?? {});
  const argDefaults = argNames.map((n) => (options.args as Record<string, Json>)[n]);
  let gen: Gen;
  try {
    let sc = builtins;
    const provider =
      options.moduleProvider ??
      (options.modules !== undefined && Object.keys(options.modules).length > 0
        ? recordModules(options.modules)
        : null);
    const link: Linker = { provider, compiled: new Map() };
    // the program's arguments are bound outside its imports: a data import `$x` hides `--arg x`
    for (const n of argNames) sc = sc.push("var", n);
    sc = sc.push("var", "ARGS");
    for (const d of ast.directives) sc = addModule(d, null, sc, link, new Set());
    if (provider !== null) {
      // `modulemeta` also knows this program's own modules
      const native = moduleMetaNative(provider);
      const def = { name: "modulemeta", params: [], body: { k: "identity" as const } };
      sc = new Scope("func", "modulemeta/0", sc, sc.depth, {
        def,
        arity: 0,
        defDepth: sc.depth,
        scope: sc,
        gen: null,
        pgen: null,
        valueParams: [],
        native,
      });
    }
    const c = new Compiler(true);
    // natives for the leading definitions: only the first of a name (a later one is the program's own)
    const natives = new Map(Object.entries(options.natives ?? {}));
    const define = (d: FuncDef): void => {
      sc = c.define(d, sc);
      const key = `${d.name}/${d.params.length}`;
      const nat = natives.get(key);
      if (nat !== undefined && sc.fi !== null) sc.fi.native = nat;
      natives.delete(key);
    };
    for (const d of ast.defs) define(d);
    let body = ast.body;
    // the last leading definition is parsed into the body (`def f: …; body`): compiled here as gen would
    if (natives.size > 0)
      while (body.k === "funcdef") {
        define(body.def);
        body = body.rest;
      }
    gen = c.gen(body, sc);
    hasLit = litStats.created !== litsBefore;
  } catch (e) {
    if (e instanceof JqCompileError || e instanceof JqSyntaxError) {
      const at =
        e instanceof JqCompileError && e.at !== undefined ? e.at : pos(e) < 0 ? "" : lineCol(program, pos(e));
      return err([
        policyError(e instanceof JqSyntaxError ? "jq_syntax_error" : "jq_compile_error", e.message, at),
      ]);
    }
    if (e instanceof JqError) return err([policyError("jq_compile_error", errorMessage(e.value), "1:1")]);
    if (e instanceof RangeError)
      return err([policyError("jq_compile_error", "program is nested too deeply", "1:1")]);
    throw e;
  }
  return ok(makeProgram(gen, argNames, argDefaults, hasLit, options.positional ?? []));
}

const NO_DEBUG = (): void => {};

/** `$ENV` of a run given no `env`: one shared empty object (jq values are never changed in place). */
const NO_ENV: Record<string, string> = {};

/** The result of a run whose step budget ran out: the decision's shared budget (room left under the cap) or the run's own. */
function spent(room: number, cap: number): RunResult {
  return { outputs: [], error: S.budget === room && room < cap ? BUDGET_EXCEEDED_MESSAGE : BUDGET_MESSAGE };
}

/**
 * The running program's output sink, whether its outputs may hold literal-carrying numbers, and the
 * literal count at its start: module-level (runs are synchronous), saved and restored around each
 * run like {@link S}, so that a run makes no closure for its outputs.
 */
let runEmit: (v: Json) => boolean = () => true;
let runHasLit = false;
let runLits = 0;

/** How deep the output being emitted nests, as its charge walk measured it (see {@link chargeTree}); −1 unknown. */
let outDepth = -1;

// literal-carrying numbers (program literals, fromjson, tonumber) leave as plain doubles
// an output leaves the run: whatever walks it later (printing, the answer writer) is paid for here
const OUT_KEEP = (v: Json): boolean => {
  outDepth = chargeTree(v);
  return runEmit(v);
};
const OUT_PLAIN = (v: Json): boolean => {
  if (runHasLit || litStats.created !== runLits) {
    outDepth = -1;
    return runEmit(plainJson(v));
  }
  outDepth = chargeTree(v);
  return runEmit(v);
};

/** `first`'s sink: keeps the first output (and its depth) and stops the run. */
let firstValue: Json | undefined;
let firstDepth = -1;
const FIRST_EMIT = (v: Json): boolean => {
  firstValue = v;
  firstDepth = outDepth;
  return true;
};

/** What {@link firstOutputDepth} answers: the depth of the last `first` call's output. */
let lastFirstDepth = -1;

/**
 * How deep the value the last {@link JqProgram.first} call returned nests, as the walk that charged
 * it on leaving the run measured it — 0 for a scalar, 1 for a container holding no container, any
 * figure above 256 for "deeper than 256 levels" — or −1 when it was not measured (no output, or one
 * made plain by another walk). A caller bounding an output's depth reads this instead of walking it
 * again.
 */
export function firstOutputDepth(): number {
  return lastFirstDepth;
}

function makeProgram(
  gen: Gen,
  argNames: string[],
  argDefaults: Json[],
  hasLit: boolean,
  positional: Json[],
): JqProgram {
  const defaultEnv = baseEnv(argNames, argDefaults, undefined, positional);
  const execute = (input: Json, options: RunOptions, emit: (v: Json) => boolean): RunResult | null => {
    // the run state is saved in locals (no object per run) and restored in `finally`
    const sSteps = S.steps;
    const sBudget = S.budget;
    const sBreaking = S.breaking;
    const sEnv = S.env;
    const sDebug = S.debug;
    const sNow = S.now;
    const sKeep = S.keepLiterals;
    const sInput = S.input;
    const sEmit = runEmit;
    const sHasLit = runHasLit;
    const sLits = runLits;
    // the run draws on the decision's shared budget; its steps are charged to it when it ends
    const shared = currentBudget();
    const room = shared.remaining();
    const cap = options.maxSteps ?? (shared === UNLIMITED ? 1_000_000 : Number.POSITIVE_INFINITY);
    S.steps = 0;
    S.budget = Math.min(cap, room);
    S.breaking = null;
    S.env = options.env ?? NO_ENV;
    S.debug = options.debug ?? NO_DEBUG;
    S.now = options.now;
    S.keepLiterals = options.keepLiterals === true;
    S.input = options.input ?? null;
    const env = options.vars ? baseEnv(argNames, argDefaults, options.vars, positional) : defaultEnv;
    runEmit = emit;
    runHasLit = hasLit;
    runLits = litStats.created;
    const sGuard = setWorkGuard(charge);
    try {
      gen(input, env, S.keepLiterals ? OUT_KEEP : OUT_PLAIN);
      return null;
    } catch (e) {
      if (e instanceof BudgetError) return spent(room, cap);
      if (e instanceof BudgetExceeded) return { outputs: [], error: BUDGET_EXCEEDED_MESSAGE };
      if (e instanceof RangeError) return { outputs: [], error: BUDGET_MESSAGE };
      if (!(e instanceof JqError || e instanceof HaltSignal)) throw e;
      // the error value is printed under the run's budget too (it may be huge, deep or shared)
      try {
        // a string is its own message; another value is kept for printers that show it as jq does
        if (e instanceof JqError)
          return {
            outputs: [],
            error: errorMessage(e.value),
            ...(typeof e.value === "string" ? {} : { errorValue: e.value }),
          };
        if (!e.isError) return { outputs: [], halted: true };
        const msg = typeof e.value === "string" ? e.value : printCompact(e.value) + "\n";
        return { outputs: [], error: msg, halt: { value: e.value, code: e.code } };
      } catch (e2) {
        if (e2 instanceof BudgetError) return spent(room, cap);
        if (e2 instanceof BudgetExceeded) return { outputs: [], error: BUDGET_EXCEEDED_MESSAGE };
        throw e2;
      }
    } finally {
      forgetClone();
      setWorkGuard(sGuard);
      shared.used += S.steps;
      S.steps = sSteps;
      S.budget = sBudget;
      S.breaking = sBreaking;
      S.env = sEnv;
      S.debug = sDebug;
      S.now = sNow;
      S.keepLiterals = sKeep;
      S.input = sInput;
      runEmit = sEmit;
      runHasLit = sHasLit;
      runLits = sLits;
    }
  };
  return {
    run(input, options = {}) {
      const outputs: Json[] = [];
      // every output kept after the first costs like an element collected into an array
      const r = execute(input, options, (v) => {
        if (outputs.length > 0) charge(1 + ALLOC);
        outputs.push(v);
        return false;
      });
      if (r === null) return { outputs };
      if (r.halted) return { outputs, halted: true };
      return r.error === undefined
        ? { outputs }
        : {
            outputs,
            error: r.error,
            ...(r.halt ? { halt: r.halt } : {}),
            ...("errorValue" in r ? { errorValue: r.errorValue } : {}),
          };
    },
    first(input, options = {}) {
      // a run inside this one (none today) keeps its own first value
      const saved = firstValue;
      const savedDepth = firstDepth;
      firstValue = undefined;
      firstDepth = -1;
      let r: RunResult | null;
      let out: Json | undefined;
      let depth: number;
      try {
        r = execute(input, options, FIRST_EMIT);
        out = firstValue;
        depth = firstDepth;
      } finally {
        firstValue = saved;
        firstDepth = savedDepth;
      }
      lastFirstDepth = out === undefined ? -1 : depth;
      return r !== null && out === undefined ? undefined : out;
    },
  };
}

function baseEnv(
  names: string[],
  defaults: Json[],
  vars: Record<string, Json> | undefined,
  positional: Json[],
): Env | null {
  let e: Env | null = null;
  const named: Record<string, Json> = {};
  names.forEach((n, j) => {
    const v = vars && Object.prototype.hasOwnProperty.call(vars, n) ? vars[n] : defaults[j];
    named[n] = v;
    e = new Env(v, e);
  });
  return new Env({ positional, named }, e);
}

/** Names of all builtins as `name/arity`, for `builtins`. */
export function builtinNames(): string[] {
  const names = new Set<string>(NATIVES.keys());
  for (let s: Scope | null = jqBuiltinScope(); s !== null; s = s.parent)
    if (s.kind === "func") names.add(s.name);
  return [...names].filter((n) => !n.startsWith("_"));
}

defNative("builtins", 0, { gen: (_i, _a, _e, emit) => emit(builtinNames()) });
