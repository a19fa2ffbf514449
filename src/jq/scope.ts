/** Compile-time scopes: which names are bound where, resolved to environment depths. */
import type { Json } from "../engines/common/json.js";
import type { FuncDef } from "./ast.js";
import type { Native } from "./compile.js";
import type { ArgInfo, Gen, PGen } from "./runtime.js";
import type { Val } from "./compile-single.js";
import type { Opt } from "./compile-maybe.js";

/** A compile error with the source offset where it was found. */
export class JqCompileError extends Error {
  /** Set for an error inside an imported module: `<module id>:<line>:<column>`. */
  at?: string;
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

/** A jq-defined function, compiled on first reference in each mode. */
export interface FuncInfo {
  def: FuncDef;
  arity: number;
  /** Slot depth of the scope the definition appeared in. */
  defDepth: number;
  /** Scope for the body: the definition scope plus this function. */
  scope: Scope;
  gen: Gen | null;
  pgen: PGen | null;
  /** Number of slots the call pushes (closures, then `$` values). */
  valueParams: number[];
  /** Set for built-in module functions implemented natively: calls go straight to it. */
  native?: Native;
  /** Syntax nodes in the body (counted on first need): whether it is small enough to inline. */
  size?: number;
  /** For a function without filter parameters: its body's direct evaluator for inlined calls, or null (compile-inline.ts `valueBody`). */
  valueBody?: Val | null;
  /** The same for a body that yields at most one value (compile-maybe.ts), or null. */
  maybeBody?: Opt | null;
}

/** A filter argument inlined into a function body at compile time: compiled in its caller's scope, reading no environment. */
export interface InlineArg {
  arg: ArgInfo;
  /** The caller's scope the argument was compiled in. */
  scope: Scope;
  /** For an argument that is a variable of the caller: the hidden variable of the body holding its value. */
  hidden?: string;
}

/** One scope entry; slot entries occupy one runtime Env binding. */
export class Scope {
  /** For the builtin library's scope: every definition by `name/arity`, so lookups stop here. */
  table: Map<string, FuncInfo> | null = null;
  /** For a `const` entry: the value its variable stands for. */
  value: Json = null;
  /** For an `inline` entry: the argument a filter parameter stands for. */
  inline: InlineArg | null = null;

  constructor(
    readonly kind: "var" | "const" | "closure" | "inline" | "label" | "func" | "root",
    readonly name: string,
    readonly parent: Scope | null,
    readonly depth: number,
    readonly fi: FuncInfo | null = null,
  ) {}

  private self(): Scope {
    return this;
  }

  /** Adds a slot binding (variable, closure parameter or label). */
  push(kind: "var" | "closure" | "label", name: string): Scope {
    return new Scope(kind, name, this, this.depth + 1);
  }

  /** Binds a variable to a value known at compile time, such as a data module's `$name` (no runtime slot). */
  pushConst(name: string, value: Json): Scope {
    const s = new Scope("const", name, this, this.depth);
    s.value = value;
    return s;
  }

  /** Finds a variable: how many Env links to walk to its slot, or the constant it was bound to; null when unbound. */
  lookupVar(name: string): { slot: number } | { value: Json } | null {
    for (let s: Scope | null = this.self(); s !== null; s = s.parent) {
      if (s.name !== name) continue;
      if (s.kind === "var") return { slot: this.depth - s.depth };
      if (s.kind === "const") return { value: s.value };
    }
    return null;
  }

  /** Binds a filter parameter to an environment-free argument, for an inlined body (no runtime slot). */
  pushInline(name: string, inline: InlineArg): Scope {
    const s = new Scope("inline", name, this, this.depth);
    s.inline = inline;
    return s;
  }

  /** Adds a function definition (no runtime slot). */
  pushFunc(fi: FuncInfo): Scope {
    return new Scope("func", fi.def.name + "/" + fi.arity, this, this.depth, fi);
  }

  /** Finds a slot binding; returns how many Env links to walk, or -1. */
  lookupSlot(kind: "var" | "label", name: string): number {
    for (let s: Scope | null = this.self(); s !== null; s = s.parent) {
      if (s.kind === kind && s.name === name) return this.depth - s.depth;
    }
    return -1;
  }

  /** Finds a callable: a closure parameter (arity 0), an inlined filter argument or a function definition. */
  lookupCallable(
    name: string,
    arity: number,
  ): { closure: number } | { inline: InlineArg } | { fi: FuncInfo } | null {
    const key = name + "/" + arity;
    for (let s: Scope | null = this.self(); s !== null; s = s.parent) {
      if (s.table !== null) {
        const fi = s.table.get(key);
        return fi === undefined ? null : { fi };
      }
      if (arity === 0 && s.kind === "closure" && s.name === name) return { closure: this.depth - s.depth };
      if (arity === 0 && s.kind === "inline" && s.name === name) return { inline: s.inline as InlineArg };
      if (s.kind === "func" && s.name === key) return { fi: s.fi as FuncInfo };
    }
    return null;
  }
}

export type { ArgInfo };
