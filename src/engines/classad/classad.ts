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
import { unitPairs } from "./char-codes.js";
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
  /** The code units of the last name added, made on first use (see {@link lastNameCodes}). */
  private nameCodes: number[] | null = null;
  /** The code units of the line an ad read along this chain last had for this attribute, and its value (see {@link keepLine}). */
  private line: number[] | null = null;
  private lineValue: SlotValue = false;
  /** {@link line}'s units as words (char-codes.ts `unitPairs`), from its first unit and from its second. */
  private evenPairs: Int32Array | null = null;
  private oddPairs: Int32Array | null = null;
  /** How many times a line replaced {@link line} (bounded: see {@link keepLine}). */
  private lineCopies = 0;

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
    if (last !== null && last.name.length === end - start) {
      // compared char by char: startsWith at an offset is a builtin call that costs more than a short name
      const name = last.name;
      let i = 0;
      while (i < name.length && name.charCodeAt(i) === src.charCodeAt(start + i)) i++;
      if (i === name.length) return last;
    }
    const child = this.with(src.slice(start, end));
    if (child !== null) this.lastChild = child;
    return child;
  }

  /** The child {@link withSpan} handed out last: the layout ads of this kind went on to, or null. */
  get expected(): AdLayout | null {
    return this.lastChild;
  }

  /** The name this layout added last, as written. */
  get lastName(): string {
    return this.name;
  }

  /** The code units of {@link lastName}, for comparing it with a text's code units in place. */
  get lastNameCodes(): number[] {
    if (this.nameCodes === null) {
      const codes: number[] = [];
      for (let i = 0; i < this.name.length; i++) codes.push(this.name.charCodeAt(i));
      this.nameCodes = codes;
    }
    return this.nameCodes;
  }

  /**
   * Where the line this layout keeps (see {@link keepLine}) ends when `codes` hold it from `p` on, up to
   * a line feed or the text's end `n`: the index of that line feed (or `n`), else -1.
   */
  keptLineEnd(codes: Uint16Array, words: Int32Array | null, p: number, n: number): number {
    const kept = this.line;
    if (kept === null) return -1;
    const m = kept.length;
    if (p + m > n) return -1;
    let i = 0;
    if (words !== null) {
      // two code units a word (wordsOf): an odd start compares its first unit alone
      if ((p & 1) === 1) {
        if (kept[0] !== codes[p]) return -1;
        i = 1;
      }
      const pairs = (i === 0 ? this.evenPairs : this.oddPairs) as Int32Array;
      const w = (p + i) >> 1;
      const np = pairs.length;
      let j = 0;
      while (j < np && pairs[j] === words[w + j]) j++;
      if (j < np) return -1;
      i += 2 * np;
    }
    while (i < m && kept[i] === codes[p + i]) i++;
    return i === m && (p + m === n || codes[p + m] === 10) ? p + m : -1;
  }

  /** The value of the line {@link keptLineEnd} found. */
  get keptValue(): SlotValue {
    return this.lineValue;
  }

  /**
   * Keeps the old-form line `codes[p, end)` (its name, this layout's last, through the end of its value)
   * whose value is the plain literal `value`, for the next ads of this kind: a line written the same is
   * then the same value without being read again, and equal values are one in memory. Kept a bounded
   * number of times per layout (lines that differ in every ad, such as a machine's name, stop being kept).
   */
  keepLine(codes: Uint16Array, p: number, end: number, value: SlotValue): void {
    if (end - p > MAX_KEPT_LINE || this.lineCopies >= MAX_LINE_COPIES) return;
    this.lineCopies++;
    const kept: number[] = [];
    for (let i = p; i < end; i++) kept.push(codes[i]);
    this.line = kept;
    this.evenPairs = unitPairs(kept, 0);
    this.oddPairs = unitPairs(kept, 1);
    // a longer string cut from a text points into it, which the layout must not keep alive
    this.lineValue = typeof value === "string" && value.length >= SLICED_MIN ? ownName(value) : value;
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
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent) if (l.lc === lc) return true;
    return false;
  }

  /** The lower-cased name → slot map of a layout of the tree. */
  private static chainIndex(from: AdLayout): Map<string, number> {
    const m = new Map<string, number>();
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent) m.set(l.lc, l.size - 1);
    return m;
  }

  /** The names as written of a layout of the tree, in slot order. */
  private static chainNames(from: AdLayout): string[] {
    const out = new Array<string>(from.size);
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent) out[l.size - 1] = l.name;
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
    return new ClassAd(this.layout ?? layoutFor(this.names ?? [], slots), slots, null);
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
export function adOf(entries: ReadonlyArray<readonly [string, SlotValue]>, parent: ClassAd | null = null): ClassAd {
  const slots = entries.map((e) => e[1]);
  const layout = layoutFor(
    entries.map((e) => e[0]),
    slots,
  );
  return new ClassAd(layout, slots, parent);
}

/** Builds an ad whose attributes are plain values (splitTime and friends). */
export function adFromValues(entries: ReadonlyArray<readonly [string, Value]>, parent: ClassAd | null = null): ClassAd {
  return adOf(entries, parent);
}

/** A new ad with no attributes. */
export function emptyAd(): ClassAd {
  return new ClassAd(AdLayout.EMPTY, [], null);
}

/** An ad with no attributes, used as the scope of values built by functions. */
export const EMPTY_AD = emptyAd();
