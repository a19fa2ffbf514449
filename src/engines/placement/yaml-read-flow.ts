/**
 * The flow stage of our YAML reader (yaml-read.ts): flow sequences `[…]` and
 * mappings `{…}`, each read by a frame whose entries (scalars and aliases) are
 * read at once; a nested flow collection is a frame of its own, which the
 * driver (yaml-read-block.ts) reads before it resumes this one.
 */
import { emptyScalar, type YamlMap, type YamlNode, type YamlSeq } from "./yaml-node.js";
import { Frame, NodeReader, NONE, PAUSE, type Props, type StepResult } from "./yaml-read-node.js";
import { isBlankOrEnd, isFlowIndicator } from "./yaml-scalar.js";

/** Where a flow frame resumes: at an entry's start, after its key, after its value. */
const ENTRY = 0;
const KEY = 1;
const VALUE = 2;

/** A flow sequence or mapping being read. */
export class FlowFrame extends Frame {
  /** The current entry's start, whether it began with `?`, where its key starts, and its key once read. */
  entryStart = 0;
  explicit = false;
  keyStart = 0;
  key: YamlNode | null = null;

  constructor(
    readonly node: YamlSeq | YamlMap,
    readonly isSeq: boolean,
    readonly base: number,
  ) {
    super();
  }
}

/** The reader of flow collections (see the file's comment). */
export class FlowReader extends NodeReader {
  /** The properties read before a flow collection by {@link flowLeaf}, for the collection to take. */
  private flowProps: Props | null = null;

  /** Opens the flow collection at the cursor (`[` or `{`), with `props` read before it. */
  protected openFlow(props: Props | null): FlowFrame {
    const start = this.pos;
    const isSeq = this.at() === 91;
    this.enter(start);
    const node: YamlSeq | YamlMap = isSeq
      ? { kind: "seq", offset: start, items: NONE, open: true }
      : { kind: "map", offset: start, pairs: NONE, open: true };
    this.withProps(node, props, start);
    this.pos++;
    return new FlowFrame(node, isSeq, this.top);
  }

  /**
   * Reads a flow collection's entries from where the frame stopped, `child`
   * being the nested collection it waited for (null at an entry's start); in
   * a sequence, `k: v` is a mapping of one pair.
   */
  protected flowStep(f: FlowFrame, child: YamlNode | null): StepResult {
    const src = this.src;
    const close = f.isSeq ? 93 : 125;
    for (;;) {
      if (f.phase === ENTRY) {
        if (this.due()) return PAUSE;
        this.skipBlank();
        const c = src.charCodeAt(this.pos);
        if (Number.isNaN(c))
          this.fail(
            `the flow ${f.isSeq ? "sequence" : "mapping"} misses its closing \`${f.isSeq ? "]" : "}"}\``,
          );
        if (c === close) break;
        if (c === 44) this.fail(`an empty entry in a flow ${f.isSeq ? "sequence" : "mapping"}`);
        // one entry: a key and, when there is a `:`, its value (nodes read at once unless they are collections)
        f.entryStart = this.pos;
        f.explicit = this.atIndicator(63);
        if (f.explicit) {
          this.pos++;
          this.skipBlank();
        }
        f.keyStart = this.pos;
        f.phase = KEY;
        child = this.flowLeaf();
        if (child === null) return this.openFlow(this.takeFlowProps());
      }
      let value: YamlNode | undefined;
      if (f.phase === KEY) {
        const key = child!;
        f.key = key;
        const jsonLike =
          key.kind !== "scalar" || src.charCodeAt(f.keyStart) === 34 || src.charCodeAt(f.keyStart) === 39;
        this.skipBlank();
        const n = src.charCodeAt(this.pos + 1);
        if (src.charCodeAt(this.pos) === 58 && (isBlankOrEnd(n) || isFlowIndicator(n) || jsonLike)) {
          this.pos++;
          this.skipBlank();
          const c = src.charCodeAt(this.pos);
          f.phase = VALUE;
          if (c === 44 || c === 93 || c === 125) value = emptyScalar(this.pos);
          else {
            const leaf = this.flowLeaf();
            if (leaf === null) return this.openFlow(this.takeFlowProps());
            value = leaf;
          }
        } else if (f.explicit) value = emptyScalar(this.pos);
      } else value = child!;
      this.addFlowEntry(f, f.key!, value);
      f.key = null;
      f.phase = ENTRY;
      child = null;
      this.skipBlank();
      const c = src.charCodeAt(this.pos);
      if (c === 44) {
        this.pos++;
        continue;
      }
      if (c === close) break;
      if (Number.isNaN(c)) continue;
      this.fail(`expected \`,\` or \`${f.isSeq ? "]" : "}"}\``);
    }
    this.pos++;
    return this.leave(f.node, f.base);
  }

  /** Adds a flow entry: a pair to a mapping, a node to a sequence, or a mapping of one pair to a sequence. */
  private addFlowEntry(f: FlowFrame, key: YamlNode, value: YamlNode | undefined): void {
    if (!f.isSeq) this.add({ key, value: value ?? emptyScalar(this.pos) });
    else if (value === undefined) this.add(key);
    else {
      this.enter(f.entryStart);
      this.depth--;
      this.add({ kind: "map", offset: f.entryStart, pairs: [{ key, value }], open: false });
    }
  }

  /** Takes the properties {@link flowLeaf} left for a flow collection. */
  private takeFlowProps(): Props | null {
    const props = this.flowProps;
    this.flowProps = null;
    return props;
  }

  /**
   * A node inside a flow collection (properties, then its content; empty
   * before `,]}:`), read at once unless it is a flow collection: then null,
   * with its properties left in {@link flowProps}, for the caller to open it.
   */
  protected flowLeaf(): YamlNode | null {
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
}
