/**
 * The block stage of our YAML reader (yaml-read.ts): block sequences and
 * mappings (explicit `?` keys included), the node after an indicator, and the
 * driver that reads every collection. A collection is a frame on the driver's
 * own stack, not a call: the driver steps the innermost frame until it closes
 * (then resumes its parent with it) or opens a nested one (then pushes it), so
 * each level of nesting costs one small object, and the driver yields every
 * slice of text read (common/slices.ts).
 */
import {
  emptyScalar,
  LazyMap,
  type LazyText,
  type YamlMap,
  type YamlNode,
  type YamlPair,
  type YamlSeq,
} from "./yaml-node.js";
import { FlowFrame, FlowReader } from "./yaml-read-flow.js";
import { LAZY_LEVELS, LAZY_MAP, MAX_LAZY_LINE } from "./yaml-read-lazy.js";
import { Frame, NONE, PAUSE, type Props, type StepResult } from "./yaml-read-node.js";
import { isBlankOrEnd } from "./yaml-scalar.js";
import { finish, type Steps } from "../common/slices.js";

/** A block sequence whose `-` indicators stand at column `col`. */
class SeqFrame extends Frame {
  constructor(
    readonly node: YamlSeq,
    readonly col: number,
    readonly base: number,
    /** The parent column to restore when the sequence closes. */
    readonly outer: number,
  ) {
    super();
  }
}

/** Where a block mapping resumes: at an entry's start, after an explicit key, after an implicit key, after a value. */
const ENTRY = 0;
const EXPLICIT_KEY = 1;
const IMPLICIT_KEY = 2;
const VALUE = 3;

/** A block mapping whose keys stand at column `col`. */
class MapFrame extends Frame {
  /** The current entry's key once read (the first one may be read before the mapping opens), and where it starts. */
  key: YamlNode | null;
  keyStart = 0;

  constructor(
    readonly node: YamlMap,
    readonly col: number,
    readonly base: number,
    readonly outer: number,
    first: YamlNode | null,
  ) {
    super();
    this.key = first;
  }
}

/**
 * A flow collection read where a block node starts: once it closes, it may be
 * the first key of a block mapping (`{a: 1}: v`), or take the properties of
 * the line above.
 */
class TailFrame extends Frame {
  constructor(
    readonly flow: FlowFrame,
    readonly props: Props | null,
    readonly newLine: boolean,
    readonly compact: boolean,
    readonly startCol: number,
    readonly nodeStart: number,
  ) {
    super();
  }
}

/** The reader of block collections and the driver of all of them (see the file's comment). */
export class BlockReader extends FlowReader {
  /** Where the lazy mappings this reader leaves read their pairs; null to read every mapping in place. */
  private lazyText: LazyText | null = null;

  /** Leaves flow mappings of the lazy form unread (see yaml-read-lazy.ts). */
  readLazily(): void {
    this.lazyText = new LazySource(this.src, this.fast);
  }

  /** Reads a node (`first`, or the collection it opens, with everything nested in it), yielding every slice. */
  protected *drive(first: YamlNode | Frame): Steps<YamlNode> {
    if (!(first instanceof Frame)) return first;
    const stack: Frame[] = [first];
    let child: YamlNode | null = null;
    for (;;) {
      const r = this.step(stack[stack.length - 1], child);
      if (r === PAUSE) {
        yield;
        child = null;
      } else if (r instanceof Frame) {
        stack.push(r);
        child = null;
      } else {
        stack.pop();
        if (stack.length === 0) return r;
        child = r;
      }
    }
  }

  /** One step of a frame, `child` being the nested node it waited for (null to start or after a pause). */
  private step(f: Frame, child: YamlNode | null): StepResult {
    if (f instanceof FlowFrame) return this.flowStep(f, child);
    if (f instanceof MapFrame) return this.mapStep(f, child);
    if (f instanceof SeqFrame) return this.seqStep(f, child);
    return this.tailStep(f as TailFrame, child);
  }

  /**
   * The node after an indicator (`-`, `?`, `:`) or at the document's start,
   * held by a collection at column `parent`: on the same line, on the lines
   * below indented more (or a sequence at the same column where `seqAtParent`),
   * or a null scalar. `compact` allows a block collection on the same line.
   * A collection is given as its frame, opened.
   */
  protected blockValue(parent: number, seqAtParent: boolean, compact: boolean): YamlNode | Frame {
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
      return this.content(parent, props, true, true, this.column);
    }
    return this.content(parent, props, false, compact, propsAt - this.lineStart);
  }

  /**
   * A node from its first character (after any properties on its line, given
   * as `props`, which start at column `startCol`; on a new line they belong to
   * a mapping the node starts, on the same line to the node itself).
   */
  private content(
    parent: number,
    props: Props | null,
    newLine: boolean,
    compact: boolean,
    startCol: number,
  ): YamlNode | Frame {
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
          ? this.content(parent, merged, true, true, this.column)
          : this.withProps(emptyScalar(this.pos), merged, this.pos);
      }
    }
    const col = this.column;
    const c = this.at();
    if ((c === 45 || c === 63) && isBlankOrEnd(this.at(1))) {
      if (own !== null) this.fail("an anchor or a tag cannot stand before a block collection on its line");
      if (!compact)
        this.fail(`a block ${c === 45 ? "sequence" : "mapping"} cannot start on the line of a key`);
      return c === 45 ? this.openSeq(col, merged) : this.openMap(col, merged, null);
    }
    if (c === 124 || c === 62)
      return this.withProps(this.scalar(this.pos, this.blockScalar(parent), false), merged, this.pos);
    const nodeStart = this.pos;
    if (!this.atIndicator(58) && this.atFlowStart()) {
      if (c === 123 && props === null && own === null) {
        const lazy = this.lazyMap();
        if (lazy !== null) return lazy;
      }
      return new TailFrame(this.openFlow(own), props, newLine, compact, startCol, nodeStart);
    }
    const node = this.atIndicator(58)
      ? this.withProps(emptyScalar(this.pos), own, this.pos)
      : this.scalarOrAlias(own, false, false);
    return this.afterNode(node, props, newLine, compact, startCol, nodeStart);
  }

  /**
   * The flow mapping at the cursor left unread, when lazy reading is on and it
   * has the lazy form (yaml-read-lazy.ts) and room to nest within the depth
   * allowed; the cursor is then after its `}`. Null (nothing read) otherwise.
   */
  private lazyMap(): LazyMap | null {
    if (this.lazyText === null || this.depth + LAZY_LEVELS > this.maxDepth) return null;
    const start = this.pos;
    const src = this.src;
    const lineEnd = src.indexOf("\n", start);
    if ((lineEnd === -1 ? src.length : lineEnd) - start > MAX_LAZY_LINE) return null;
    LAZY_MAP.lastIndex = start;
    if (!LAZY_MAP.test(src)) return null;
    this.pos = LAZY_MAP.lastIndex;
    return new LazyMap(start, this.lazyText);
  }

  /** After a node read where a block node starts: the first key of a block mapping when a `:` follows, else the node. */
  private afterNode(
    node: YamlNode,
    props: Props | null,
    newLine: boolean,
    compact: boolean,
    startCol: number,
    nodeStart: number,
  ): YamlNode | Frame {
    this.spaces();
    if (this.atIndicator(58)) {
      if (!compact)
        this.fail("a mapping cannot start on the line of a key (nested mappings need a new line)");
      if (this.lineStart > nodeStart) this.fail("a key must be on one line", nodeStart);
      return this.openMap(startCol, newLine ? props : null, node);
    }
    return newLine ? this.withProps(node, props, nodeStart) : node;
  }

  /** Steps a {@link TailFrame}: first its flow collection, then what follows it, then the mapping it may start. */
  private tailStep(f: TailFrame, child: YamlNode | null): StepResult {
    if (f.phase === 0) {
      f.phase = 1;
      return f.flow;
    }
    if (f.phase === 2) return child!;
    const r = this.afterNode(child!, f.props, f.newLine, f.compact, f.startCol, f.nodeStart);
    f.phase = 2;
    return r;
  }

  /** Opens a block sequence whose `-` indicators stand at column `col`. */
  private openSeq(col: number, props: Props | null): SeqFrame {
    const start = this.pos;
    this.enter(start);
    const seq: YamlSeq = { kind: "seq", offset: start, items: NONE, open: true };
    this.withProps(seq, props, start);
    const f = new SeqFrame(seq, col, this.top, this.parentColumn);
    this.parentColumn = col;
    return f;
  }

  /** Reads a block sequence's entries from where the frame stopped, `child` the item it waited for. */
  private seqStep(f: SeqFrame, child: YamlNode | null): StepResult {
    const col = f.col;
    for (;;) {
      if (child === null) {
        if (this.due()) return PAUSE;
        this.pos++;
        const v = this.blockValue(col, false, true);
        if (v instanceof Frame) return v;
        child = v;
      }
      this.add(child);
      child = null;
      this.parentColumn = col;
      this.skipBlank();
      if (Number.isNaN(this.at()) || this.atDocumentMarker() || this.column < col) break;
      this.atLineIndent();
      if (this.column > col) this.fail("bad indentation of a sequence entry");
      if (!this.atIndicator(45)) break;
    }
    this.parentColumn = f.outer;
    return this.leave(f.node, f.base);
  }

  /** Opens a block mapping whose keys stand at column `col`; `first` is its first key when already read. */
  private openMap(col: number, props: Props | null, first: YamlNode | null): MapFrame {
    const start = first?.offset ?? this.pos;
    this.enter(start);
    const map: YamlMap = { kind: "map", offset: start, pairs: NONE, open: true };
    this.withProps(map, props, start);
    const f = new MapFrame(map, col, this.top, this.parentColumn, first);
    this.parentColumn = col;
    return f;
  }

  /** Reads a block mapping's entries from where the frame stopped, `child` the key or value it waited for. */
  private mapStep(f: MapFrame, child: YamlNode | null): StepResult {
    const col = f.col;
    for (;;) {
      let pair: YamlPair;
      if (f.phase === ENTRY) {
        if (this.due()) return PAUSE;
        if (f.key === null && this.atIndicator(63)) {
          this.pos++;
          f.phase = EXPLICIT_KEY;
          const k = this.blockValue(col, false, true);
          if (k instanceof Frame) return k;
          child = k;
        } else if (f.key === null) {
          if (this.atIndicator(45)) this.fail("a sequence entry where a mapping key was expected");
          const keyStart = this.pos;
          f.keyStart = keyStart;
          f.phase = IMPLICIT_KEY;
          const keyProps = this.properties();
          if (this.atIndicator(58)) child = this.withProps(emptyScalar(this.pos), keyProps, keyStart);
          else if (this.atFlowStart()) return this.openFlow(keyProps);
          else child = this.scalarOrAlias(keyProps, false, true);
        } else {
          // the first key, read before the mapping opened, and its `:` checked
          child = f.key;
          f.phase = IMPLICIT_KEY;
          f.keyStart = -1;
        }
      }
      if (f.phase === EXPLICIT_KEY) {
        this.parentColumn = col;
        this.skipBlank();
        const hasValue = !Number.isNaN(this.at()) && this.column === col && this.atIndicator(58);
        if (hasValue) {
          this.pos++;
          f.key = child;
          f.phase = VALUE;
          const v = this.blockValue(col, true, true);
          if (v instanceof Frame) return v;
          child = v;
        } else {
          pair = { key: child!, value: emptyScalar(this.pos) };
        }
      } else if (f.phase === IMPLICIT_KEY) {
        if (f.keyStart >= 0) {
          this.spaces();
          if (!this.atIndicator(58) || this.lineStart > f.keyStart)
            this.fail("a mapping key must be on one line, followed by `:`", f.keyStart);
        }
        this.pos++;
        f.key = child;
        f.phase = VALUE;
        const v = this.blockValue(col, true, false);
        if (v instanceof Frame) return v;
        child = v;
      }
      if (f.phase === VALUE) pair = { key: f.key!, value: child! };
      this.add(pair!);
      this.parentColumn = col;
      f.key = null;
      f.phase = ENTRY;
      child = null;
      this.skipBlank();
      if (Number.isNaN(this.at()) || this.atDocumentMarker()) break;
      this.atLineIndent();
      if (this.column < col) break;
      if (this.column > col) this.fail("bad indentation of a mapping entry");
    }
    this.parentColumn = f.outer;
    return this.leave(f.node, f.base);
  }
}

/** The text of a reader's lazy mappings: each is read, when asked for, by a reader of its own at its offset. */
class LazySource implements LazyText {
  constructor(
    readonly src: string,
    private readonly fast: boolean,
  ) {}

  pairsAt(offset: number): YamlPair[] {
    return new LazyReader(this.src, this.fast).pairsAt(offset);
  }
}

/** Reads one lazy mapping in place: the same steps as reading it in the document, from its `{`. */
class LazyReader extends BlockReader {
  constructor(src: string, fast: boolean) {
    super(src, LAZY_LEVELS, fast);
  }

  pairsAt(offset: number): YamlPair[] {
    this.pos = offset;
    this.lineStart = this.src.lastIndexOf("\n", offset - 1) + 1;
    return (finish(this.drive(this.openFlow(null))) as YamlMap).pairs;
  }
}
