/**
 * A `*.test.yaml` file read with positions, by the placement engine's own
 * linear YAML reader (engines/placement/yaml-read.ts): its value as the
 * `yaml` package's `toJS` would give it (YAML 1.2 core schema, integers past
 * 2^53 as exact bigints, an alias the very value its anchor holds), repeated
 * keys refused, and what aliases bring back bounded.
 */
import type { YamlMap, YamlNode, YamlPair } from "../engines/placement/yaml-node.js";
import { readYamlText } from "../engines/placement/yaml-read.js";

/** A YAML text read with positions: its value, and where in the text each path lies. */
export interface PlacedYaml {
  value: unknown;
  /** `line:column` (1-based) of the key or item a path names; the deepest node reached when the path leaves the document. */
  place(path: readonly PropertyKey[]): string;
}

/** A syntax error of a YAML text, at `line:column`. */
export interface YamlSyntaxError {
  message: string;
  at: string;
}

/** How deeply a test file may nest (requests in it may be deep on purpose, to test an engine's own limit). */
const MAX_TEST_FILE_DEPTH = 1000;
/** How many values all aliases together may bring back (an alias to a long list costs its length). */
const MAX_ALIASED_VALUES = 100_000;

/** Parses YAML (1.2 core schema, duplicate keys refused) keeping node positions; aliases are bounded. */
export function readPlacedYaml(
  text: string,
): { ok: true; value: PlacedYaml } | { ok: false; error: YamlSyntaxError[] } {
  const read = readYamlText(text, MAX_TEST_FILE_DEPTH);
  const at = (offset: number) => read.lines.position(offset);
  if (!read.ok) {
    if ("deep" in read)
      return {
        ok: false,
        error: [
          { message: `the YAML nests more than ${MAX_TEST_FILE_DEPTH} levels deep`, at: at(read.deep) },
        ],
      };
    return { ok: false, error: [{ message: read.syntax.message, at: at(read.syntax.offset) }] };
  }
  const builder = new ValueBuilder();
  const value = builder.value(read.root);
  if (builder.errors.length > 0)
    return { ok: false, error: builder.errors.map((e) => ({ message: e.message, at: at(e.offset) })) };
  const index = new WeakMap<YamlMap, Map<string, YamlPair>>();
  return { ok: true, value: { value, place: (path) => placeOf(read.root, path, at, index) } };
}

/** Builds JavaScript values from nodes, each node once: an alias gives its anchor's value again. */
class ValueBuilder {
  readonly errors: { message: string; offset: number }[] = [];
  private readonly built = new Map<YamlNode, unknown>();
  private readonly sizes = new Map<YamlNode, number>();
  private aliased = 0;

  /** The value of a node (a failed one is null, with its error recorded). */
  value(node: YamlNode): unknown {
    if (node.kind === "alias") {
      if (node.target === undefined)
        return this.fail(`unresolved alias *${node.name} (its anchor must come before it)`, node.offset);
      if (node.cyclic) return this.fail(`anchor '${node.name}' value contains itself`, node.offset);
      // the anchored node was built (and measured) before its alias, since anchors come first
      if ((this.aliased += this.sizes.get(node.target) ?? 1) > MAX_ALIASED_VALUES)
        return this.fail(`YAML aliases bring back more than ${MAX_ALIASED_VALUES} values`, node.offset);
      return this.built.get(node.target) ?? null;
    }
    let out: unknown;
    let size = 1;
    if (node.kind === "scalar") {
      out =
        node.type === "int" && !Number.isSafeInteger(node.value)
          ? BigInt(node.source)
          : node.type === "int"
            ? Number(BigInt(node.source))
            : node.value;
    } else if (node.kind === "seq") {
      const list: unknown[] = [];
      this.built.set(node, list);
      for (const item of node.items) {
        list.push(this.value(item));
        size += this.sizeOf(item);
      }
      out = list;
    } else {
      const map: Record<string, unknown> = {};
      this.built.set(node, map);
      const seen = new Set<string>();
      for (const pair of node.pairs) {
        const key = this.value(pair.key);
        const identity = `${typeof key}:${typeof key === "object" && key !== null ? JSON.stringify(key, bigintText) : String(key)}`;
        if (pair.key.kind === "scalar" && seen.has(identity))
          this.fail("Map keys must be unique", pair.key.offset);
        seen.add(identity);
        const name =
          key === null ? "" : typeof key === "object" ? JSON.stringify(key, bigintText) : String(key);
        const value = this.value(pair.value);
        size += this.sizeOf(pair.key) + this.sizeOf(pair.value);
        if (name === "__proto__")
          Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
        else map[name] = value;
      }
      out = map;
    }
    this.built.set(node, out);
    this.sizes.set(node, size);
    return out;
  }

  /** How many values a node built so far holds, an alias counting as what it brings back. */
  private sizeOf(node: YamlNode): number {
    return this.sizes.get(node.kind === "alias" && node.target !== undefined ? node.target : node) ?? 1;
  }

  private fail(message: string, offset: number): null {
    this.errors.push({ message, offset });
    return null;
  }
}

function bigintText(_key: string, v: unknown): unknown {
  return typeof v === "bigint" ? v.toString() : v;
}

function placeOf(
  root: YamlNode,
  path: readonly PropertyKey[],
  at: (offset: number) => string,
  index: WeakMap<YamlMap, Map<string, YamlPair>>,
): string {
  let node: YamlNode | undefined = root;
  let last = at(root.offset);
  for (const segment of path) {
    if (node?.kind === "alias") node = node.target;
    if (node?.kind === "map") {
      let keys = index.get(node);
      if (keys === undefined) {
        keys = new Map();
        for (const pair of node.pairs)
          if (pair.key.kind === "scalar" && !keys.has(String(pair.key.value)))
            keys.set(String(pair.key.value), pair);
        index.set(node, keys);
      }
      const pair = keys.get(String(segment));
      if (pair === undefined) break;
      last = at(pair.key.offset);
      node = pair.value;
    } else if (node?.kind === "seq") {
      const item: YamlNode | undefined = node.items[Number(segment)];
      if (item === undefined) break;
      last = at(item.offset);
      node = item;
    } else {
      break;
    }
  }
  return last;
}
