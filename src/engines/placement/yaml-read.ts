/**
 * Our own YAML reader for the YAML users give us (YuniKorn `queues.yaml`,
 * `*.test.yaml`): block and flow mappings and sequences, plain, quoted and
 * block scalars, comments, anchors and aliases, explicit keys, core tags, one
 * document. It reads the text once, front to back, so its work is linear in
 * the text; it keeps the collections being read on a stack of its own (no
 * call per level of nesting) and refuses to go deeper than
 * {@link MAX_YAML_DEPTH} levels. It
 * stops at the first syntax error, as Go's yaml.v3 does. Aliases are resolved
 * as they are read, to the last node anchored with their name before them.
 */
import { emptyScalar, LineIndex, type YamlNode } from "./yaml-node.js";
import { BlockReader } from "./yaml-read-block.js";
import { TooDeep } from "./yaml-read-node.js";
import { YamlSyntax } from "./yaml-scalar.js";
import { finish, type Steps } from "../common/slices.js";

/** How deeply a YAML text may nest collections. */
export const MAX_YAML_DEPTH = 100;

/** What reading a text gives: its root node, or where it stopped. */
export type YamlRead =
  | { ok: true; root: YamlNode; lines: LineIndex }
  | { ok: false; lines: LineIndex; syntax: { message: string; offset: number } }
  | { ok: false; lines: LineIndex; deep: number };

/**
 * Reads a YAML text of one document into nodes (see the file's comment),
 * nesting at most `maxDepth` collections; `quick` false reads without the
 * quick paths (for tests that hold them to the general ones); `lazy` leaves
 * plainly written one-line flow mappings to be read when first asked for
 * (a `LazyMap`, see yaml-read-lazy.ts).
 */
export function readYamlText(
  source: string,
  maxDepth = MAX_YAML_DEPTH,
  quick = true,
  lazy = false,
): YamlRead {
  return finish(readYamlSteps(source, maxDepth, quick, lazy));
}

/** {@link readYamlText} as resumable work: it yields every SLICE_UNITS characters read (common/slices.ts). */
export function* readYamlSteps(
  source: string,
  maxDepth = MAX_YAML_DEPTH,
  quick = true,
  lazy = false,
): Steps<YamlRead> {
  const lines = new LineIndex(source);
  const reader = new Reader(source, maxDepth, quick);
  if (lazy) reader.readLazily();
  try {
    return { ok: true, root: yield* reader.document(), lines };
  } catch (e) {
    if (e instanceof TooDeep) return { ok: false, lines, deep: e.offset };
    if (e instanceof YamlSyntax)
      return { ok: false, lines, syntax: { message: e.message, offset: e.offset } };
    throw e;
  }
}

/**
 * The reader of one document: the stages are layered, each in its own file —
 * characters and scalars (yaml-scalar.ts), properties, scalar and alias nodes
 * (yaml-read-node.ts), flow collections (yaml-read-flow.ts), block
 * collections and the driver that reads every collection without a call per
 * level of nesting (yaml-read-block.ts).
 */
class Reader extends BlockReader {
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
      root = yield* this.drive(this.blockValue(-1, false, true));
    } else if (Number.isNaN(this.at()) || this.atDocumentMarker()) root = emptyScalar(this.pos);
    else root = yield* this.drive(this.blockValue(-1, false, true));
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
}
