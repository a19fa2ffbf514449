/**
 * The quick path of decoding a placement rule: a rule written plainly (known
 * keys, each once, with scalars, sequences of scalars and mappings where the
 * struct has them, no aliases) is read by a switch on each key, without the
 * general decoder's field lookups. Anything else, and so every rule that has an
 * error, gives null, and parse.ts decodes the rule the general way; both give
 * the same rule (yaml-quick.test.ts holds them to it).
 */
import type { RegexMemo } from "./filter.js";
import { FILTER_GROUP_RE, FILTER_USER_RE, SPECIAL_RE } from "./names.js";
import { shapeOfExpr, shapedInto, type ExprShape } from "./regex-shape.js";
import type { RawFilter, RawRule } from "./types.js";
import { LazyMap, type YamlNode, type YamlPair } from "./yaml-node.js";

/** How many parent rules deep the quick path goes; deeper chains are decoded the general way. */
const MAX_QUICK_PARENTS = 8;

/** Bits of the keys a mapping has had, to find a repeated one. */
const NAME = 1;
const CREATE = 2;
const FILTER = 4;
const PARENT = 8;
const VALUE = 16;
const TYPE = 32;
const USERS = 64;
const GROUPS = 128;

/** The text a string field takes from a value (null as ""), or null when it is not a scalar. */
function text(v: YamlNode): string | null {
  if (v.kind !== "scalar") return null;
  const value = v.value;
  return value === null ? "" : typeof value === "string" ? value : v.source;
}

/** Whether the value is a null scalar. */
function isNullScalar(v: YamlNode): boolean {
  return v.kind === "scalar" && v.value === null;
}

/** The key of a pair as a struct reads it when it is plain text, else null. */
function keyOf(pair: YamlPair): string | null {
  const k = pair.key;
  return k.kind === "scalar" && k.type === "str" ? (k.value as string) : null;
}

/** A `[]string` field: a sequence of scalars, or null (absent or null) as []; null for anything else. */
function texts(v: YamlNode): string[] | null {
  if (isNullScalar(v)) return [];
  if (v.kind !== "seq") return null;
  const items = v.items;
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const t = text(items[i]);
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

/** A rule's filter mapping, or null where the general path must decode it. */
function quickFilter(v: YamlNode): RawFilter | null {
  if (isNullScalar(v)) return { type: "", users: [], groups: [] };
  if (v.kind !== "map") return null;
  let type = "";
  let users: string[] | null = [];
  let groups: string[] | null = [];
  let seen = 0;
  for (const pair of v.pairs) {
    const key = keyOf(pair);
    let bit: number;
    switch (key) {
      case "type": {
        bit = TYPE;
        const t = text(pair.value);
        if (t === null) return null;
        type = t;
        break;
      }
      case "users":
        bit = USERS;
        users = texts(pair.value);
        if (users === null) return null;
        break;
      case "groups":
        bit = GROUPS;
        groups = texts(pair.value);
        if (groups === null) return null;
        break;
      default:
        return null;
    }
    if ((seen & bit) !== 0) return null;
    seen |= bit;
  }
  return { type, users, groups };
}

/**
 * A placement rule at pointer `at` decoded by the quick path, or null where
 * the general decoder must read it (see the file's comment).
 */
export function quickRule(v: YamlNode, at: string, parents = 0): RawRule | null {
  if (v instanceof LazyMap) return textRule(new RuleText(v.text.src, v.offset), at, parents);
  if (v.kind !== "map") return null;
  let name = "";
  let create = false;
  let filter: RawFilter = { type: "", users: [], groups: [] };
  let parent: RawRule | null = null;
  let value = "";
  let seen = 0;
  for (const pair of v.pairs) {
    const key = keyOf(pair);
    const val = pair.value;
    let bit: number;
    switch (key) {
      case "name": {
        bit = NAME;
        const t = text(val);
        if (t === null) return null;
        name = t;
        break;
      }
      case "create":
        bit = CREATE;
        if (val.kind !== "scalar" || (val.value !== null && typeof val.value !== "boolean")) return null;
        create = val.value === true;
        break;
      case "filter": {
        bit = FILTER;
        const f = quickFilter(val);
        if (f === null) return null;
        filter = f;
        break;
      }
      case "parent":
        bit = PARENT;
        if (!isNullScalar(val)) {
          if (parents >= MAX_QUICK_PARENTS) return null;
          parent = quickRule(val, `${at}/parent`, parents + 1);
          if (parent === null) return null;
        }
        break;
      case "value": {
        bit = VALUE;
        const t = text(val);
        if (t === null) return null;
        value = t;
        break;
      }
      default:
        return null;
    }
    if ((seen & bit) !== 0) return null;
    seen |= bit;
  }
  return { name, create, filter, parent, value, at };
}

/**
 * A lazy mapping's text (yaml-read-lazy.ts) read as a rule without its nodes:
 * its form is already checked, so each value's first character tells its
 * kind, and a scalar is a word (typed as the core schema types plain text) or
 * quoted text (a string) with nothing to unescape.
 */
class RuleText {
  /** When set, every string field's scalar read is recorded here (see {@link QuickRules}). */
  slots: Slot[] | null = null;

  constructor(
    readonly src: string,
    public pos: number,
  ) {}

  /** Skips spaces. */
  spaces(): void {
    while (this.src.charCodeAt(this.pos) === 32) this.pos++;
  }

  /** At an entry's key (after a `{` or a comma and the spaces after it): its text, the cursor then at its value. */
  key(): string {
    const src = this.src;
    const start = this.pos;
    const p = src.indexOf(":", start);
    this.pos = p + 1;
    this.spaces();
    return src.slice(start, p);
  }

  /** After a value: the spaces and comma that follow it; true when the collection closes there (the cursor then after its bracket). */
  next(): boolean {
    this.spaces();
    if (this.src.charCodeAt(this.pos) === 44) {
      this.pos++;
      this.spaces();
    }
    return this.closes();
  }

  /** After an opening bracket: skips the spaces; true when the collection is empty (the cursor then after its closing bracket). */
  open(): boolean {
    this.pos++;
    this.spaces();
    return this.closes();
  }

  /** Whether a `}` or `]` is at the cursor (then stepped over). */
  private closes(): boolean {
    const c = this.src.charCodeAt(this.pos);
    if (c !== 125 && c !== 93) return false;
    this.pos++;
    return true;
  }

  /** Whether the value at the cursor is a word (a plain scalar). */
  atWord(): boolean {
    const c = this.src.charCodeAt(this.pos);
    return c !== 34 && c !== 39 && c !== 91 && c !== 123;
  }

  /** The word at the cursor. */
  word(): string {
    const start = this.pos;
    WORD_REST.lastIndex = start;
    WORD_REST.test(this.src);
    this.pos = WORD_REST.lastIndex;
    return this.src.slice(start, this.pos);
  }

  /** The text a string field takes from the scalar at the cursor (a null word as ""), or null when the value is a collection. */
  text(field: number, depth: number, index = 0): string | null {
    const src = this.src;
    const start = this.pos;
    const c = src.charCodeAt(start);
    if (c === 91 || c === 123) return null;
    let out: string;
    if (c === 34 || c === 39) {
      const end = src.indexOf(c === 34 ? '"' : "'", start + 1);
      out = src.slice(start + 1, end);
      this.pos = end + 1;
    } else {
      const w = this.word();
      out = isNullWord(w) ? "" : w;
    }
    this.slots?.push({ field, depth, index, start, end: this.pos, quote: c === 34 || c === 39 ? c : 0 });
    return out;
  }

  /** Whether the value at the cursor is a null word (then read). */
  nullWord(): boolean {
    if (!this.atWord()) return false;
    const start = this.pos;
    if (isNullWord(this.word())) return true;
    this.pos = start;
    return false;
  }

  /** A `[]string` field at the cursor: a sequence's texts, a null word as []; null for anything else. */
  texts(field: number, depth: number): string[] | null {
    const out: string[] = [];
    if (this.src.charCodeAt(this.pos) !== 91) return this.nullWord() ? out : null;
    if (this.open()) return out;
    do {
      const t = this.text(field, depth, out.length);
      if (t === null) return null;
      out.push(t);
    } while (!this.next());
    return out;
  }
}

/** The characters of a word (see yaml-read-lazy.ts), found by one native search. */
const WORD_REST = /[A-Za-z0-9_./-]*/y;

/** Whether a word is a null plain scalar (`null`, `Null`, `NULL`; the core schema's other nulls are not words). */
function isNullWord(w: string): boolean {
  return w.length === 4 && (w === "null" || w === "Null" || w === "NULL");
}

/** A boolean word's value, or null for any other word. */
function boolWord(w: string): boolean | null {
  switch (w) {
    case "true":
    case "True":
    case "TRUE":
      return true;
    case "false":
    case "False":
    case "FALSE":
      return false;
    default:
      return null;
  }
}

/** {@link quickFilter} of the value at the cursor. */
function textFilter(t: RuleText, depth: number): RawFilter | null {
  if (t.src.charCodeAt(t.pos) !== 123) return t.nullWord() ? { type: "", users: [], groups: [] } : null;
  let type = "";
  let users: string[] | null = [];
  let groups: string[] | null = [];
  let seen = 0;
  if (!t.open())
    do {
      let bit: number;
      switch (t.key()) {
        case "type": {
          bit = TYPE;
          const v = t.text(F_TYPE, depth);
          if (v === null) return null;
          type = v;
          break;
        }
        case "users":
          bit = USERS;
          users = t.texts(F_USERS, depth);
          if (users === null) return null;
          break;
        case "groups":
          bit = GROUPS;
          groups = t.texts(F_GROUPS, depth);
          if (groups === null) return null;
          break;
        default:
          return null;
      }
      if ((seen & bit) !== 0) return null;
      seen |= bit;
    } while (!t.next());
  return { type, users, groups };
}

/** {@link quickRule} of the mapping at the cursor, read from its text (see {@link RuleText}). */
function textRule(t: RuleText, at: string, parents: number): RawRule | null {
  let name = "";
  let create = false;
  let filter: RawFilter = { type: "", users: [], groups: [] };
  let parent: RawRule | null = null;
  let value = "";
  let seen = 0;
  if (!t.open())
    do {
      let bit: number;
      switch (t.key()) {
        case "name": {
          bit = NAME;
          const v = t.text(F_NAME, parents);
          if (v === null) return null;
          name = v;
          break;
        }
        case "create": {
          bit = CREATE;
          if (!t.atWord()) return null;
          const w = t.word();
          const b = boolWord(w);
          if (b === null && !isNullWord(w)) return null;
          create = b === true;
          break;
        }
        case "filter": {
          bit = FILTER;
          const f = textFilter(t, parents);
          if (f === null) return null;
          filter = f;
          break;
        }
        case "parent":
          bit = PARENT;
          if (!t.nullWord()) {
            if (t.src.charCodeAt(t.pos) !== 123 || parents >= MAX_QUICK_PARENTS) return null;
            parent = textRule(t, `${at}/parent`, parents + 1);
            if (parent === null) return null;
          }
          break;
        case "value": {
          bit = VALUE;
          const v = t.text(F_VALUE, parents);
          if (v === null) return null;
          value = v;
          break;
        }
        default:
          return null;
      }
      if ((seen & bit) !== 0) return null;
      seen |= bit;
    } while (!t.next());
  return { name, create, filter, parent, value, at };
}

/** The string fields a {@link Slot} fills. */
const F_NAME = 0;
const F_VALUE = 1;
const F_TYPE = 2;
const F_USERS = 3;
const F_GROUPS = 4;

/** A string field's scalar in a rule's text: which field of which rule in the parent chain (and which entry of a list), and where it was written. */
interface Slot {
  field: number;
  depth: number;
  index: number;
  start: number;
  end: number;
  /** The quote around it (`"` or `'`), or 0 for a word. */
  quote: number;
}

/** A shape of rule text: the text of one rule with each string field's scalar a capture, and the rule it decoded to. */
interface Shape {
  src: string;
  /** The shape's pattern, every string field's scalar a capture. */
  all: Reading;
  /** The pattern of its first rule's twins: the names, values and types written as the first rule has them, the rest captured; null when no rule can be a twin. */
  twins: Reading | null;
  slots: Slot[];
  template: RawRule;
  /** The filter lists of one quoted entry, whose expressions are read once per {@link ExprShape}. */
  exprs: ShapedSlot[];
  /** The index in its list of the rule the shape was taken from, or -1 when not known (then no rule is its twin). */
  first: number;
  /** The one-entry lists' slots, each with the twin pattern's capture for it, which a twin's entry must pass (see {@link isTwin}). */
  singles: Single[];
}

/** A shape's pattern and, per capture, the slot it fills. */
interface Reading {
  re: RegExp;
  /** `caps[k]` is the slot capture k + 1 fills. */
  caps: number[];
  /** Per entry of {@link Shape.exprs}, the capture of its slot. */
  exprCaps: number[];
}

/** The entry of a one-entry users or groups list in a shape (see {@link isTwin}). */
interface Single {
  /** Its capture in the twin pattern. */
  cap: number;
  /** Its slot. */
  slot: number;
  /** Whether it is a users list (else groups). */
  users: boolean;
  /** The first rule's text there. */
  text: string;
}

/**
 * Rules that validate as an earlier rule of the same list does, found while
 * decoding (issue 31 goal 4, the cold compile): keyed by a partition's list of
 * rules, per rule the index of that earlier rule, or -1 (the array may be
 * shorter than the list: -1 past its end). Validation (validate.ts) takes
 * such a rule's verdict from the earlier one wherever that one passed, and the
 * rule build (compile.ts) its kind, value and flags, building only its filter.
 *
 * Why the verdict is the same. A twin is a rule of a shape (see
 * {@link QuickRules}) decoded by {@link fill}, and the earlier rule is the
 * one the shape was taken from: the two have the same keys, parent chain,
 * booleans and list lengths, and differ only in scalars. The twin has the
 * first rule's names, values and filter types (checked here, text for text),
 * so every check that reads those (the rule names, the filter types, the
 * static path and its queues, the rule kind, the fixed and tag values) reads
 * the same texts and answers the same. Validation reads a filter's entries
 * only when its list has one: there the twin's entry is the first rule's
 * text, or an entry that validation accepts whatever it reads: one that
 * SPECIAL_RE finds and the compile's regex memo holds as a valid expression
 * (regex-shape.ts put it there with `inspectPattern`'s answer) or one that
 * SPECIAL_RE does not find and the list's name pattern takes
 * (`singleEntryProblem` gives null for both). So where the first rule got no
 * error, the twin gets none. A rule's filter lists are built from its own
 * entries, always.
 */
export const RULE_TWINS = new WeakMap<readonly RawRule[], readonly number[]>();

/** A users or groups list of one quoted entry in a shape, and the expression shapes its entries took (regex-shape.ts). */
interface ShapedSlot {
  /** The slot's index in {@link Shape.slots}. */
  slot: number;
  shapes: ExprShape[];
  /** Expressions read for a shape so far (at most {@link MAX_EXPR_TRIES}, shared or not). */
  tries: number;
}

/** How many expressions one list of a shape reads for an expression shape (one per length of what varies, mostly). */
const MAX_EXPR_TRIES = 8;

/** How many shapes one compile keeps: a rule of none of them is read by {@link textRule}. */
const MAX_SHAPES = 4;

/** One punctuation character of a shape's fixed text, with the spaces the lazy form allows around it. */
const PUNCTUATION = /[{}[\],:]/g;

/** A shape's fixed text as a pattern: its words as they are, its punctuation with any spaces around it. */
function fixedPattern(text: string): string {
  return text.replaceAll(" ", "").replace(PUNCTUATION, (c) => ` *\\${c} *`);
}

/** A rule with the same fields as `r`, at `at` (the lists copied). */
function copyRule(r: RawRule, at: string): RawRule {
  return {
    name: r.name,
    create: r.create,
    filter: { type: r.filter.type, users: r.filter.users.slice(), groups: r.filter.groups.slice() },
    parent: r.parent === null ? null : copyRule(r.parent, `${at}/parent`),
    value: r.value,
    at,
  };
}

/**
 * The quick decoder of one compile's rules (see {@link quickRule}) that also
 * keeps the shapes of the lazily read rules it decoded: rules written alike
 * (the same keys, punctuation, lists of the same lengths and the same
 * booleans and nulls, only their names, values, types and list entries
 * different) are decoded by one native search of their shape's pattern,
 * whose captures are put into a copy of the first such rule. A text that
 * matches a shape has the lazy form and the shape's keys and structure, so
 * it decodes as the shape's first rule did with its own scalars (each a
 * string field's text: a null word as "", other text as it is).
 */
export class QuickRules {
  private readonly shapes: Shape[] = [];

  /** Per rule of the list, by index, the earlier rule it is a twin of, or -1 (see {@link RULE_TWINS}). */
  readonly twins: number[] = [];

  /** `memo`: the compile's expressions (filter.ts RegexMemo), where a rule shape's expressions read once per expression shape are put. */
  constructor(private readonly memo: RegexMemo) {}

  /** {@link quickRule} for a rule at pointer `at`, the list's rule number `index` (-1: none, then no twins are found). */
  rule(v: YamlNode, at: string, index = -1): RawRule | null {
    if (!(v instanceof LazyMap)) return quickRule(v, at);
    const src = v.text.src;
    for (const shape of this.shapes) {
      if (shape.src !== src) continue;
      const twins = shape.twins;
      if (twins !== null && index > shape.first) {
        twins.re.lastIndex = v.offset;
        const m = twins.re.exec(src);
        if (m !== null) {
          const r = fill(shape, twins, m, at, this.memo);
          if (isTwin(shape, m, this.memo)) {
            const found = this.twins;
            while (found.length < index) found.push(-1);
            found.push(shape.first);
          }
          return r;
        }
      }
      const all = shape.all;
      all.re.lastIndex = v.offset;
      const m = all.re.exec(src);
      if (m !== null) return fill(shape, all, m, at, this.memo);
    }
    const t = new RuleText(src, v.offset);
    const record = this.shapes.length < MAX_SHAPES;
    if (record) t.slots = [];
    const r = textRule(t, at, 0);
    if (r !== null && record) this.shapes.push(shapeOf(src, v.offset, t.pos, t.slots!, r, index));
    return r;
  }
}

/**
 * Whether the rule of `shape` whose text matched its twin pattern (`m`; the
 * rule filled, its expressions put in the memo) is a twin of the shape's first
 * rule: each one-entry list holds the first rule's text or an entry
 * validation accepts as it stands (see {@link RULE_TWINS}).
 */
function isTwin(shape: Shape, m: RegExpExecArray, memo: RegexMemo): boolean {
  const singles = shape.singles;
  for (let i = 0; i < singles.length; i++) {
    const one = singles[i];
    const captured = m[one.cap];
    const text = shape.slots[one.slot].quote === 0 && isNullWord(captured) ? "" : captured;
    if (text === one.text) continue;
    if (SPECIAL_RE.test(text)) {
      const known = memo.get(text);
      if (known === undefined || !known.ok) return false;
    } else if (!(one.users ? FILTER_USER_RE : FILTER_GROUP_RE).test(text)) return false;
  }
  return true;
}

/** The shape of the rule text from `start` to `end` that decoded to `r`, its scalars read at `slots`. */
function shapeOf(src: string, start: number, end: number, slots: Slot[], r: RawRule, first: number): Shape {
  // per slot, the first rule's text there, and whether a twin has it as it is (a name, value or type)
  const fixed: boolean[] = [];
  const singles: Single[] = [];
  const exprs: ShapedSlot[] = [];
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    let at = r;
    for (let d = 0; d < s.depth; d++) at = at.parent!;
    const list = s.field === F_USERS ? at.filter.users : s.field === F_GROUPS ? at.filter.groups : null;
    fixed.push(list === null);
    if (list !== null && list.length === 1) {
      singles.push({ cap: 0, slot: i, users: s.field === F_USERS, text: list[0] });
      if (s.quote !== 0) exprs.push({ slot: i, shapes: [], tries: 0 });
    }
  }
  const all = readingOf(src, start, end, slots, () => false, exprs);
  const twins = first < 0 ? null : readingOf(src, start, end, slots, (i) => fixed[i], exprs);
  if (twins !== null) for (const one of singles) one.cap = twins.caps.indexOf(one.slot) + 1;
  return { src, all, twins, slots, template: copyRule(r, r.at), exprs, first, singles };
}

/** A shape's pattern (see {@link Reading}): the slots `literal` tells written as the first rule has them, the others captured. */
function readingOf(
  src: string,
  start: number,
  end: number,
  slots: Slot[],
  literal: (slot: number) => boolean,
  exprs: ShapedSlot[],
): Reading {
  let pattern = "";
  let p = start;
  const caps: number[] = [];
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    pattern += fixedPattern(src.slice(p, s.start));
    if (literal(i)) pattern += src.slice(s.start, s.end).replace(REGEX_SPECIAL, "\\$&");
    else {
      caps.push(i);
      pattern +=
        s.quote === 34
          ? '"([^"\\\\\\r\\n]*)"'
          : s.quote === 39
            ? "'([^'\\r\\n]*)'"
            : "([A-Za-z0-9_][A-Za-z0-9_./-]*)";
    }
    p = s.end;
  }
  pattern += fixedPattern(src.slice(p, end));
  return {
    re: new RegExp(pattern.replace(/(?: \*)+/g, " *"), "y"),
    caps,
    exprCaps: exprs.map((e) => caps.indexOf(e.slot) + 1),
  };
}

/** A character a pattern must escape to match it as itself. */
const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|/]/g;

/** The rule a text of `shape` decodes to, its scalars captured in `m`. */
function fill(shape: Shape, reading: Reading, m: RegExpExecArray, at: string, memo: RegexMemo): RawRule {
  const out = copyRule(shape.template, at);
  const slots = shape.slots;
  const caps = reading.caps;
  for (let k = 0; k < caps.length; k++) {
    const s = slots[caps[k]];
    const captured = m[k + 1];
    const text = s.quote === 0 && isNullWord(captured) ? "" : captured;
    let r = out;
    for (let d = 0; d < s.depth; d++) r = r.parent!;
    switch (s.field) {
      case F_NAME:
        r.name = text;
        break;
      case F_VALUE:
        r.value = text;
        break;
      case F_TYPE:
        r.filter.type = text;
        break;
      case F_USERS:
        r.filter.users[s.index] = text;
        break;
      default:
        r.filter.groups[s.index] = text;
    }
  }
  const exprs = shape.exprs;
  const exprCaps = reading.exprCaps;
  for (let k = 0; k < exprs.length; k++) {
    const expr = m[exprCaps[k]];
    if (!memo.has(expr)) shapedIn(exprs[k], expr, memo);
  }
  return out;
}

/** Puts `expr` into the memo with the answer of one of the slot's expression shapes (a new one made while tries last), if one takes it. */
function shapedIn(e: ShapedSlot, expr: string, memo: RegexMemo): void {
  const shapes = e.shapes;
  for (let i = 0; i < shapes.length; i++) if (shapedInto(shapes[i], expr, memo)) return;
  if (e.tries >= MAX_EXPR_TRIES) return;
  e.tries++;
  const shape = shapeOfExpr(expr);
  if (shape === null) return;
  shapes.push(shape);
  shapedInto(shape, expr, memo);
}
