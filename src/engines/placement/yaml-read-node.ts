/**
 * The node level of our YAML reader (yaml-read.ts): the state every stage
 * shares (depth, anchors, the entries of the collections being read, the
 * slice checkpoints), properties (`&anchor`, `!tag`), and the nodes read at
 * once: scalars and aliases. Collections are read by frames (a frame is one
 * collection being read, resumed when a nested collection closes), flow ones
 * in yaml-read-flow.ts and block ones in yaml-read-block.ts, so that the
 * reader needs no generator per level of nesting.
 */
import {
  emptyScalar,
  plainIsString,
  resolvePlain,
  resolveTagged,
  type YamlMap,
  type YamlNode,
  type YamlPair,
  type YamlScalar,
  type YamlSeq,
} from "./yaml-node.js";
import { Cursor, isBlankOrEnd, isFlowIndicator } from "./yaml-scalar.js";
import { SLICE_UNITS } from "../common/slices.js";

/** Thrown where the text nests collections deeper than the reader allows. */
export class TooDeep {
  constructor(readonly offset: number) {}
}

/** An anchor and a tag read before a node. */
export interface Props {
  anchor?: string;
  tag?: string;
}

/** A collection being read: its kind of frame and the point its reading has reached. */
export abstract class Frame {
  /** The point in the frame's loop at which it resumes (each frame kind numbers its own). */
  phase = 0;
}

/** What a frame's step gives when a slice of the text has been read: the driver yields, then resumes the frame. */
export const PAUSE: unique symbol = Symbol("pause");

/** What one step of a frame gives: its finished node, a nested frame to read first, or a pause. */
export type StepResult = YamlNode | Frame | typeof PAUSE;

/** What a collection holds while it is read (nothing reads it before the collection closes). */
export const NONE: never[] = [];

const CORE_TAGS = new Set(["str", "int", "float", "bool", "null", "map", "seq"]);

/** The shared state of the reader, properties, scalars and aliases (see the file's comment). */
export class NodeReader extends Cursor {
  protected depth = 0;
  private readonly anchors = new Map<string, YamlNode>();
  /**
   * The entries of the collections being read, innermost last: a collection
   * takes its own as one array of their exact length when it closes (pushing
   * onto an empty array reserves room for 16 or more; most mappings have a few).
   */
  private readonly open: unknown[] = [];
  protected top = 0;
  /** The offset past which the next checkpoint yields. */
  private nextSlice = SLICE_UNITS;
  /** The column a multi-line plain scalar's lines must be indented past (set by the collection reading it). */
  protected parentColumn = -1;

  constructor(
    src: string,
    protected readonly maxDepth: number,
    /** Whether the quick paths are taken (false only to test them against the general ones). */
    protected readonly fast: boolean,
  ) {
    super(src);
  }

  /** Whether a slice of the text has been read since the last checkpoint (the caller then yields). */
  protected due(): boolean {
    if (this.pos < this.nextSlice) return false;
    this.nextSlice = this.pos + SLICE_UNITS;
    return true;
  }

  /** Whether a flow collection (`[` or `{`) starts at the cursor. */
  protected atFlowStart(): boolean {
    const c = this.at();
    return c === 91 || c === 123;
  }

  /** Skips spaces, comments and line breaks. */
  protected skipBlank(): void {
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
  protected atLineIndent(): void {
    for (let i = this.pos - 1; i >= this.lineStart; i--)
      if (this.src.charCodeAt(i) !== 32) this.fail("unexpected text after a value");
  }

  /** Whether the indicator `ch` (`-`, `?`, `:`) is at the cursor, followed by a blank. */
  protected atIndicator(ch: number): boolean {
    return this.at() === ch && isBlankOrEnd(this.at(1));
  }

  /** Adds an entry to the innermost collection being read. */
  protected add(entry: YamlNode | YamlPair): void {
    this.open[this.top++] = entry;
  }

  /** The entries added since `base`, as an array of their own, removed from the stack. */
  protected close<T>(base: number): T[] {
    const out = this.open.slice(base, this.top) as T[];
    this.top = base;
    return out;
  }

  /** One level deeper, for a collection starting at `offset`. */
  protected enter(offset: number): void {
    if (++this.depth > this.maxDepth) throw new TooDeep(offset);
  }

  /** Closes a collection whose entries were added since `base` (they become its own) and comes one level out of it. */
  protected leave(node: YamlSeq | YamlMap, base: number): YamlSeq | YamlMap {
    if (node.kind === "map") node.pairs = this.close(base);
    else node.items = this.close(base);
    node.open = false;
    this.depth--;
    return node;
  }

  /** `&anchor` and `!tag` before a node, in either order, with spaces after each. */
  protected properties(): Props | null {
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
  protected withProps<T extends YamlNode>(node: T, props: Props | null, offset: number): T | YamlScalar {
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

  /** The properties of two lines as one node's; a node has at most one anchor and one tag. */
  protected merge(outer: Props | null, own: Props | null): Props | null {
    if (outer === null || own === null) return outer ?? own;
    if (outer.anchor !== undefined && own.anchor !== undefined) this.fail("a node has two anchors");
    if (outer.tag !== undefined && own.tag !== undefined) this.fail("a node has two tags");
    return { ...outer, ...own };
  }

  /** A scalar node: plain text typed by the core schema, other text a string. */
  protected scalar(offset: number, source: string, plain: boolean): YamlScalar {
    if (!plain || plainIsString(source))
      return { kind: "scalar", offset, source, type: "str", value: source };
    const typed = resolvePlain(source);
    return { kind: "scalar", offset, source, type: typed.type, value: typed.value };
  }

  /**
   * An alias, a quoted scalar or a plain scalar at the cursor, with `props`
   * read before it. In block context a plain scalar is first read to the
   * line's end: it may be a key; if it is not, it may go on over the lines
   * below.
   */
  protected scalarOrAlias(props: Props | null, flow: boolean, key: boolean): YamlNode {
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

  /**
   * The quick path for the commonest plain scalar, a word (letters, digits and
   * `_.-/` from a letter, digit or `_`, matched in one native search) inside a
   * flow collection, followed by what must end it there: `,]}` or a `:` that is
   * an indicator. Null (nothing read) for anything else, which
   * {@link scalarOrAlias} reads; it would stop at the same place, as no word
   * character stops a plain scalar.
   */
  protected plainWord(): YamlScalar | null {
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

/** A plain word for {@link NodeReader.plainWord}: none of its characters can end a plain scalar or start an indicator. */
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
