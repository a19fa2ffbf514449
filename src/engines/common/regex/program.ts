/**
 * Compiles the tree into an instruction list for the Pike VM: one array of
 * opcodes and two of operands, so a thread is one integer.
 */
import type { AssertKind, Node } from "./ast.js";
import { buildCharSet, type CharSet, type CharSetSpec } from "./charset.js";
import { chargeRegex } from "./work.js";

/** Opcodes. */
export const enum Op {
  Char = 0,
  Set = 1,
  Split = 2,
  Jmp = 3,
  Save = 4,
  Assert = 5,
  Look = 6,
  Match = 7,
}

/** Assertion codes (operand of Op.Assert). */
export const ASSERT_CODES: Readonly<Record<AssertKind, number>> = {
  bol: 0,
  eol: 1,
  bot: 2,
  eot: 3,
  eotnl: 4,
  wordb: 5,
  nwordb: 6,
};

/** A look-around compiled for its own pass over the input. */
export interface LookProg {
  /** The body, reversed for a look-ahead (its pass runs right to left). */
  readonly prog: Prog;
  readonly behind: boolean;
  readonly negated: boolean;
}

/** A compiled program. */
export interface Prog {
  readonly op: Uint8Array;
  readonly a: Int32Array;
  readonly b: Int32Array;
  readonly sets: readonly CharSet[];
  readonly looks: readonly LookProg[];
  /** Capture slots (2 per group, group 0 included). */
  readonly slots: number;
  /** The word set of `\b`. */
  readonly word: CharSet;
}

/** Largest program the compiler builds (instructions); beyond it the pattern is refused as too large. */
export const MAX_PROGRAM = 50_000;

/**
 * Work units a charged compile pays per instruction it emits (building the
 * program, then the Pike VM's and the DFA's tables over it): about 300 ns of
 * CPU each, measured on `(a{1000}){49}`.
 */
export const UNITS_PER_INSTRUCTION = 4;

/** Instructions a charged compile emits between two charges, so a spent budget stops it part-way. */
const CHARGE_EVERY = 1024;

class TooLarge extends Error {}

class Builder {
  op: number[] = [];
  a: number[] = [];
  b: number[] = [];
  sets: CharSet[] = [];
  looks: LookProg[] = [];
  private setIndex = new Map<CharSetSpec, number>();

  /** Instructions emitted and not yet charged (charged compiles only). */
  private unbilled = 0;

  constructor(
    private readonly word: CharSet,
    /** Whether the work is charged to the current budget (patterns that arrive at decision time). */
    readonly charged: boolean,
  ) {}

  emit(op: Op, a = 0, b = 0): number {
    if (this.op.length >= MAX_PROGRAM) throw new TooLarge();
    if (this.charged && ++this.unbilled >= CHARGE_EVERY) this.bill();
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  /** Charges the instructions emitted since the last charge (may throw when that spends the budget). */
  bill(): void {
    const n = this.unbilled;
    this.unbilled = 0;
    chargeRegex(n * UNITS_PER_INSTRUCTION);
  }

  set(spec: CharSetSpec): number {
    let i = this.setIndex.get(spec);
    if (i === undefined) {
      const s = buildCharSet(spec);
      if (s === null) throw new Error("regex: a property the parser accepted does not compile");
      i = this.sets.length;
      this.sets.push(s);
      this.setIndex.set(spec, i);
    }
    return i;
  }

  node(n: Node): void {
    switch (n.t) {
      case "empty":
        return;
      case "char":
        this.emit(Op.Char, n.cp);
        return;
      case "set":
        this.emit(Op.Set, this.set(n.set));
        return;
      case "cat":
        for (const x of n.xs) this.node(x);
        return;
      case "alt": {
        const jumps: number[] = [];
        for (let i = 0; i < n.xs.length; i++) {
          if (i < n.xs.length - 1) {
            const split = this.emit(Op.Split);
            this.a[split] = split + 1;
            this.node(n.xs[i]);
            jumps.push(this.emit(Op.Jmp));
            this.b[split] = this.op.length;
          } else this.node(n.xs[i]);
        }
        for (const j of jumps) this.a[j] = this.op.length;
        return;
      }
      case "group":
        this.emit(Op.Save, 2 * n.index);
        this.node(n.x);
        this.emit(Op.Save, 2 * n.index + 1);
        return;
      case "assert":
        this.emit(Op.Assert, ASSERT_CODES[n.kind]);
        return;
      case "look": {
        const body = compileBody(n.behind ? n.x : reverse(n.x), this.word, this.charged);
        this.looks.push({ prog: body, behind: n.behind, negated: n.negated });
        this.emit(Op.Look, this.looks.length - 1);
        return;
      }
      case "rep":
        this.rep(n.x, n.min, n.max, n.greedy);
        return;
    }
  }

  private optional(x: Node, greedy: boolean): number {
    const split = this.emit(Op.Split);
    this.node(x);
    this.splitTo(split, split + 1, this.op.length, greedy);
    return split;
  }

  /** Points a Split at `body` and at `exit`: the body is the preferred branch when greedy, the exit when lazy. */
  private splitTo(split: number, body: number, exit: number, greedy: boolean): void {
    this.a[split] = greedy ? body : exit;
    this.b[split] = greedy ? exit : body;
  }

  private rep(x: Node, min: number, max: number, greedy: boolean): void {
    if (max === -1 && min > 0) {
      // x{n,} as n-1 copies then one copy that loops back: nested `+` stays linear in size
      for (let i = 1; i < min; i++) this.node(x);
      const top = this.op.length;
      this.node(x);
      const split = this.emit(Op.Split);
      this.splitTo(split, top, split + 1, greedy);
      return;
    }
    for (let i = 0; i < min; i++) this.node(x);
    if (max === -1) {
      const split = this.emit(Op.Split);
      this.node(x);
      this.emit(Op.Jmp, split);
      this.splitTo(split, split + 1, this.op.length, greedy);
      return;
    }
    // x{0,k} as nested optionals: (x(x(x)?)?)?, each exit jumping to the end
    const splits: number[] = [];
    for (let i = min; i < max; i++) splits.push(this.optional(x, greedy));
    const end = this.op.length;
    for (const s of splits) {
      if (greedy) this.b[s] = end;
      else this.a[s] = end;
    }
  }

  finish(slots: number): Prog {
    return {
      op: Uint8Array.from(this.op),
      a: Int32Array.from(this.a),
      b: Int32Array.from(this.b),
      sets: this.sets,
      looks: this.looks,
      slots,
      word: this.word,
    };
  }
}

/** The tree read right to left (for a look-ahead's backward pass). */
export function reverse(n: Node): Node {
  switch (n.t) {
    case "cat":
      return { t: "cat", xs: n.xs.map(reverse).reverse() };
    case "alt":
      return { t: "alt", xs: n.xs.map(reverse) };
    case "rep":
      return { ...n, x: reverse(n.x) };
    case "group":
      return { ...n, x: reverse(n.x) };
    default:
      return n;
  }
}

function compileBody(n: Node, word: CharSet, charged: boolean): Prog {
  const b = new Builder(word, charged);
  b.node(n);
  b.emit(Op.Match);
  if (charged) b.bill();
  return b.finish(0);
}

/**
 * Compiles a pattern's tree (with `groups` capture groups) into a program, or
 * null when it is too large. A `charged` compile pays UNITS_PER_INSTRUCTION
 * per instruction to the current budget as it goes (a refused one too, for the
 * instructions it built), throwing when that spends it.
 */
export function compileProgram(n: Node, groups: number, word: CharSetSpec, charged = false): Prog | null {
  const w = buildCharSet(word);
  if (w === null) throw new Error("regex: the word set does not compile");
  const b = new Builder(w, charged);
  try {
    b.emit(Op.Save, 0);
    b.node(n);
    b.emit(Op.Save, 1);
    b.emit(Op.Match);
  } catch (e) {
    if (e instanceof TooLarge) {
      if (charged) b.bill();
      return null;
    }
    throw e;
  }
  if (charged) b.bill();
  return b.finish(2 * (groups + 1));
}

/**
 * How many instructions `compileProgram` would emit for a tree, counted
 * without building it (Infinity once past `limit`), so that a compile which
 * only validates can tell a too-large pattern without paying for the program.
 * A look-around's body is its own program: one past the limit is reported too.
 */
export function programSize(n: Node, limit = MAX_PROGRAM): number {
  const total = 3 + sizeOf(n, limit);
  return total > limit ? Infinity : total;
}

function sizeOf(n: Node, limit: number): number {
  switch (n.t) {
    case "empty":
      return 0;
    case "char":
    case "set":
    case "assert":
      return 1;
    case "cat": {
      let s = 0;
      for (const x of n.xs) if ((s += sizeOf(x, limit)) > limit) return Infinity;
      return s;
    }
    case "alt": {
      let s = 2 * (n.xs.length - 1);
      for (const x of n.xs) if ((s += sizeOf(x, limit)) > limit) return Infinity;
      return s;
    }
    case "group":
      return 2 + sizeOf(n.x, limit);
    case "look":
      return 1 + sizeOf(n.x, limit) > limit ? Infinity : 1;
    case "rep": {
      const x = sizeOf(n.x, limit);
      if (x === Infinity) return Infinity;
      const s = n.max === -1 ? (n.min > 0 ? n.min * x + 1 : x + 2) : n.min * x + (n.max - n.min) * (1 + x);
      return s > limit ? Infinity : s;
    }
  }
}
