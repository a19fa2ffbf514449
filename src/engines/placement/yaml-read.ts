/**
 * Our own YAML reader for the YAML users give us (YuniKorn `queues.yaml`,
 * `*.test.yaml`): block and flow mappings and sequences, plain, quoted and
 * block scalars, comments, anchors and aliases, explicit keys, core tags, one
 * document. It reads the text once, front to back, so its work is linear in
 * the text; it recurses once per level of nesting and refuses to go deeper
 * than {@link MAX_YAML_DEPTH} levels, so no text can exhaust the stack. It
 * stops at the first syntax error, as Go's yaml.v3 does. Aliases are resolved
 * as they are read, to the last node anchored with their name before them.
 */
import {
  emptyScalar,
  LineIndex,
  plainIsString,
  resolvePlain,
  resolveTagged,
  type YamlMap,
  type YamlNode,
  type YamlPair,
  type YamlScalar,
  type YamlSeq,
} from "./yaml-node.js";
import { Cursor, isBlankOrEnd, isFlowIndicator, YamlSyntax } from "./yaml-scalar.js";
import { finish, SLICE_UNITS, type Steps } from "../common/slices.js";

/** How deeply a YAML text may nest collections. */
export const MAX_YAML_DEPTH = 100;

/** What reading a text gives: its root node, or where it stopped. */
export type YamlRead =
  | { ok: true; root: YamlNode; lines: LineIndex }
  | { ok: false; lines: LineIndex; syntax: { message: string; offset: number } }
  | { ok: false; lines: LineIndex; deep: number };

/** Reads a YAML text of one document into nodes (see the file's comment), nesting at most `maxDepth` collections; `quick` false reads without the quick paths (for tests that hold them to the general ones). */
export function readYamlText(source: string, maxDepth = MAX_YAML_DEPTH, quick = true): YamlRead {
  return finish(readYamlSteps(source, maxDepth, quick));
}

/** {@link readYamlText} as resumable work: it yields every SLICE_UNITS characters read (common/slices.ts). */
export function* readYamlSteps(source: string, maxDepth = MAX_YAML_DEPTH, quick = true): Steps<YamlRead> {
  const lines = new LineIndex(source);
  const reader = new Reader(source, maxDepth, quick);
  try {
    return { ok: true, root: yield* reader.document(), lines };
  } catch (e) {
    if (e instanceof TooDeep) return { ok: false, lines, deep: e.offset };
    if (e instanceof YamlSyntax)
      return { ok: false, lines, syntax: { message: e.message, offset: e.offset } };
    throw e;
  }
}

class TooDeep {
  constructor(readonly offset: number) {}
}

/** An anchor and a tag read before a node. */
interface Props {
  anchor?: string;
  tag?: string;
}

/** What a collection holds while it is read (nothing reads it before the collection closes). */
const NONE: never[] = [];

const CORE_TAGS = new Set(["str", "int", "float", "bool", "null", "map", "seq"]);

class Reader extends Cursor {
  private depth = 0;
  private readonly anchors = new Map<string, YamlNode>();
  /**
   * The entries of the collections being read, innermost last: a collection
   * takes its own as one array of their exact length when it closes (pushing
   * onto an empty array reserves room for 16 or more; most mappings have a few).
   */
  private readonly open: unknown[] = [];
  private top = 0;
  /** The offset past which the next checkpoint yields. */
  private nextSlice = SLICE_UNITS;

  /** Whether a slice of the text has been read since the last checkpoint (the caller then yields). */
  private due(): boolean {
    if (this.pos < this.nextSlice) return false;
    this.nextSlice = this.pos + SLICE_UNITS;
    return true;
  }

  /** Whether a flow collection (`[` or `{`) starts at the cursor. */
  private atFlowStart(): boolean {
    const c = this.at();
    return c === 91 || c === 123;
  }

  constructor(
    src: string,
    private readonly maxDepth: number,
    /** Whether the quick paths are taken (false only to test them against the general ones). */
    private readonly fast: boolean,
  ) {
    super(src);
  }

  /** The one document of the text. */
  *document(): Steps<YamlNode> {
    if (this.at() === 0xfeff) this.pos++;
    this.skipBlank();
    // directives (`%YAML 1.2`) say nothing a core-schema reader needs
    while (this.pos === this.lineStart && this.at() === 37) {
      const end = this.src.indexOf("\n", this.pos);
      this.pos = end === -1 ? this.src.length : end;
      this.skipBlank();
    }
    let root: YamlNode;
    if (this.atDocumentMarker() && this.at() === 45) {
      this.pos += 3;
      root = yield* this.blockValue(-1, false, true);
    } else if (Number.isNaN(this.at()) || this.atDocumentMarker()) root = emptyScalar(this.pos);
    else root = yield* this.blockValue(-1, false, true);
    this.skipBlank();
    if (this.atDocumentMarker() && this.at() === 46) {
      this.pos += 3;
      this.skipBlank();
    }
    if (!Number.isNaN(this.at())) {
      if (this.atDocumentMarker() || this.at() === 37)
        this.fail("the text holds more than one YAML document; give one");
      this.fail(
        this.pos === this.lineStart
          ? "unexpected text at the start of a line"
          : "unexpected text after a value",
      );
    }
    return root;
  }

  /** Skips spaces, comments and line breaks. */
  private skipBlank(): void {
    // most calls find a value's first character: nothing to skip
    const c = this.src.charCodeAt(this.pos);
    if (c !== 32 && c !== 9 && c !== 35 && c !== 10 && c !== 13) return;
    for (;;) {
      this.spaces();
      this.comment();
      if (!this.newline()) return;
    }
  }

  /** Fails unless only spaces lie before the cursor on its line (a value was followed by more text). */
  private atLineIndent(): void {
    for (let i = this.pos - 1; i >= this.lineStart; i--)
      if (this.src.charCodeAt(i) !== 32) this.fail("unexpected text after a value");
  }

  /** Whether the indicator `ch` (`-`, `?`, `:`) is at the cursor, followed by a blank. */
  private atIndicator(ch: number): boolean {
    return this.at() === ch && isBlankOrEnd(this.at(1));
  }

  /** Adds an entry to the innermost collection being read. */
  private add(entry: YamlNode | YamlPair): void {
    this.open[this.top++] = entry;
  }

  /** The entries added since `base`, as an array of their own, removed from the stack. */
  private close<T>(base: number): T[] {
    const out = this.open.slice(base, this.top) as T[];
    this.top = base;
    return out;
  }

  /** One level deeper, for a collection starting at `offset`. */
  private enter(offset: number): void {
    if (++this.depth > this.maxDepth) throw new TooDeep(offset);
  }

  /** `&anchor` and `!tag` before a node, in either order, with spaces after each. */
  private properties(): Props | null {
    let props: Props | null = null;
    for (;;) {
      const c = this.at();
      if (c !== 38 && c !== 33) return props;
      const start = this.pos++;
      while (!isBlankOrEnd(this.at()) && !isFlowIndicator(this.at())) this.pos++;
      const text = this.src.slice(start + 1, this.pos);
      props ??= {};
      if ((c === 38 ? props.anchor : props.tag) !== undefined)
        this.fail(`a node has two ${c === 38 ? "anchors" : "tags"}`, start);
      if (c === 38) {
        if (text === "") this.fail("an anchor needs a name", start);
        props.anchor = text;
      } else props.tag = coreTag(text);
      this.spaces();
    }
  }

  /** Gives a node its anchor (registered for later aliases) and checks its tag. */
  private withProps<T extends YamlNode>(node: T, props: Props | null, offset: number): T | YamlScalar {
    if (props === null) return node;
    let out: YamlNode = node;
    if (props.tag !== undefined) {
      if (node.kind === "scalar") {
        const typed =
          props.tag === "map" || props.tag === "seq" ? null : resolveTagged(props.tag, node.source);
        if (typed === null) this.fail(`the value \`${node.source}\` is not a !!${props.tag}`, offset);
        out = { ...node, ...typed };
      } else if (
        (props.tag === "map" && node.kind !== "map") ||
        (props.tag === "seq" && node.kind !== "seq") ||
        (props.tag !== "map" && props.tag !== "seq" && props.tag !== "" && node.kind !== "alias")
      )
        this.fail(`a ${node.kind === "map" ? "mapping" : "sequence"} cannot be a !!${props.tag}`, offset);
    }
    if (props.anchor !== undefined && out.kind !== "alias") {
      out.anchor = props.anchor;
      this.anchors.set(props.anchor, out);
    }
    return out as T | YamlScalar;
  }

  /**
   * The node after an indicator (`-`, `?`, `:`) or at the document's start,
   * held by a collection at column `parent`: on the same line, on the lines
   * below indented more (or a sequence at the same column where `seqAtParent`),
   * or a null scalar. `compact` allows a block collection on the same line.
   */
  private *blockValue(parent: number, seqAtParent: boolean, compact: boolean): Steps<YamlNode> {
    const start = this.pos;
    this.spaces();
    const propsAt = this.pos;
    const props = this.properties();
    this.comment();
    const c = this.at();
    if (c === 10 || c === 13 || Number.isNaN(c)) {
      this.skipBlank();
      const below =
        !Number.isNaN(this.at()) &&
        !this.atDocumentMarker() &&
        (this.column > parent || (seqAtParent && this.column === parent && this.atIndicator(45)));
      if (!below) return this.withProps(emptyScalar(start), props, propsAt);
      return yield* this.content(parent, props, true, true, this.column);
    }
    return yield* this.content(parent, props, false, compact, propsAt - this.lineStart);
  }

  /**
   * A node from its first character (after any properties on its line, given
   * as `props`, which start at column `startCol`; on a new line they belong to
   * a mapping the node starts, on the same line to the node itself).
   */
  private *content(
    parent: number,
    props: Props | null,
    newLine: boolean,
    compact: boolean,
    startCol: number,
  ): Steps<YamlNode> {
    // on a new line the node may have properties of its own: a mapping it starts takes the outer ones
    const own = newLine ? this.properties() : props;
    const merged = newLine ? this.merge(props, own) : props;
    if (newLine && own !== null) {
      this.comment();
      if (this.at() === 10 || this.at() === 13) {
        // properties alone on their line (at most twice, an anchor's and a tag's): the node is on the lines below
        this.skipBlank();
        const below = !Number.isNaN(this.at()) && !this.atDocumentMarker() && this.column > parent;
        return below
          ? yield* this.content(parent, merged, true, true, this.column)
          : this.withProps(emptyScalar(this.pos), merged, this.pos);
      }
    }
    const col = this.column;
    const c = this.at();
    if ((c === 45 || c === 63) && isBlankOrEnd(this.at(1))) {
      if (own !== null) this.fail("an anchor or a tag cannot stand before a block collection on its line");
      if (!compact)
        this.fail(`a block ${c === 45 ? "sequence" : "mapping"} cannot start on the line of a key`);
      return c === 45 ? yield* this.blockSeq(col, merged) : yield* this.blockMap(col, merged, null);
    }
    if (c === 124 || c === 62)
      return this.withProps(this.scalar(this.pos, this.blockScalar(parent), false), merged, this.pos);
    const nodeStart = this.pos;
    const node = this.atIndicator(58)
      ? this.withProps(emptyScalar(this.pos), own, this.pos)
      : this.atFlowStart()
        ? yield* this.flowCollection(own)
        : this.scalarOrAlias(own, false, false);
    this.spaces();
    if (this.atIndicator(58)) {
      if (!compact)
        this.fail("a mapping cannot start on the line of a key (nested mappings need a new line)");
      if (this.lineStart > nodeStart) this.fail("a key must be on one line", nodeStart);
      return yield* this.blockMap(startCol, newLine ? props : null, node);
    }
    return newLine ? this.withProps(node, props, nodeStart) : node;
  }

  /** The properties of two lines as one node's; a node has at most one anchor and one tag. */
  private merge(outer: Props | null, own: Props | null): Props | null {
    if (outer === null || own === null) return outer ?? own;
    if (outer.anchor !== undefined && own.anchor !== undefined) this.fail("a node has two anchors");
    if (outer.tag !== undefined && own.tag !== undefined) this.fail("a node has two tags");
    return { ...outer, ...own };
  }

  /** A scalar node: plain text typed by the core schema, other text a string. */
  private scalar(offset: number, source: string, plain: boolean): YamlScalar {
    if (!plain || plainIsString(source)) return { kind: "scalar", offset, source, type: "str", value: source };
    const typed = resolvePlain(source);
    return { kind: "scalar", offset, source, type: typed.type, value: typed.value };
  }

  /**
   * An alias, a quoted scalar or a plain scalar at the cursor, with `props`
   * read before it. In block context a plain scalar is first read to the
   * line's end: it may be a key; if it is not, it may go on over the lines
   * below. Synchronous, as most nodes are scalars (no generator made for each).
   */
  private scalarOrAlias(props: Props | null, flow: boolean, key: boolean): YamlNode {
    const start = this.pos;
    const c = this.at();
    if (c === 42) {
      this.pos++;
      while (!isBlankOrEnd(this.at()) && !isFlowIndicator(this.at())) this.pos++;
      const name = this.src.slice(start + 1, this.pos);
      if (name === "") this.fail("an alias needs a name", start);
      if (props !== null) this.fail("an alias cannot have an anchor or a tag", start);
      const target = this.anchors.get(name);
      const cyclic =
        target !== undefined && target.kind !== "scalar" && target.kind !== "alias" && target.open;
      return { kind: "alias", offset: start, name, target, cyclic };
    }
    if (c === 39 || c === 34) {
      const text = c === 39 ? this.singleQuoted() : this.doubleQuoted();
      return this.withProps(this.scalar(start, text, false), props, start);
    }
    if (Number.isNaN(c) || c === 10 || c === 13 || (flow && (isFlowIndicator(c) || c === 58)))
      return this.withProps(emptyScalar(start), props, start);
    const n = this.at(1);
    const indicator = c === 45 || c === 63 || c === 58;
    if (
      (indicator && (isBlankOrEnd(n) || (flow && isFlowIndicator(n)))) ||
      (!indicator && "[]{},#&*!|>'\"%@`".includes(this.src[this.pos]))
    )
      this.fail(`unexpected \`${this.src[this.pos]}\``);
    const lineStart = this.lineStart;
    let text = this.plain(-1, flow, !flow);
    if (!flow && !this.atIndicator(58)) {
      this.spaces();
      const e = this.at();
      if ((e === 10 || e === 13) && !key) {
        this.pos = start;
        this.lineStart = lineStart;
        text = this.plain(this.parentColumn, false, false);
        if (this.lineStart !== lineStart) {
          this.spaces();
          if (this.atIndicator(58))
            this.fail("a key must be on one line (a `: ` ends a plain scalar of several lines)");
        }
      } else if (!this.atIndicator(58) && e !== 35 && !Number.isNaN(e))
        this.fail("unexpected text after a value");
    }
    return this.withProps(this.scalar(start, text, true), props, start);
  }

  /** The column a multi-line plain scalar's lines must be indented past (set by the collection reading it). */
  private parentColumn = -1;

  /** A block sequence whose `-` indicators stand at column `col`. */
  private *blockSeq(col: number, props: Props | null): Steps<YamlNode> {
    const start = this.pos;
    this.enter(start);
    const seq: YamlSeq = { kind: "seq", offset: start, items: NONE, open: true };
    this.withProps(seq, props, start);
    const outer = this.parentColumn;
    this.parentColumn = col;
    const base = this.top;
    for (;;) {
      if (this.due()) yield;
      this.pos++;
      this.add(yield* this.blockValue(col, false, true));
      this.parentColumn = col;
      this.skipBlank();
      if (Number.isNaN(this.at()) || this.atDocumentMarker() || this.column < col) break;
      this.atLineIndent();
      if (this.column > col) this.fail("bad indentation of a sequence entry");
      if (!this.atIndicator(45)) break;
    }
    this.parentColumn = outer;
    seq.items = this.close(base);
    seq.open = false;
    this.depth--;
    return seq;
  }

  /** A block mapping whose keys stand at column `col`; `first` is its first key when already read. */
  private *blockMap(col: number, props: Props | null, first: YamlNode | null): Steps<YamlNode> {
    const start = first?.offset ?? this.pos;
    this.enter(start);
    const map: YamlMap = { kind: "map", offset: start, pairs: NONE, open: true };
    this.withProps(map, props, start);
    const outer = this.parentColumn;
    this.parentColumn = col;
    const base = this.top;
    let key = first;
    for (;;) {
      if (this.due()) yield;
      let pair: YamlPair;
      if (key === null && this.atIndicator(63)) {
        this.pos++;
        const k = yield* this.blockValue(col, false, true);
        this.parentColumn = col;
        this.skipBlank();
        const hasValue = !Number.isNaN(this.at()) && this.column === col && this.atIndicator(58);
        if (hasValue) this.pos++;
        pair = { key: k, value: hasValue ? yield* this.blockValue(col, true, true) : emptyScalar(this.pos) };
      } else {
        if (key === null) {
          if (this.atIndicator(45)) this.fail("a sequence entry where a mapping key was expected");
          const keyStart = this.pos;
          const keyProps = this.properties();
          key = this.atIndicator(58)
            ? this.withProps(emptyScalar(this.pos), keyProps, keyStart)
            : this.atFlowStart()
              ? yield* this.flowCollection(keyProps)
              : this.scalarOrAlias(keyProps, false, true);
          this.spaces();
          if (!this.atIndicator(58) || this.lineStart > keyStart)
            this.fail("a mapping key must be on one line, followed by `:`", keyStart);
        }
        this.pos++;
        pair = { key, value: yield* this.blockValue(col, true, false) };
      }
      this.add(pair);
      this.parentColumn = col;
      key = null;
      this.skipBlank();
      if (Number.isNaN(this.at()) || this.atDocumentMarker()) break;
      this.atLineIndent();
      if (this.column < col) break;
      if (this.column > col) this.fail("bad indentation of a mapping entry");
    }
    this.parentColumn = outer;
    map.pairs = this.close(base);
    map.open = false;
    this.depth--;
    return map;
  }

  /** A flow sequence `[…]` or mapping `{…}`; in a sequence, `k: v` is a mapping of one pair. */
  private *flowCollection(props: Props | null): Steps<YamlNode> {
    const start = this.pos;
    const isSeq = this.at() === 91;
    const close = isSeq ? 93 : 125;
    this.enter(start);
    const node: YamlSeq | YamlMap = isSeq
      ? { kind: "seq", offset: start, items: NONE, open: true }
      : { kind: "map", offset: start, pairs: NONE, open: true };
    this.withProps(node, props, start);
    this.pos++;
    const base = this.top;
    const src = this.src;
    for (;;) {
      if (this.due()) yield;
      this.skipBlank();
      let c = src.charCodeAt(this.pos);
      if (Number.isNaN(c))
        this.fail(`the flow ${isSeq ? "sequence" : "mapping"} misses its closing \`${isSeq ? "]" : "}"}\``);
      if (c === close) break;
      if (c === 44) this.fail(`an empty entry in a flow ${isSeq ? "sequence" : "mapping"}`);
      // one entry: a key and, when there is a `:`, its value (nodes read at once unless they are collections)
      const entryStart = this.pos;
      const explicit = this.atIndicator(63);
      if (explicit) {
        this.pos++;
        this.skipBlank();
      }
      const keyStart = this.pos;
      const key = this.flowLeaf() ?? (yield* this.flowCollection(this.takeFlowProps()));
      const jsonLike = key.kind !== "scalar" || src.charCodeAt(keyStart) === 34 || src.charCodeAt(keyStart) === 39;
      this.skipBlank();
      const n = src.charCodeAt(this.pos + 1);
      let value: YamlNode | undefined;
      if (src.charCodeAt(this.pos) === 58 && (isBlankOrEnd(n) || isFlowIndicator(n) || jsonLike)) {
        this.pos++;
        this.skipBlank();
        c = src.charCodeAt(this.pos);
        value =
          c === 44 || c === 93 || c === 125
            ? emptyScalar(this.pos)
            : (this.flowLeaf() ?? (yield* this.flowCollection(this.takeFlowProps())));
      } else if (explicit) value = emptyScalar(this.pos);
      if (!isSeq) this.add({ key, value: value ?? emptyScalar(this.pos) });
      else if (value === undefined) this.add(key);
      else {
        this.enter(entryStart);
        this.depth--;
        this.add({ kind: "map", offset: entryStart, pairs: [{ key, value }], open: false });
      }
      this.skipBlank();
      c = src.charCodeAt(this.pos);
      if (c === 44) {
        this.pos++;
        continue;
      }
      if (c === close) break;
      if (Number.isNaN(c)) continue;
      this.fail(`expected \`,\` or \`${isSeq ? "]" : "}"}\``);
    }
    this.pos++;
    if (node.kind === "map") node.pairs = this.close(base);
    else node.items = this.close(base);
    node.open = false;
    this.depth--;
    return node;
  }

  /** The properties read before a flow collection by {@link flowLeaf}, for the collection to take. */
  private flowProps: Props | null = null;

  /** Takes the properties {@link flowLeaf} left for a flow collection. */
  private takeFlowProps(): Props | null {
    const props = this.flowProps;
    this.flowProps = null;
    return props;
  }

  /**
   * A node inside a flow collection (properties, then its content; empty
   * before `,]}:`), read at once unless it is a flow collection: then null,
   * with its properties left in {@link flowProps}, for the caller to read it
   * resumably.
   */
  private flowLeaf(): YamlNode | null {
    if (this.fast) {
      const word = this.plainWord();
      if (word !== null) return word;
    }
    const props = this.properties();
    if (props !== null) this.skipBlank();
    if (this.atIndicator(45)) this.fail("a block sequence cannot be inside a flow collection");
    if (this.atFlowStart()) {
      this.flowProps = props;
      return null;
    }
    return this.scalarOrAlias(props, true, false);
  }

  /**
   * The quick path for the commonest plain scalar, a word (letters, digits and
   * `_.-/` from a letter, digit or `_`, matched in one native search) inside a
   * flow collection, followed by what must end it there: `,]}` or a `:` that is
   * an indicator. Null (nothing read) for anything else, which
   * {@link scalarOrAlias} reads; it would stop at the same place, as no word
   * character stops a plain scalar.
   */
  private plainWord(): YamlScalar | null {
    const start = this.pos;
    const src = this.src;
    WORD.lastIndex = start;
    if (!WORD.test(src)) return null;
    const end = WORD.lastIndex;
    const c = src.charCodeAt(end);
    if (c === 58) {
      const n = src.charCodeAt(end + 1);
      if (!isBlankOrEnd(n) && !isFlowIndicator(n)) return null;
    } else if (c !== 44 && c !== 93 && c !== 125) return null;
    this.pos = end;
    return this.scalar(start, src.slice(start, end), true);
  }
}

/** A plain word for {@link Reader.plainWord}: none of its characters can end a plain scalar or start an indicator. */
const WORD = /[A-Za-z0-9_][A-Za-z0-9_./-]*/y;

/** The core name of a tag (`!!int` → `int`, `!` and unknown tags → `` (a string)), or a failure for other core-looking tags. */
function coreTag(text: string): string {
  const name = text.startsWith("!")
    ? text.slice(1)
    : text.startsWith("<tag:yaml.org,2002:") && text.endsWith(">")
      ? text.slice(19, -1)
      : null;
  if (name !== null && CORE_TAGS.has(name)) return name;
  return "";
}
