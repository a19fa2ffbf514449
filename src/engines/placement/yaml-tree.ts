/**
 * A YAML policy text read into our reader's node tree (yaml-read.ts), with
 * what the decoder needs to stay linear in the text's size: aliases already
 * resolved by the reader, mapping keys indexed for locating errors, and
 * positions as `line:column`. Duplicate keys are checked by the decoder, as
 * Go's yaml.v3 checks them, with a set per mapping.
 */
import type { YamlMap, YamlNode, YamlPair } from "./yaml-node.js";
import { MAX_YAML_DEPTH, readYamlSteps, type YamlRead } from "./yaml-read.js";
import { finish, type Steps } from "../common/slices.js";

/** A node of the tree, or nothing where the text has no value. */
export type Value = YamlNode | null | undefined;

/** How many errors one policy reports; past it the rest are counted in one last error. */
export const MAX_REPORTED_ERRORS = 1000;

/** A syntax error where the reader stopped, at `line:column`. */
export interface YamlSyntaxError {
  message: string;
  at: string;
}

/** The parsed text: its root node and where each node sits. */
export interface YamlTree {
  readonly root: YamlNode;
  /** The `line:column` of a source offset. */
  position(offset: number): string;
  /** The `line:column` of a JSON pointer into the document (see {@link locate}). */
  locate(pointer: string): string;
}

/**
 * Reads the text once (one-line rules and queues of the plain form left as
 * lazy mappings, see yaml-read-lazy.ts); gives the tree, the position where it nests too deep,
 * or its first syntax error.
 */
export function readYaml(source: string, lazy = true): ReadTree {
  return finish(readYamlTreeSteps(source, lazy));
}

/** What {@link readYaml} gives. */
export type ReadTree =
  { ok: true; tree: YamlTree } | { ok: false; errors: YamlSyntaxError[] } | { ok: false; deep: string };

/** {@link readYaml} as resumable work (common/slices.ts): it yields as the reader does; `lazy` false reads every mapping in place (for tests that hold the lazy reading to it). */
export function* readYamlTreeSteps(source: string, lazy = true): Steps<ReadTree> {
  return treeOf(yield* readYamlSteps(source, MAX_YAML_DEPTH, true, lazy));
}

function treeOf(read: YamlRead): ReadTree {
  const position = (offset: number) => read.lines.position(offset);
  if (!read.ok) {
    if ("deep" in read) return { ok: false, deep: position(read.deep) };
    return { ok: false, errors: [{ message: read.syntax.message, at: position(read.syntax.offset) }] };
  }
  const keyIndex = new WeakMap<YamlMap, Map<string, YamlPair>>();
  const tree: YamlTree = {
    root: read.root,
    position,
    locate: (pointer) => locate(tree, keyIndex, pointer),
  };
  return { ok: true, tree };
}

/** The key text a pointer segment matches: a scalar key's value as a string. */
function keyText(key: YamlNode): string | null {
  return key.kind === "scalar" ? String(key.value) : null;
}

/**
 * The `line:column` of the node a pointer names: a mapping key's own position
 * for `/…/key`, a sequence item's for `/…/3`. Where the path leaves the
 * document (a key that is absent), the deepest node reached; `""` (the whole
 * configuration) stays `""`. Each mapping's keys are indexed on first use, so
 * locating many errors stays linear.
 */
function locate(tree: YamlTree, keyIndex: WeakMap<YamlMap, Map<string, YamlPair>>, pointer: string): string {
  const at = (node: Value) => tree.position(node?.offset ?? 0);
  let node: Value = tree.root;
  if (pointer === "") return "";
  let last: string | null = null;
  for (const segment of pointer.split("/").slice(1)) {
    if (node?.kind === "alias") node = node.target;
    if (node?.kind === "map") {
      let index = keyIndex.get(node);
      if (index === undefined) {
        index = new Map();
        for (const pair of node.pairs) {
          const text = keyText(pair.key);
          if (text !== null && !index.has(text)) index.set(text, pair);
        }
        keyIndex.set(node, index);
      }
      const pair = index.get(segment);
      if (pair === undefined) return last ?? at(node);
      last = at(pair.key);
      node = pair.value;
    } else if (node?.kind === "seq") {
      const item: Value = node.items[Number(segment)];
      if (item === undefined || item === null) return last ?? at(node);
      last = at(item);
      node = item;
    } else {
      break;
    }
  }
  return last ?? at(node);
}
