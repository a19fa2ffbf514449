/**
 * The ClassAd record, laid out flat: ads with the same attribute names in the
 * same order share one AdLayout (names as written, a lower-cased name → slot
 * map), and each ad holds only an array of slots. A slot is either a compiled
 * expression (shared between ads through the expression cache) or, for the
 * plain literals most ads are made of, the value itself. 10,000 slot ads thus
 * share one name table, and the evaluator's per-site caches resolve an
 * attribute by comparing one layout pointer.
 */
import { trySpend } from "../common/budget.js";
import { Compiled } from "./node.js";
import type { Value } from "./values.js";

/** One attribute as functions and printing see it: its name as written and its compiled expression. */
export interface Slot {
  readonly name: string;
  readonly c: Compiled;
}

/** What an ad stores per attribute: a compiled expression, or a literal's value. */
export type SlotValue = Compiled | Value;

/**
 * A name as a layout keeps it: a flat string of its own (a property key's), not a
 * slice of the text it was read from, which would keep that whole text alive and
 * cost an indirection on every character compared against it.
 */
function ownName(name: string): string {
  return Object.keys({ [name]: 0 })[0];
}

/** V8 cuts a string of this many characters or more as a view into the text it is cut from (a "sliced string"). */
const SLICED_MIN = 13;
/** Longer lines are not kept (see {@link AdLayout.keepLine}). */
const MAX_KEPT_LINE = 320;
/** How many times a layout's attribute replaces its kept line before it stops. */
const MAX_LINE_COPIES = 8;

/**
 * The generation of every layout's kept line ({@link AdLayout.keepLine}): a line kept in another
 * generation is not read. {@link forgetKeptLines} starts a new one, so that benchmarks and tests can
 * read an ad as if no ad of its kind had been read before, without walking the layouts.
 */
let keptGeneration = 0;

/**
 * Code units of the kept lines (each from an index of the parity it had in its text, so that it is
 * copied a word at a time), and the same memory as words: copying or comparing a code unit at a time
 * costs about 15 instructions a unit in V8, a word of two about as much. Allocated on first use,
 * bounded (when full, every kept line is forgotten and the room reused).
 */
const KEPT_UNITS = 1 << 19;
let keptUnits = new Uint16Array(0);
let keptWords = new Int32Array(0);
/** Where the next line's room starts in {@link keptUnits} (even). */
let keptTop = 0;

/** Forgets the line every layout keeps (the next ad of each kind reads all its lines; expr-cache.ts `clearExprCache`). */
export function forgetKeptLines(): void {
  keptGeneration++;
  keptTop = 0;
}

/**
 * The room the layouts' `Name = ` runs are written in ({@link AdLayout.valueStartIn}), each from an even
 * and then from an odd start, one run after another: the runs of a chain lie together, in the order its
 * lines are read, and its layouts share one array (a layout's own was a cache miss a line). A full room
 * is left to the layouts whose runs it holds (it lives as long as one of them), and a new one is begun;
 * a run longer than a room gets an array of its own.
 */
const NAME_ROOM_WORDS = 1 << 13;
const NO_WORDS = new Int32Array(0);
let nameRoom = NO_WORDS;
let nameTop = 0;

/** Writes the run of `name` and ` = ` in {@link nameRoom} (begun anew when it lacks room) and answers where it starts. */
function nameRunIn(name: string): number {
  const u: number[] = [];
  for (let i = 0; i < name.length; i++) u.push(name.charCodeAt(i));
  u.push(32, 61, 32);
  const m = u.length;
  const even = m >> 1;
  const size = even + ((m - 1) >> 1);
  if (nameTop + size > nameRoom.length) {
    nameRoom = new Int32Array(Math.max(size, NAME_ROOM_WORDS));
    nameTop = 0;
  }
  const at = nameTop;
  for (let j = 0; j < even; j++) nameRoom[at + j] = u[2 * j] | (u[2 * j + 1] << 16);
  for (let j = 0; even + j < size; j++) nameRoom[at + even + j] = u[2 * j + 1] | (u[2 * j + 2] << 16);
  nameTop += size;
  return at;
}

/** Layouts created since the transition tree was last cleared (requests with arbitrary names must not grow it forever). */
let layoutCount = 0;
const MAX_LAYOUTS = 20_000;

/**
 * An ordered list of attribute names, reached from the empty layout by adding
 * one name at a time; the children are cached, so every ad with the same
 * names in the same order ends on the same layout object.
 */
export class AdLayout {
  private children: Map<string, AdLayout> | null = null;
  private lcIndex: Map<string, number> | null = null;
  private written: string[] | null = null;
  /** The child {@link withSpan} handed out last (kept beside `children`, dropped with them). */
  private lastChild: AdLayout | null = null;
  /**
   * The child handed out before {@link lastChild} when that was another: ads of two kinds that share
   * their first names (a job's and a machine's `MyType`, `TargetType`) part here, and read in turn each
   * finds its own name in one of the two without a lookup (see {@link withSpan}).
   */
  private otherChild: AdLayout | null = null;
  /**
   * The units of the last name added and ` = `, two a word (as char-codes.ts `wordsOf` reads a text):
   * from the first unit, then from the second (for a name written at an odd index), made on first use
   * (see {@link valueStartIn}) in a room shared with the layouts made before and after this one
   * ({@link nameRunIn}), from index {@link nameAt}.
   */
  private nameWords: Int32Array = NO_WORDS;
  private nameAt = 0;
  /** The length of that run (the name's and 3; 0: not made yet), and its first unit (the layout's own fields: the name string is not loaded). */
  private nameRun = 0;
  private nameFirst = 0;
  /**
   * The line an ad read along this chain last had for this attribute (see {@link keepLine}): its length
   * in code units (-1: none), where it starts in {@link keptUnits}, the room reserved for it there (from
   * an even index, reused by the next line that fits), and its value.
   */
  private lineLength = -1;
  private lineAt = 0;
  private lineBase = 0;
  private lineRoom = 0;
  private lineValue: SlotValue = false;
  /**
   * Where in the kept line a string value of {@link SLICED_MIN} or more characters starts (-1: none
   * pending), and its length: its own copy is made when a line first matches it (see {@link keptValueIn}).
   */
  private pendingAt = -1;
  private pendingLength = 0;
  /** How many times a line replaced the kept one (bounded: see {@link keepLine}). */
  private lineCopies = 0;
  /** The {@link keptGeneration} the line was kept in, or that an ad of this kind first reached here in. */
  private lineGeneration = -1;

  private constructor(
    private readonly parent: AdLayout | null,
    /** The last name added (as written), and its lower-cased form. */
    private readonly name: string,
    private readonly lc: string,
    /** Number of attributes. */
    readonly size: number,
  ) {}

  /** The layout with no attributes, root of every chain. */
  static readonly EMPTY = new AdLayout(null, "", "", 0);

  /** A layout outside the shared tree, for names known to be distinct ignoring case (large ads). */
  static standalone(names: readonly string[]): AdLayout {
    const l = new AdLayout(null, "", "", names.length);
    l.written = [...names];
    l.lcIndex = new Map(names.map((n, i) => [n.toLowerCase(), i]));
    return l;
  }

  /**
   * The layout with the name written at `src[start, end)` added last, or null as for {@link with}: the
   * child this layout handed out last is checked against the text in place, so ads of one kind read
   * name after name without cutting a string or hashing one.
   */
  withSpan(src: string, start: number, end: number): AdLayout | null {
    const last = this.lastChild;
    if (last !== null && last.isNamed(src, start, end)) return last;
    const other = this.otherChild;
    if (other !== null && other.isNamed(src, start, end)) {
      // ads of two kinds read in turn: the other is expected next
      this.otherChild = last;
      this.lastChild = other;
      return other;
    }
    const child = this.with(src.slice(start, end));
    if (child !== null && child !== last) {
      this.otherChild = last;
      this.lastChild = child;
    }
    return child;
  }

  /** Whether this layout's last name is written at `src[start, end)`. */
  private isNamed(src: string, start: number, end: number): boolean {
    const name = this.name;
    if (name.length !== end - start) return false;
    // compared char by char: startsWith at an offset is a builtin call that costs more than a short name
    let i = 0;
    while (i < name.length && name.charCodeAt(i) === src.charCodeAt(start + i)) i++;
    return i === name.length;
  }

  /** The child {@link withSpan} handed out last: the layout ads of this kind went on to, or null. */
  get expected(): AdLayout | null {
    return this.lastChild;
  }

  /** The name this layout added last, as written. */
  get lastName(): string {
    return this.name;
  }

  /**
   * Where the value of the line `Name = ` starts when `codes` hold it from `p` on, {@link lastName}
   * followed by a blank, `=` and a blank as `condor_q -l` writes every line (`words` being `codes` two
   * units a word, char-codes.ts `wordsOf`): `p` plus the name's length plus 3, else -1 (any other spacing
   * is read by the caller's scan). The name and the ` = ` are compared as one run of words (a typed-array
   * loop costs V8 about as much an iteration for a word as for a unit), so the name's end and the `=` need
   * no checks of their own: the blank after the name ends it.
   */
  valueStartIn(codes: Uint16Array, words: Int32Array, p: number, n: number): number {
    const m = this.nameRun === 0 ? this.makeNameWords() : this.nameRun;
    const nw = this.nameWords;
    const end = p + m;
    if (end > n) return -1;
    let q = p;
    let k = this.nameAt;
    let count = m >> 1;
    if ((p & 1) === 1) {
      if (codes[p] !== this.nameFirst) return -1;
      q++;
      k += count;
      count = (m - 1) >> 1;
    }
    const w = q >> 1;
    for (let j = 0; j < count; j++) if (nw[k + j] !== words[w + j]) return -1;
    // a run of odd length ends with the ` = `'s last blank
    return q + 2 * count === end || codes[end - 1] === 32 ? end : -1;
  }

  /** Makes {@link nameWords} (see {@link nameRunIn}) and answers the run's length. */
  private makeNameWords(): number {
    const m = this.name.length + 3;
    this.nameAt = nameRunIn(this.name);
    this.nameWords = nameRoom;
    this.nameFirst = this.name.charCodeAt(0);
    this.nameRun = m;
    return m;
  }

  /**
   * Where the line this layout keeps (see {@link keepLine}) ends when `codes` hold it from `p` on, up to
   * a line feed or the text's end `n`: the index of that line feed (or `n`), else -1.
   */
  keptLineEnd(codes: Uint16Array, words: Int32Array | null, p: number, n: number): number {
    const m = this.lineLength;
    if (m < 0 || this.lineGeneration !== keptGeneration || p + m > n) return -1;
    return this.keptLineEndAt(codes, words, p, m, n);
  }

  /** {@link keptLineEnd}'s compare (apart, so that the checks before it are inlined where lines are read). */
  private keptLineEndAt(
    codes: Uint16Array,
    words: Int32Array | null,
    p: number,
    m: number,
    n: number,
  ): number {
    let at = this.lineAt;
    let q = p;
    const end = p + m;
    if (words !== null) {
      // two code units a word (wordsOf): an odd start compares its first unit alone; a copy kept at the
      // other parity is read a word from the halves of two
      if ((q & 1) === 1) {
        if (keptUnits[at] !== codes[q]) return -1;
        at++;
        q++;
      }
      const kw = keptWords;
      const w = q >> 1;
      const k = at >> 1;
      const nw = (end - q) >> 1;
      let j = 0;
      if ((at & 1) === 0) while (j < nw && kw[k + j] === words[w + j]) j++;
      else while (j < nw && ((kw[k + j] >>> 16) | (kw[k + j + 1] << 16)) === words[w + j]) j++;
      if (j < nw) return -1;
      at += 2 * nw;
      q += 2 * nw;
    }
    while (q < end && keptUnits[at] === codes[q]) {
      at++;
      q++;
    }
    return q === end && (end === n || codes[end] === 10) ? end : -1;
  }

  /** The value of the line {@link keptLineEnd} found written in `text` from `p` on. */
  keptValueIn(text: string, p: number): SlotValue {
    if (this.pendingAt >= 0) {
      // a longer string cut from a text points into it, which the layout must not keep alive: the kept
      // value is a copy of its own, made once the line is seen a second time (most lines read once are
      // never matched)
      const from = p + this.pendingAt;
      this.lineValue = ownName(text.slice(from, from + this.pendingLength));
      this.pendingAt = -1;
    }
    return this.lineValue;
  }

  /**
   * Keeps the old-form line `codes[p, end)` (its name, this layout's last, through the end of its value)
   * whose value is the plain literal `value`, for the next ads of this kind: a line written the same is
   * then the same value without being read again, and equal values are one in memory. Kept a bounded
   * number of times per layout (lines that differ in every ad, such as a machine's name, stop being kept),
   * from the second ad of the kind on. A string value's characters start at `valueAt` (after its quote); `words` are `codes` as words
   * (char-codes.ts `wordsOf`), or null.
   */
  keepLine(
    codes: Uint16Array,
    words: Int32Array | null,
    p: number,
    end: number,
    value: SlotValue,
    valueAt: number,
  ): void {
    if (this.lineGeneration !== keptGeneration) {
      // the first ad of its kind (in this generation) to reach here keeps nothing: an ad whose kind is
      // read once (a cold read, an ad of its own) pays no copy; the next one's line is kept
      this.lineGeneration = keptGeneration;
      this.lineLength = -1;
      this.lineRoom = 0;
      this.lineCopies = 0;
      return;
    }
    if (end - p <= MAX_KEPT_LINE && this.lineCopies < MAX_LINE_COPIES)
      this.copyLine(codes, words, p, end, value, valueAt);
  }

  /** {@link keepLine}'s copy (apart, so that the checks before it are inlined where lines are read). */
  private copyLine(
    codes: Uint16Array,
    words: Int32Array | null,
    p: number,
    end: number,
    value: SlotValue,
    valueAt: number,
  ): void {
    const m = end - p;
    this.lineCopies++;
    // the copy starts at an index of p's parity, so that it is copied a word at a time, and its room
    // holds a unit more at each end (a word copied may reach one past the line)
    if (m + 2 > this.lineRoom) {
      const room = (m + 4) & ~1;
      if (keptTop + room > keptUnits.length) {
        if (keptUnits.length === 0) {
          keptUnits = new Uint16Array(KEPT_UNITS);
          keptWords = new Int32Array(keptUnits.buffer);
        } else {
          // full: every line kept so far is forgotten, and the room reused from its start
          forgetKeptLines();
          this.lineGeneration = keptGeneration;
          this.lineCopies = 1;
        }
      }
      this.lineBase = keptTop;
      this.lineRoom = room;
      keptTop += room;
    }
    const odd = p & 1;
    const at = this.lineBase + odd;
    this.lineAt = at;
    if (odd === 1) keptUnits[at] = codes[p];
    if (words === null) for (let i = odd; i < m; i++) keptUnits[at + i] = codes[p + i];
    else {
      const kw = keptWords;
      const from = (p + odd) >> 1;
      const to = (at + odd) >> 1;
      const nw = (m - odd + 1) >> 1;
      for (let j = 0; j < nw; j++) kw[to + j] = words[from + j];
    }
    this.lineLength = m;
    if (typeof value === "string" && value.length >= SLICED_MIN) {
      this.lineValue = "";
      this.pendingAt = valueAt - p;
      this.pendingLength = value.length;
    } else {
      this.lineValue = value;
      this.pendingAt = -1;
    }
  }

  /** The layout with `name` added last, or null when a name equal to it ignoring case is already here. */
  with(name: string): AdLayout | null {
    const hit = this.children?.get(name);
    if (hit !== undefined) return hit;
    const lc = name.toLowerCase();
    if (this.has(lc)) return null;
    if (++layoutCount > MAX_LAYOUTS) {
      AdLayout.EMPTY.children = null;
      AdLayout.EMPTY.lastChild = null;
      AdLayout.EMPTY.otherChild = null;
      layoutCount = 0;
    }
    const own = ownName(name);
    const child = new AdLayout(this, own, ownName(lc), this.size + 1);
    (this.children ??= new Map()).set(own, child);
    return child;
  }

  /** Whether an attribute named `lc` (lower case) is here, without building the index of a layout in the making. */
  private has(lc: string): boolean {
    if (this.lcIndex !== null) return this.lcIndex.has(lc);
    return AdLayout.chainHas(this, lc);
  }

  /** The lower-cased name → slot index map, built on first use. */
  get index(): Map<string, number> {
    if (this.lcIndex === null) {
      this.lcIndex = AdLayout.chainIndex(this);
    }
    return this.lcIndex;
  }

  /** Whether a layout of the tree, or one before it on its chain, added `lc`. */
  private static chainHas(from: AdLayout, lc: string): boolean {
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent)
      if (l.lc === lc) return true;
    return false;
  }

  /** The lower-cased name → slot map of a layout of the tree. */
  private static chainIndex(from: AdLayout): Map<string, number> {
    const m = new Map<string, number>();
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent)
      m.set(l.lc, l.size - 1);
    return m;
  }

  /** The names as written of a layout of the tree, in slot order. */
  private static chainNames(from: AdLayout): string[] {
    const out = new Array<string>(from.size);
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent)
      out[l.size - 1] = l.name;
    return out;
  }

  /** The slot of attribute `lc` (lower case), or -1. */
  slotOf(lc: string): number {
    return this.index.get(lc) ?? -1;
  }

  /** Names as written, in slot order. */
  get names(): readonly string[] {
    if (this.written === null) {
      this.written = AdLayout.chainNames(this);
    }
    return this.written;
  }
}

/** A ClassAd value: a layout, the slots (never modified once built, so ads may share them) and the lexical parent. */
export class ClassAd {
  constructor(
    readonly layout: AdLayout,
    readonly slots: readonly SlotValue[],
    readonly parent: ClassAd | null,
  ) {}

  /** Number of attributes. */
  get size(): number {
    return this.layout.size;
  }

  /** Whether the ad has attribute `lc` (lower case). */
  has(lc: string): boolean {
    return this.layout.slotOf(lc) >= 0;
  }

  /** The attribute with this lower-cased name, if any (a literal slot is given a compiled form here). */
  get(lc: string): Slot | undefined {
    const i = this.layout.slotOf(lc);
    return i < 0 ? undefined : this.slotAt(i);
  }

  /** The attribute in slot i. */
  slotAt(i: number): Slot {
    const s = this.slots[i];
    return { name: this.layout.names[i], c: s instanceof Compiled ? s : literal(s) };
  }

  /** Every attribute in order. */
  *entries(): IterableIterator<Slot> {
    for (let i = 0; i < this.slots.length; i++) yield this.slotAt(i);
  }
}

/** A compiled literal, for ads and lists built from values by functions. */
export function literal(v: Value): Compiled {
  return new Compiled(() => v, { k: "lit", v });
}

/** Ads with more attributes than this get a layout of their own (shared layouts are built name by name). */
export const SHARED_MAX = 256;
/** Work units each attribute of a layout of its own costs (see {@link layoutFor}). */
const STANDALONE_UNITS_PER_NAME = 8;

/**
 * The names of an ad being read, one attribute after another: followed along
 * the shared layouts while they hold them (no name cut out of the text), kept
 * as a list of their own once they cannot (a repeated name, a large ad).
 */
export class AdNamesReader {
  private layout: AdLayout | null = AdLayout.EMPTY;
  private names: string[] | null = null;

  /** Adds the name written at `text[start, end)`; `count` attributes were added before it. */
  add(text: string, start: number, end: number, count: number): void {
    if (this.layout !== null) {
      const grown = count < SHARED_MAX ? this.layout.withSpan(text, start, end) : null;
      if (grown !== null) {
        this.layout = grown;
        return;
      }
      this.names = [...this.layout.names];
      this.layout = null;
    }
    (this.names ??= []).push(text.slice(start, end));
  }

  /**
   * The layout the shared layouts expect next (the one the last ad read along this chain went on to),
   * or null; `count` attributes were added before it.
   */
  expectedNext(count: number): AdLayout | null {
    if (this.layout === null || count >= SHARED_MAX) return null;
    return this.layout.expected;
  }

  /** The shared layout of the names added so far, or null once they are kept as a list of their own. */
  get current(): AdLayout | null {
    return this.layout;
  }

  /** Adds the name of the layout {@link expectedNext} gave, which the caller found written in full. */
  addExpected(): void {
    this.layout = (this.layout as AdLayout).expected;
  }

  /** The ad of the names added and their `slots` (parallel). */
  ad(slots: SlotValue[]): ClassAd {
    const layout = this.layout ?? layoutFor(this.names ?? [], slots);
    return new ClassAd(layout, slots.slice(), null);
  }
}

/**
 * The layout of an ad with these names (parallel to `slots`, which it may
 * reorder): a later name equal to an earlier one ignoring case replaces it and
 * moves to the end, as the library's insert does.
 */
export function layoutFor(names: readonly string[], slots: SlotValue[]): AdLayout {
  if (names.length <= SHARED_MAX) {
    let layout: AdLayout | null = AdLayout.EMPTY;
    for (let i = 0; i < names.length && layout !== null; i++) layout = layout.with(names[i]);
    if (layout !== null) return layout;
  }
  // a layout of its own indexes every name (lower-cased, hashed): charged per attribute
  trySpend(STANDALONE_UNITS_PER_NAME * names.length);
  const m = new Map<string, [string, SlotValue]>();
  for (let i = 0; i < names.length; i++) {
    const lc = names[i].toLowerCase();
    m.delete(lc);
    m.set(lc, [names[i], slots[i]]);
  }
  const kept = [...m.values()];
  slots.length = 0;
  for (const [, s] of kept) slots.push(s);
  return AdLayout.standalone(kept.map(([n]) => n));
}

/** Builds an ad from attributes in order (later duplicate names win); `parent` is its lexical parent. */
export function adOf(
  entries: ReadonlyArray<readonly [string, SlotValue]>,
  parent: ClassAd | null = null,
): ClassAd {
  const slots = entries.map((e) => e[1]);
  const layout = layoutFor(
    entries.map((e) => e[0]),
    slots,
  );
  return new ClassAd(layout, slots, parent);
}

/** Builds an ad whose attributes are plain values (splitTime and friends). */
export function adFromValues(
  entries: ReadonlyArray<readonly [string, Value]>,
  parent: ClassAd | null = null,
): ClassAd {
  return adOf(entries, parent);
}

/** A new ad with no attributes. */
export function emptyAd(): ClassAd {
  return new ClassAd(AdLayout.EMPTY, [], null);
}

/** An ad with no attributes, used as the scope of values built by functions. */
export const EMPTY_AD = emptyAd();
