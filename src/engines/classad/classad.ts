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
import { ERROR, Real, UNDEF, type Value } from "./values.js";
import { keepShape } from "../common/shapes.js";

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
 * Bytes of the kept lines (char-codes.ts: a text's bytes), one line after another, and a DataView of
 * them: a line is copied and compared eight bytes at a time (a typed-array loop costs V8 about as much
 * an iteration for one byte as a DataView read does for eight). Allocated on first use, bounded (when
 * full, every kept line is forgotten and the room reused).
 */
const KEPT_BYTES = 1 << 19;
let keptBytes = new Uint8Array(0);
let keptView = new DataView(keptBytes.buffer);
/** Where the next line's room starts in {@link keptBytes}. */
let keptTop = 0;

/** Forgets the line every layout keeps (the next ad of each kind reads all its lines; expr-cache.ts `clearExprCache`). */
export function forgetKeptLines(): void {
  keptGeneration++;
  keptTop = 0;
}

/**
 * The room the layouts' `Name = ` runs are written in ({@link AdLayout.valueStartIn}), as the eight-byte
 * words they are compared by, one run after another: the runs of a chain lie together, in the order its
 * lines are read, and its layouts share one array (a layout's own was a cache miss a line). A full room
 * is left to the layouts whose runs it holds (it lives as long as one of them), and a new one is begun;
 * a run longer than a room gets an array of its own.
 */
const NAME_ROOM_WORDS = 1 << 12;
const NO_WORDS = new Float64Array(0);
let nameRoom = NO_WORDS;
let nameTop = 0;
/** The bytes of one run, read back as words (runs are ASCII: a name's characters and ` = `). */
const runBytes = new Uint8Array(8 * 40);
const runView = new DataView(runBytes.buffer);

/**
 * Writes the run of `name` and ` = ` in {@link nameRoom} (begun anew when it lacks room) as the words
 * {@link AdLayout.valueStartIn} compares, and answers where they start: for a run of `m` bytes, eight or
 * more, the words at bytes 0, 8, … before `m - 8` and the one at `m - 8` (the last overlapping the one
 * before it), each the eight bytes as a double (never a NaN nor a zero: its bytes are ASCII characters,
 * so equal doubles are equal bytes). A run is eight bytes or more (shorter ones: {@link runWord}).
 */
function nameRunIn(name: string): number {
  const m = name.length + 3;
  let b = runBytes;
  let v = runView;
  if (m > b.length) {
    b = new Uint8Array(m);
    v = new DataView(b.buffer);
  }
  for (let i = 0; i < name.length; i++) b[i] = name.charCodeAt(i);
  b[m - 3] = 32;
  b[m - 2] = 61;
  b[m - 1] = 32;
  const size = (m + 7) >> 3;
  if (nameTop + size > nameRoom.length) {
    nameRoom = new Float64Array(Math.max(size, NAME_ROOM_WORDS));
    nameTop = 0;
  }
  const at = nameTop;
  for (let j = 0; j < size - 1; j++) nameRoom[at + j] = v.getFloat64(8 * j, true);
  nameRoom[at + size - 1] = v.getFloat64(m - 8, true);
  nameTop += size;
  return at;
}

/** The four bytes from `i` of the run of `name` and ` = ` as `getInt32` reads them (little-endian). */
function runWord(name: string, i: number): number {
  const run = name + " = ";
  return (
    run.charCodeAt(i) |
    (run.charCodeAt(i + 1) << 8) |
    (run.charCodeAt(i + 2) << 16) |
    (run.charCodeAt(i + 3) << 24)
  );
}

/** A name as the old long form writes one (the only names {@link AdLayout.valueStartIn} compares). */
const OLD_FORM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The run length of a layout whose name is no such name: longer than any text. */
const NEVER = 2 ** 30;

/**
 * Slots of the templates made since the tree was last cleared (see {@link AdLayout.adOf}): the tree keeps
 * them, so past {@link MAX_TEMPLATE_SLOTS} it is cleared as for {@link MAX_LAYOUTS} (the ads made keep
 * theirs). At most about 1.5 MB of arrays (a value, a position and a layout a slot) and 2.6 MB of strings
 * (of up to {@link MAX_TEMPLATE_STRING} characters).
 */
let templateSlots = 0;
const MAX_TEMPLATE_SLOTS = 1 << 16;
/** Longer strings are not kept in a template (the ads store them). */
const MAX_TEMPLATE_STRING = 24;
/**
 * Whether an ad's slot value is its template's: the same value, 0 and −0 told apart (typeof first:
 * a string's compare with 0 is a call).
 */
function sameSlot(v: SlotValue, w: SlotValue): boolean {
  return v === w && (typeof v !== "number" || v !== 0 || 1 / v === 1 / (w as number));
}

/**
 * Whether a template keeps `v` for the ads that share it: a value that is small and holds nothing else
 * (a boolean, a number, a short string, a real, UNDEFINED, ERROR). Expressions, lists and nested ads are
 * stored by each ad (an expression may hold its ad's text until first parsed; the cache shares them).
 */
function sharable(v: SlotValue): boolean {
  switch (typeof v) {
    case "boolean":
    case "number":
      return true;
    case "string":
      return v.length <= MAX_TEMPLATE_STRING;
    default:
      return v instanceof Real || v === UNDEF || v === ERROR;
  }
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
   * The words of the last name added and ` = ` (see {@link nameRunIn}), made on first use (see
   * {@link valueStartIn}) in a room shared with the layouts made before and after this one, from index
   * {@link nameAt}.
   */
  private nameWords: Float64Array = NO_WORDS;
  private nameAt = 0;
  /** The length of that run in bytes (the name's and 3; 0: not made yet; the layout's own field: the name string is not loaded). */
  private nameRun = 0;
  /** A run shorter than eight bytes: its first four bytes and its last four, as `getInt32` reads them. */
  private nameHead = 0;
  private nameTail = 0;
  /**
   * The line an ad read along this chain last had for this attribute (see {@link keepLine}): its length
   * in bytes (-1: none), where it starts in {@link keptBytes}, the room reserved for it there (reused by
   * the next line that fits), and its value.
   */
  private lineLength = -1;
  private lineAt = 0;
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
  /** The values the ads of this layout share (see {@link adOf}), or null until a second one is made. */
  private tpl: SlotTemplate | null = null;
  /** The {@link keptGeneration} an ad of this layout was last made in (through {@link adOf}). */
  private madeGeneration = -1;
  /**
   * As the node of its slot in a template's layout (see {@link SlotTemplate.nodes}): the last template
   * made along it, that template's value of this slot (undefined: its ads store the slot, or the node is
   * {@link tplContested}), and whether
   * the kept line's value is that same value. An ad all of whose shared slots were such kept lines needs
   * no compare in {@link adOf} ({@link AdNamesReader.addKept} counts them).
   */
  private tplValue: SlotValue | undefined = undefined;
  private tplOwner: SlotTemplate | null = null;
  /** Whether templates of two layouts of {@link tplOwner}'s generation pass here (see {@link claim}). */
  private tplContested = false;
  lineIsTpl = false;

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
   * Where the value of the line `Name = ` starts when the bytes `codes` (char-codes.ts, `view` a DataView
   * of them) hold it from `p` on, {@link lastName} followed by a blank, `=` and a blank as `condor_q -l`
   * writes every line: `p` plus the name's length plus 3, else -1 (any other spacing is read by the
   * caller's scan). The name and the ` = ` are compared as one run, eight bytes a step (the last step
   * overlapping the one before it), so the name's end and the `=` need no checks of their own.
   */
  valueStartIn(view: DataView, p: number, n: number): number {
    const m = this.nameRun === 0 ? this.makeNameWords() : this.nameRun;
    const end = p + m;
    if (end > n) return -1;
    const nw = this.nameWords;
    const k = this.nameAt;
    if (m < 8) {
      // four to seven bytes: the first four and the last four
      return view.getInt32(p, true) === this.nameHead && view.getInt32(end - 4, true) === this.nameTail
        ? end
        : -1;
    }
    const last = (m + 7) >> 3;
    let q = p;
    for (let j = 0; j < last - 1; j++, q += 8) if (nw[k + j] !== view.getFloat64(q, true)) return -1;
    return nw[k + last - 1] === view.getFloat64(end - 8, true) ? end : -1;
  }

  /** Makes {@link nameWords} (see {@link nameRunIn}) and answers the run's length. */
  private makeNameWords(): number {
    const m = this.name.length + 3;
    // a name the old form cannot write (from JSON, or quoted) is never found in an old-form line: its
    // characters' bytes are not its own
    if (!OLD_FORM_NAME.test(this.name)) {
      this.nameRun = NEVER;
      return NEVER;
    }
    if (m < 8) {
      this.nameHead = runWord(this.name, 0);
      this.nameTail = runWord(this.name, m - 4);
    } else {
      this.nameAt = nameRunIn(this.name);
      this.nameWords = nameRoom;
    }
    this.nameRun = m;
    return m;
  }

  /**
   * Where the line this layout keeps (see {@link keepLine}) ends when the bytes `codes` (`view` a DataView
   * of them) hold it from `p` on, up to a line feed or the text's end `n`: the index of that line feed (or
   * `n`), else -1.
   */
  keptLineEnd(codes: Uint8Array, view: DataView, p: number, n: number): number {
    const m = this.lineLength;
    if (m < 0 || this.lineGeneration !== keptGeneration || p + m > n) return -1;
    return this.keptLineEndAt(codes, view, p, m, n);
  }

  /** {@link keptLineEnd}'s compare (apart, so that the checks before it are inlined where lines are read). */
  private keptLineEndAt(codes: Uint8Array, view: DataView, p: number, m: number, n: number): number {
    const at = this.lineAt;
    const end = p + m;
    const kv = keptView;
    if (m >= 8) {
      // eight bytes a step, the last step overlapping the one before it (a line's bytes are ASCII, never
      // a NaN's or a zero's eight, so equal doubles are equal bytes)
      const last = m - 8;
      for (let i = 0; i < last; i += 8)
        if (kv.getFloat64(at + i, true) !== view.getFloat64(p + i, true)) return -1;
      if (kv.getFloat64(at + last, true) !== view.getFloat64(p + last, true)) return -1;
    } else for (let i = 0; i < m; i++) if (keptBytes[at + i] !== codes[p + i]) return -1;
    return end === n || codes[end] === 10 ? end : -1;
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
      this.lineIsTpl = Object.is(this.lineValue, this.tplValue);
    }
    return this.lineValue;
  }

  /**
   * Keeps the old-form line `codes[p, end)` (its name, this layout's last, through the end of its value)
   * whose value is the plain literal `value`, for the next ads of this kind: a line written the same is
   * then the same value without being read again, and equal values are one in memory. Kept a bounded
   * number of times per layout (lines that differ in every ad, such as a machine's name, stop being kept),
   * from the second ad of the kind on. A string value's characters start at `valueAt` (after its quote);
   * `codes` are an ASCII text's bytes (char-codes.ts; a text with other characters keeps no line: its
   * bytes do not tell them apart), `view` a DataView of them.
   */
  keepLine(
    codes: Uint8Array,
    view: DataView,
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
      this.copyLine(codes, view, p, end, value, valueAt);
  }

  /** {@link keepLine}'s copy (apart, so that the checks before it are inlined where lines are read). */
  private copyLine(
    codes: Uint8Array,
    view: DataView,
    p: number,
    end: number,
    value: SlotValue,
    valueAt: number,
  ): void {
    const m = end - p;
    this.lineCopies++;
    if (m > this.lineRoom) {
      const room = (m + 7) & ~7;
      if (keptTop + room > keptBytes.length) {
        if (keptBytes.length === 0) {
          keptBytes = new Uint8Array(KEPT_BYTES);
          keptView = new DataView(keptBytes.buffer);
        } else {
          // full: every line kept so far is forgotten, and the room reused from its start
          forgetKeptLines();
          this.lineGeneration = keptGeneration;
          this.lineCopies = 1;
        }
      }
      this.lineAt = keptTop;
      this.lineRoom = room;
      keptTop += room;
    }
    const at = this.lineAt;
    if (m >= 8) {
      // eight bytes a step (as doubles: a line's bytes are ASCII, never a NaN's), the last overlapping
      const kv = keptView;
      const last = m - 8;
      for (let i = 0; i < last; i += 8) kv.setFloat64(at + i, view.getFloat64(p + i, true), true);
      kv.setFloat64(at + last, view.getFloat64(p + last, true), true);
    } else for (let i = 0; i < m; i++) keptBytes[at + i] = codes[p + i];
    this.lineLength = m;
    if (typeof value === "string" && value.length >= SLICED_MIN) {
      this.lineValue = "";
      this.pendingAt = valueAt - p;
      this.pendingLength = value.length;
      this.lineIsTpl = false;
    } else {
      this.lineValue = value;
      this.pendingAt = -1;
      this.lineIsTpl = Object.is(value, this.tplValue);
    }
  }

  /** The layout with `name` added last, or null when a name equal to it ignoring case is already here. */
  with(name: string): AdLayout | null {
    const hit = this.children?.get(name);
    if (hit !== undefined) return hit;
    const lc = name.toLowerCase();
    if (this.has(lc)) return null;
    if (++layoutCount > MAX_LAYOUTS) AdLayout.clearTree();
    const own = ownName(name);
    const child = new AdLayout(this, own, ownName(lc), this.size + 1);
    (this.children ??= new Map()).set(own, child);
    return child;
  }

  /** Drops every layout of the tree (the ads made keep theirs): a new chain starts from the empty layout. */
  private static clearTree(): void {
    AdLayout.EMPTY.children = null;
    AdLayout.EMPTY.lastChild = null;
    AdLayout.EMPTY.otherChild = null;
    layoutCount = 0;
    templateSlots = 0;
  }

  /**
   * The ad of this layout with these slots (the reader's: copied, never kept): from the second ad of the
   * layout on, through the layout's template (see {@link SlotTemplate}), made from that second ad, so that
   * an ad stores only the slots its kind varies in.
   */
  adOf(slots: readonly SlotValue[], hits: number): ClassAd {
    const t = this.tpl;
    if (t === null || t.generation !== keptGeneration || slots.length !== this.size)
      return this.adBefore(slots);
    // every slot the ads share alone (see SlotTemplate.expect) was the kept line, its value the
    // template's: only the slots shared along the chain with another kind's template are compared
    if (hits !== t.expect) this.compare(t, slots);
    else if (t.checks.length !== 0) this.compareChecks(t, slots);
    return new ClassAd(this, slots, null, t);
  }

  /** Makes every slot of `t` where `slots` differ from its value one its ads store (see {@link adOf}). */
  private compare(t: SlotTemplate, slots: readonly SlotValue[]): void {
    const pos = t.pos;
    const values = t.values;
    for (let i = 0; i < slots.length; i++) {
      if (pos[i] !== SHARED_SLOT) continue;
      if (!sameSlot(slots[i], values[i])) AdLayout.vary(t, i);
    }
  }

  /** {@link compare} of the slots of `t`'s {@link SlotTemplate.checks} alone. */
  private compareChecks(t: SlotTemplate, slots: readonly SlotValue[]): void {
    const pos = t.pos;
    const values = t.values;
    const checks = t.checks;
    for (let k = 0; k < checks.length; k++) {
      const i = checks[k];
      if (pos[i] !== SHARED_SLOT) continue;
      if (!sameSlot(slots[i], values[i])) AdLayout.vary(t, i);
    }
  }

  /** Makes slot i of `t`, where an ad first differs from its value, one its ads store from now on. */
  private static vary(t: SlotTemplate, i: number): void {
    t.pos[i] = t.count++;
    t.varying.push(i);
    const node = t.nodes[i];
    if (node.tplOwner === t && !node.tplContested) {
      // its own slot: the kept line no longer speaks for the template
      t.expect--;
      node.tplValue = undefined;
      node.lineIsTpl = false;
    }
  }

  /** {@link adOf} with no template yet: the first ad keeps its own slots, the second makes the template. */
  private adBefore(slots: readonly SlotValue[]): ClassAd {
    // the first ad of a layout in a generation (a kind read once, a cold read) keeps its own slots, as
    // it keeps no line (see keepLine)
    if (this.madeGeneration !== keptGeneration || slots.length !== this.size || this.size === 0) {
      this.madeGeneration = keptGeneration;
      return new ClassAd(this, slots, null);
    }
    this.tpl = this.templateOf(slots);
    return this.adOf(slots, -1);
  }

  /** The template of this layout made from `slots` (apart: made once, kept out of the reader's inlined code). */
  private templateOf(slots: readonly SlotValue[]): SlotTemplate {
    if (templateSlots + slots.length > MAX_TEMPLATE_SLOTS) AdLayout.clearTree();
    templateSlots += slots.length;
    const n = slots.length;
    // both filled by push: packed arrays (their reads need no hole check)
    const values: SlotValue[] = [];
    const pos: number[] = [];
    const nodes = AdLayout.chainNodes(this);
    const t = new SlotTemplate(values, pos, nodes, keptGeneration);
    for (let i = 0; i < n; i++) {
      const v = slots[i];
      if (sharable(v)) {
        // a longer string may be a view into the text it was read from: the template keeps its own copy
        values.push(typeof v === "string" && v.length >= SLICED_MIN ? ownName(v) : v);
        pos.push(SHARED_SLOT);
      } else {
        values.push(UNDEF);
        pos.push(t.count++);
        t.varying.push(i);
      }
      AdLayout.claim(nodes[i], t, i);
    }
    return t;
  }

  /**
   * Makes `node`, slot i of the new template `t`'s chain, speak for `t` ({@link tplValue},
   * {@link lineIsTpl}), unless a template of another layout of this generation passes here too (a job's
   * and a machine's ads both start with `MyType` and `TargetType`; a shorter kind's chain is a longer
   * one's start): then it speaks for none, and each of them compares that slot itself
   * ({@link SlotTemplate.checks}). A template of an earlier generation is never used again: it gives the
   * node up.
   */
  private static claim(node: AdLayout, t: SlotTemplate, i: number): void {
    const o = node.tplOwner;
    if (o !== null && o.generation === t.generation) {
      if (!node.tplContested) {
        // the owner gives it up: its slot i is one it compares from now on
        o.checks.push(i);
        if (o.pos[i] === SHARED_SLOT) o.expect--;
        node.tplContested = true;
        node.tplValue = undefined;
        node.lineIsTpl = false;
      }
      node.tplOwner = t;
      t.checks.push(i);
      return;
    }
    node.tplOwner = t;
    node.tplContested = false;
    if (t.pos[i] === SHARED_SLOT) {
      node.tplValue = t.values[i];
      t.expect++;
    } else node.tplValue = undefined;
    node.lineIsTpl =
      node.lineGeneration === keptGeneration &&
      node.pendingAt < 0 &&
      Object.is(node.lineValue, node.tplValue);
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

  /** The layouts of a layout's chain, in slot order (slot i's added the name of slot i). */
  private static chainNodes(from: AdLayout): AdLayout[] {
    const out: AdLayout[] = [];
    for (let l: AdLayout | null = from; l !== null && l.parent !== null; l = l.parent) out.push(l);
    return out.reverse();
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

/** A template's position of a slot no ad of it stores (see {@link SlotTemplate}): beyond any ad's elements. */
const SHARED_SLOT = 0x3fffffff;

/**
 * The values most ads of one layout share (a pool's machines differ in their names, addresses and a few
 * numbers, and agree on the other forty-odd attributes), kept once for them: an ad made with a template
 * stores only the slots its kind has been seen to vary in (as its elements, {@link ClassAd}), and reads the others
 * here. `pos[i]` is slot i's index in an ad's elements, or {@link SHARED_SLOT}; a slot becomes one an ad
 * stores (the next index) when an ad differs from `values[i]` there, and never goes back, so an ad made
 * before that (its elements fewer than the new index) reads the value it agreed with here. A 100,000-
 * machine pool of the series' slot ads stores 13 of 55 slots an ad.
 */
export class SlotTemplate {
  /** How many slots an ad made now stores (the next slot to vary gets this index). */
  count = 0;
  /**
   * How many of its shared slots its chain's layouts speak for alone (their {@link AdLayout.lineIsTpl}
   * tell whether a kept line's value is this template's): an ad whose read counted as many such lines
   * needs only its {@link checks} compared.
   */
  expect = 0;
  /** The slots whose layouts another layout's template of its generation passes through too (see {@link AdLayout.adOf}). */
  readonly checks: number[] = [];
  /** The slots ads store, in their elements' order. */
  readonly varying: number[] = [];
  constructor(
    readonly values: SlotValue[],
    readonly pos: number[],
    /** The layouts of the template's chain, slot i's at i (see {@link AdLayout.adOf}). */
    readonly nodes: AdLayout[],
    /** The {@link keptGeneration} it was made in (a new generation makes a new template). */
    readonly generation: number,
  ) {}
}

/**
 * A ClassAd value: a layout, the slots (never modified once built) and the lexical parent. The ad is
 * itself the array of the slots it stores (an `Array` subclass, its elements allocated at their count
 * by the constructor): a machine's slot read loads the ad, then its elements, with no array object of
 * its own between them (the 32-byte `JSArray` every ad held until wt/scale7: half a line read a machine
 * in a match's pass over a pool). The array is an implementation detail: no code treats an ad as a
 * list (`Array.isArray` is used on JSON input only), and the array methods that make a new array make a
 * plain one (`Symbol.species`, below).
 */
export class ClassAd extends Array<SlotValue> {
  /** The names and each one's slot; ads of one kind share it. */
  declare readonly layout: AdLayout;
  /** The lexical parent (a nested ad's enclosing ad), or null. */
  declare readonly parent: ClassAd | null;
  /**
   * The values this ad shares with others of its layout (see {@link SlotTemplate}), or null: the ad's
   * elements hold every slot. With a template the elements are only the slots its kind varies in, in
   * the template's order ({@link SlotTemplate.varying} when the ad was made).
   */
  declare readonly tpl: SlotTemplate | null;

  /**
   * The ad of `layout` with `slots` (every slot, in order; copied, never kept); with a template, its
   * elements are the slots at the template's {@link SlotTemplate.varying} indices.
   */
  constructor(
    layout: AdLayout,
    slots: readonly SlotValue[],
    parent: ClassAd | null,
    tpl: SlotTemplate | null = null,
  ) {
    const varying = tpl === null ? null : tpl.varying;
    const n = varying === null ? slots.length : varying.length;
    // one elements kind for every ad (reads of their elements see one map): the first element written
    // is an object, so the array is one of any values from the start, never one of small integers or
    // of doubles; an ad that stores no slot gets that kind from one element dropped again
    super(n === 0 ? 1 : n);
    this[0] = UNDEF;
    if (n === 0) this.length = 0;
    else if (varying === null) for (let k = 0; k < n; k++) this[k] = slots[k];
    else for (let k = 0; k < n; k++) this[k] = slots[varying[k]];
    this.layout = layout;
    this.parent = parent;
    this.tpl = tpl;
  }

  /** Slot i (undefined past the last). */
  override at(i: number): SlotValue {
    const t = this.tpl;
    if (t === null) return i < this.length ? this[i] : (undefined as unknown as SlotValue);
    const p = t.pos[i];
    return p < this.length ? this[p] : t.values[i];
  }

  /** Every slot in order (a new array). */
  get slots(): readonly SlotValue[] {
    const out = new Array<SlotValue>(this.layout.size);
    for (let i = 0; i < out.length; i++) out[i] = this.at(i);
    return out;
  }

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
    const s = this.at(i);
    return { name: this.layout.names[i], c: s instanceof Compiled ? s : literal(s) };
  }

  /** Every attribute in order. */
  *attributes(): IterableIterator<Slot> {
    const n = this.layout.size;
    for (let i = 0; i < n; i++) yield this.slotAt(i);
  }
}

/**
 * `slice`, `map` and the like on an ad make a plain array, never an ad. A data property: as a static
 * getter in the class it made every ad's construction about 15 times dearer in V8 (docs/performance.md,
 * wt/scale7).
 */
Object.defineProperty(ClassAd, Symbol.species, { value: Array });

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
  /** This read's number (see {@link addKept}). */
  /** How many of its lines were a kept line whose value is a template's (see {@link AdLayout.adOf}). */
  private tplHits = 0;

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

  /** {@link addExpected} for a line that was that layout's kept line (its value the kept one). */
  addKept(): void {
    const next = (this.layout as AdLayout).expected as AdLayout;
    if (next.lineIsTpl) this.tplHits++;
    this.layout = next;
  }

  /** The ad of the names added and their `slots` (parallel). */
  ad(slots: SlotValue[]): ClassAd {
    const layout = this.layout;
    if (layout !== null) return layout.adOf(slots, this.tplHits);
    return new ClassAd(layoutFor(this.names ?? [], slots), slots, null);
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

/** An ad and a names reader kept alive so that their maps, and the optimized code that checks them, outlive each decision (common/shapes.ts). */
keepShape(new ClassAd(AdLayout.EMPTY, [], null));
keepShape(new AdNamesReader());
