/**
 * The Pike VM: runs a program over a string keeping every live thread in
 * lock-step, at most one thread per instruction and position, so the work is
 * O(input length × program size) whatever the pattern. Threads are kept in
 * priority order, which gives Perl's leftmost-first match and captures.
 * Look-arounds are tables computed by one extra pass each over the input.
 */
import { Op, type Prog } from "./program.js";

// Opcodes as local constants: the hot loops compare numbers, not enum members of another module.
const CHAR = 0;
const SPLIT = 2;
const JMP = 3;
const SAVE = 4;
const ASSERT = 5;
const LOOK = 6;
const MATCH = 7;

import { chargeRegex, CHUNK } from "./work.js";

export type { Spend } from "./work.js";

class ThreadList {
  readonly pcs: Int32Array;
  readonly caps: Int32Array;
  readonly mark: Uint32Array;
  count = 0;
  stamp = 1;

  constructor(
    size: number,
    readonly slots: number,
  ) {
    this.pcs = new Int32Array(size);
    this.caps = new Int32Array(Math.max(1, size * slots));
    this.mark = new Uint32Array(size);
  }

  clear(): void {
    this.count = 0;
    if (++this.stamp === 0xffffffff) {
      this.mark.fill(0);
      this.stamp = 1;
    }
  }
}

/** The code point that ends just before `pos`. */
function cpBefore(s: string, pos: number): number {
  const c = s.charCodeAt(pos - 1);
  if (c >= 0xdc00 && c <= 0xdfff && pos >= 2) {
    const h = s.charCodeAt(pos - 2);
    if (h >= 0xd800 && h <= 0xdbff) return ((h - 0xd800) << 10) + (c - 0xdc00) + 0x10000;
  }
  return c;
}

/** Whether assertion `kind` (ASSERT_CODES) holds at `pos`. */
export function assertHolds(prog: Prog, kind: number, s: string, pos: number): boolean {
  const n = s.length;
  switch (kind) {
    case 0:
      return pos === 0 || s.charCodeAt(pos - 1) === 10;
    case 1:
      return pos === n || s.charCodeAt(pos) === 10;
    case 2:
      return pos === 0;
    case 3:
      return pos === n;
    case 4:
      return pos === n || (pos === n - 1 && s.charCodeAt(pos) === 10);
    default: {
      const w = prog.word;
      const before = pos > 0 && w.has(cpBefore(s, pos));
      const after = pos < n && w.has(s.codePointAt(pos) as number);
      return (before !== after) === (kind === 5);
    }
  }
}

/** A reusable machine for one program (buffers sized once). */
export class PikeVm {
  private readonly clist: ThreadList;
  private readonly nlist: ThreadList;
  private readonly stack: Int32Array;
  private readonly scratch: Int32Array;
  private tables: Uint8Array[] = [];
  private tablesFor: string | null = null;
  private readonly looks: PikeVm[];
  /** First code units a match can start with (null: any, e.g. the pattern can match empty). */
  private readonly firstAscii: Uint8Array | null;
  private readonly firstHi: boolean;
  work = 0;

  constructor(
    private readonly prog: Prog,
    /** A literal every match starts with (case-sensitive), used to skip ahead with indexOf. */
    private readonly prefix: string,
  ) {
    const size = prog.op.length;
    this.clist = new ThreadList(size, prog.slots);
    this.nlist = new ThreadList(size, prog.slots);
    this.stack = new Int32Array(3 * size + 8);
    this.scratch = new Int32Array(Math.max(1, prog.slots));
    this.looks = prog.looks.map((l) => new PikeVm(l.prog, ""));
    const first = firstSet(prog);
    this.firstAscii = first === null ? null : first.ascii;
    this.firstHi = first === null ? true : first.hi;
  }

  /** Follows empty transitions from `pc` at `pos`, adding threads in priority order; `caps` is the scratch row. */
  private add(list: ThreadList, pc0: number, pos: number, s: string): void {
    const { op, a, b } = this.prog;
    const stack = this.stack;
    const caps = this.scratch;
    const slots = list.slots;
    let sp = 0;
    stack[sp++] = pc0;
    while (sp > 0) {
      let pc = stack[--sp];
      if (pc < 0) {
        // restore a capture slot: encoded as (-1 - slot), value below it
        caps[-1 - pc] = stack[--sp];
        continue;
      }
      for (;;) {
        if (list.mark[pc] === list.stamp) break;
        list.mark[pc] = list.stamp;
        const o = op[pc];
        if (o === JMP) {
          pc = a[pc];
          continue;
        }
        if (o === SPLIT) {
          stack[sp++] = b[pc];
          pc = a[pc];
          continue;
        }
        if (o === SAVE) {
          const slot = a[pc];
          if (slot < slots) {
            stack[sp++] = caps[slot];
            stack[sp++] = -1 - slot;
            caps[slot] = pos;
          }
          pc++;
          continue;
        }
        if (o === ASSERT) {
          if (!assertHolds(this.prog, a[pc], s, pos)) break;
          pc++;
          continue;
        }
        if (o === LOOK) {
          const l = this.prog.looks[a[pc]];
          if ((this.tables[a[pc]][pos] === 1) === l.negated) break;
          pc++;
          continue;
        }
        const k = list.count++;
        list.pcs[k] = pc;
        if (slots > 0) {
          const row = list.caps;
          const base = k * slots;
          for (let j = 0; j < slots; j++) row[base + j] = caps[j];
        }
        break;
      }
    }
  }

  private prepareLooks(s: string): void {
    if (this.tablesFor === s) return;
    this.tables = this.prog.looks.map((l, i) => this.looks[i].table(s, l.behind));
    this.tablesFor = s;
    for (const l of this.looks) {
      this.work += l.work;
      l.work = 0;
    }
  }

  /** For a look-around body: 1 at each position where the body matches ending there (forward) or starting there (backward). */
  private table(s: string, forward: boolean): Uint8Array {
    const n = s.length;
    const out = new Uint8Array(n + 1);
    const { op, a, sets } = this.prog;
    let clist = this.clist;
    let nlist = this.nlist;
    clist.clear();
    let pos = forward ? 0 : n;
    for (;;) {
      this.add(clist, 0, pos, s);
      let c = -1;
      let w = 0;
      if (forward ? pos < n : pos > 0) {
        c = forward ? (s.codePointAt(pos) as number) : cpBefore(s, pos);
        w = c > 0xffff ? 2 : 1;
      }
      const next = forward ? pos + w : pos - w;
      nlist.clear();
      for (let i = 0; i < clist.count; i++) {
        const pc = clist.pcs[i];
        const o = op[pc];
        if (o === MATCH) out[pos] = 1;
        else if (c >= 0 && (o === CHAR ? c === a[pc] : sets[a[pc]].has(c))) this.add(nlist, pc + 1, next, s);
      }
      this.work += clist.count + 1;
      if (this.work >= CHUNK) {
        chargeRegex(this.work);
        this.work = 0;
      }
      if (w === 0) break;
      pos = next;
      const t = clist;
      clist = nlist;
      nlist = t;
    }
    return out;
  }

  /**
   * The leftmost-first match at or after `from` (only at `from` when `anchored`):
   * capture slots as UTF-16 offsets (-1 unset), `true` when `slots` is 0 and
   * only the answer is wanted, or null.
   */
  exec(s: string, from: number, anchored: boolean): Int32Array | boolean | null {
    const prog = this.prog;
    if (prog.looks.length > 0) this.prepareLooks(s);
    const { op, a, sets } = prog;
    const slots = prog.slots;
    const n = s.length;
    let clist = this.clist;
    let nlist = this.nlist;
    clist.clear();
    let matched: Int32Array | null = null;
    let pos = from;
    const firstAscii = this.firstAscii;
    const prefix = this.prefix;
    let work = 0;
    // a live thread's step copies its capture row: with many groups that copy is the work
    const perThread = 1 + (slots >> 3);
    for (;;) {
      if (matched === null && (!anchored || pos === from)) {
        if (clist.count === 0 && !anchored) {
          if (prefix !== "") {
            const at = s.indexOf(prefix, pos);
            if (at < 0) break;
            pos = at;
          } else if (firstAscii !== null) {
            while (pos < n) {
              const c = s.charCodeAt(pos);
              if (c < 128 ? firstAscii[c] === 1 : this.firstHi) break;
              pos++;
            }
            if (pos >= n) break;
          }
        }
        this.scratch.fill(-1);
        this.add(clist, 0, pos, s);
      }
      if (clist.count === 0) {
        // the start thread died here (an assertion failed): an unanchored search moves on
        if (matched !== null || anchored || pos >= n) break;
        const c0 = s.charCodeAt(pos);
        pos +=
          c0 >= 0xd800 && c0 <= 0xdbff && pos + 1 < n && (s.charCodeAt(pos + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
        clist.clear();
        continue;
      }
      let c = -1;
      let w = 0;
      if (pos < n) {
        c = s.charCodeAt(pos);
        w = 1;
        if (c >= 0xd800 && c <= 0xdbff && pos + 1 < n) {
          const d = s.charCodeAt(pos + 1);
          if (d >= 0xdc00 && d <= 0xdfff) {
            c = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
            w = 2;
          }
        }
      }
      nlist.clear();
      const count = clist.count;
      work += count * perThread;
      if (work >= CHUNK) {
        chargeRegex(work);
        work = 0;
      }
      for (let i = 0; i < count; i++) {
        const pc = clist.pcs[i];
        const o = op[pc];
        if (o === MATCH) {
          if (slots === 0) {
            this.work += work;
            return true;
          }
          matched = clist.caps.slice(i * slots, i * slots + slots);
          break;
        }
        if (c >= 0 && (o === CHAR ? c === a[pc] : sets[a[pc]].has(c))) {
          if (slots > 0) {
            const row = clist.caps;
            const scratch = this.scratch;
            const base = i * slots;
            for (let j = 0; j < slots; j++) scratch[j] = row[base + j];
          }
          this.add(nlist, pc + 1, pos + w, s);
        }
      }
      if (w === 0) break;
      pos += w;
      const t = clist;
      clist = nlist;
      nlist = t;
      if (clist.count === 0 && (matched !== null || anchored)) break;
    }
    this.work += work;
    return matched;
  }
}

/** What a match can start with, ignoring assertions; null when the pattern can match the empty string. */
function firstSet(prog: Prog): { ascii: Uint8Array; hi: boolean } | null {
  const { op, a, b, sets } = prog;
  const seen = new Uint8Array(op.length);
  const ascii = new Uint8Array(128);
  let hi = false;
  const todo = [0];
  while (todo.length > 0) {
    const pc = todo.pop() as number;
    if (seen[pc] === 1) continue;
    seen[pc] = 1;
    switch (op[pc]) {
      case Op.Match:
        return null;
      case Op.Jmp:
        todo.push(a[pc]);
        break;
      case Op.Split:
        todo.push(a[pc], b[pc]);
        break;
      case Op.Char:
        if (a[pc] < 128) ascii[a[pc]] = 1;
        else hi = true;
        break;
      case Op.Set: {
        const set = sets[a[pc]];
        for (let c = 0; c < 128; c++) if (set.ascii[c] === 1) ascii[c] = 1;
        if (set.hi === null || set.hi.length > 0) hi = true;
        break;
      }
      default:
        todo.push(pc + 1);
    }
  }
  return { ascii, hi };
}
