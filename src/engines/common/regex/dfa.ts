/**
 * A lazy DFA for yes/no searches: each state is a set of program threads
 * (as in the Pike VM, without captures), built on first need and cached with
 * its transitions, so a search costs one table lookup per character once warm
 * and never more than the Pike VM's O(program) per character. Programs with
 * word boundaries or look-arounds are left to the Pike VM.
 */
import { Op, type Prog } from "./program.js";
import { chargeRegex, CHUNK } from "./work.js";

const FINAL_NL = 128;
/** States kept before the cache is dropped and rebuilt (bounds memory whatever the pattern). */
export const MAX_DFA_STATES = 2000;
/**
 * Most bytes of states and transitions kept before the cache is dropped and
 * rebuilt: wide states (hundreds of threads each) reach it long before
 * {@link MAX_DFA_STATES}. A small program gets less ({@link dfaByteCap}).
 */
export const MAX_DFA_BYTES = 2 * 1024 * 1024;
const MIN_DFA_BYTES = 256 * 1024;

/** The bytes a DFA over a program of `size` instructions keeps at most: 256 per instruction, within 256 KiB .. 2 MiB. */
export function dfaByteCap(size: number): number {
  return Math.min(MAX_DFA_BYTES, Math.max(MIN_DFA_BYTES, 256 * size));
}
/** What one state costs besides 4 bytes per thread: the object, its key and a full table of ASCII transitions. */
export const STATE_BYTES = 1_300;
/** What one transition on a character above ASCII costs (a map entry). */
const HI_BYTES = 48;
const MAX_HI = 256;

interface State {
  /** Threads after empty moves: consuming instructions, pending end assertions, Match. */
  readonly pcs: Int32Array;
  readonly accept: boolean;
  /** Some end assertion (eot, eotnl, eol) is pending. */
  readonly pending: boolean;
  /** Whether the text ending here is a match (computed on first need). */
  endAccept?: boolean;
  readonly prevNl: boolean;
  readonly atStart: boolean;
  next: Array<State | undefined>;
  hi: Map<number, State> | null;
}

const EOT = 3;
const EOTNL = 4;
const EOL = 1;
const BOL = 0;
const BOT = 2;

/** Whether the DFA can run a program (no word boundaries, no look-arounds). */
export function dfaApplicable(prog: Prog): boolean {
  for (let pc = 0; pc < prog.op.length; pc++) {
    if (prog.op[pc] === Op.Look) return false;
    if (prog.op[pc] === Op.Assert && prog.a[pc] > EOTNL) return false;
  }
  return true;
}

/** A lazily built DFA over one program. */
export class LazyDfa {
  private states = new Map<string, State>();
  /** Estimated bytes of the states and transitions built since the last drop. */
  private held = 0;
  private readonly cap: number;
  private readonly seen: Uint32Array;
  private stamp = 0;
  private readonly start: State;
  work = 0;

  constructor(private readonly prog: Prog) {
    this.seen = new Uint32Array(prog.op.length);
    this.cap = dfaByteCap(prog.op.length);
    this.start = this.state([0], true, true);
  }

  /** The closure of `kernel` under the position's context, interned. */
  private state(kernel: readonly number[], atStart: boolean, prevNl: boolean): State {
    const { op, a, b } = this.prog;
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    const stamp = this.stamp;
    const out: number[] = [];
    let accept = false;
    let pending = false;
    const stack = [...kernel].reverse();
    while (stack.length > 0) {
      let pc = stack.pop() as number;
      for (;;) {
        if (this.seen[pc] === stamp) break;
        this.seen[pc] = stamp;
        const o = op[pc];
        if (o === Op.Jmp) pc = a[pc];
        else if (o === Op.Split) {
          stack.push(b[pc]);
          pc = a[pc];
        } else if (o === Op.Save) pc++;
        else if (o === Op.Assert) {
          const k = a[pc];
          if (k === BOT ? atStart : k === BOL ? prevNl : false) pc++;
          else {
            if (k === EOT || k === EOTNL || k === EOL) {
              out.push(pc);
              pending = true;
            }
            break;
          }
        } else {
          if (o === Op.Match) accept = true;
          out.push(pc);
          break;
        }
      }
    }
    out.sort((x, y) => x - y);
    const key = `${atStart ? 1 : 0}${prevNl ? 1 : 0}:${out.join(",")}`;
    let st = this.states.get(key);
    if (st === undefined) {
      const bytes = STATE_BYTES + 4 * out.length;
      if (this.states.size >= MAX_DFA_STATES || this.held + bytes > this.cap) this.drop();
      st = { pcs: Int32Array.from(out), accept, pending, prevNl, atStart, next: [], hi: null };
      this.states.set(key, st);
      this.held += bytes;
    }
    return st;
  }

  /**
   * Forgets every state built so far. Their transitions are cut too: a state
   * still reachable (the start, the state a search stands on) would otherwise
   * keep the whole old graph alive through its links.
   */
  private drop(): void {
    for (const st of this.states.values()) {
      st.next = [];
      st.hi = null;
    }
    this.start.next = [];
    this.start.hi = null;
    this.states = new Map();
    this.held = 0;
  }

  /** Estimated bytes this DFA keeps (at most its {@link dfaByteCap}). */
  get bytes(): number {
    return this.held;
  }

  /** The state after reading symbol `c` (a code point, or FINAL_NL for a newline that ends the text). */
  private step(st: State, c: number): State {
    const { op, a, sets } = this.prog;
    const ch = c === FINAL_NL ? 10 : c;
    const kernel: number[] = [];
    const pcs = st.pcs;
    const consume = (pc: number): void => {
      const o = op[pc];
      if (o === Op.Char ? a[pc] === ch : o === Op.Set && sets[a[pc]].has(ch)) kernel.push(pc + 1);
    };
    // pending end assertions that hold before this character open more threads (which may hold more of them)
    const todo: number[] = Array.from(pcs);
    const done = new Set<number>();
    while (todo.length > 0) {
      const pc = todo.pop() as number;
      if (done.has(pc)) continue;
      done.add(pc);
      if (op[pc] === Op.Assert) {
        const k = a[pc];
        // eol before any newline, eotnl before the final one
        if ((k === EOL && ch === 10) || (k === EOTNL && c === FINAL_NL)) {
          const after = this.state([pc + 1], st.atStart, st.prevNl);
          if (after.accept) return after;
          for (let j = 0; j < after.pcs.length; j++) todo.push(after.pcs[j]);
        }
        continue;
      }
      consume(pc);
    }
    this.work += pcs.length;
    kernel.push(0);
    return this.state(kernel, false, ch === 10);
  }

  /** Whether a pending end assertion leads to Match when the text ends here (every end assertion holds there). */
  private atEnd(st: State): boolean {
    if (st.accept) return true;
    if (!st.pending) return false;
    if (st.endAccept !== undefined) return st.endAccept;
    const { op, a, b } = this.prog;
    const seen = new Uint8Array(op.length);
    const stack: number[] = [];
    for (const pc of st.pcs) if (op[pc] === Op.Assert) stack.push(pc + 1);
    let found = false;
    while (stack.length > 0 && !found) {
      const pc = stack.pop() as number;
      if (seen[pc] === 1) continue;
      seen[pc] = 1;
      const o = op[pc];
      if (o === Op.Match) found = true;
      else if (o === Op.Jmp) stack.push(a[pc]);
      else if (o === Op.Split) stack.push(a[pc], b[pc]);
      else if (o === Op.Save) stack.push(pc + 1);
      else if (o === Op.Assert) {
        const k = a[pc];
        if (k === BOT ? st.atStart : k === BOL ? st.prevNl : true) stack.push(pc + 1);
      }
    }
    st.endAccept = found;
    return found;
  }

  /** Whether the program matches somewhere in `s`. */
  test(s: string): boolean {
    let st = this.start;
    const n = s.length;
    let mark = 0;
    for (let i = 0; i < n; i++) {
      if (st.accept) return true;
      if (i - mark >= CHUNK) {
        chargeRegex(i - mark + this.work);
        this.work = 0;
        mark = i;
      }
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
          i++;
        }
      }
      if (c === 10 && i === n - 1) c = FINAL_NL;
      let nx: State | undefined;
      if (c <= FINAL_NL) {
        nx = st.next[c];
        if (nx === undefined) nx = st.next[c] = this.step(st, c);
      } else {
        nx = st.hi?.get(c);
        if (nx === undefined) {
          nx = this.step(st, c);
          if (this.held + HI_BYTES <= this.cap) {
            st.hi ??= new Map();
            if (st.hi.size < MAX_HI) {
              st.hi.set(c, nx);
              this.held += HI_BYTES;
            }
          }
        }
      }
      st = nx;
    }
    this.work += n - mark;
    return this.atEnd(st);
  }
}
