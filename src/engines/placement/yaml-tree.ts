/**
 * A YAML policy text read into the `yaml` package's node tree, with what the
 * decoder needs to stay linear in the text's size: aliases resolved through
 * one index built in a single pass (the package's `Alias.resolve` walks the
 * whole document on every call), mapping keys indexed for locating errors,
 * and syntax errors limited in number. Duplicate keys are not left to the
 * package (its check compares every key with every other); the decoder
 * checks them as Go's yaml.v3 does, with a set per mapping.
 */
import {
  Composer,
  isAlias,
  isCollection,
  isMap,
  isPair,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  Parser,
  YAMLParseError,
  type Alias,
  type CST,
  type Document,
  type Node as YamlNode,
  type Pair,
  type YAMLMap,
} from "yaml";
import { DepthGauge } from "./yaml-depth.js";

/** A node of the tree, or nothing where the text has no value. */
export type Value = YamlNode | null | undefined;

/** How many errors one policy reports; past it the rest are counted in one last error. */
export const MAX_REPORTED_ERRORS = 1000;

/** A syntax error where the `yaml` package stopped, at `line:column`. */
export interface YamlSyntaxError {
  message: string;
  at: string;
}

/** The parsed text: its tree, its anchors, and where each node sits. */
export interface YamlTree {
  readonly doc: Document;
  /** The anchored node an alias names (the last anchor of that name before it), or undefined. */
  target(alias: Alias): Value;
  /** Whether an alias sits inside the very node it names (Go: "anchor … value contains itself"). */
  cyclic(alias: Alias): boolean;
  /** The `line:column` of a source offset. */
  position(offset: number): string;
  /** The `line:column` of a JSON pointer into the document (see {@link YamlTree.locate}). */
  locate(pointer: string): string;
}

/**
 * The package's `parseDocument`, with the depth gauge between its lexer and
 * its parser: the tokens stop at the first one nesting too deep (its offset
 * is returned instead of a document).
 */
function compose(source: string, lines: LineCounter): { doc: Document } | { deep: number } {
  const parser = new Parser(lines.addNewLine);
  const gauge = new DepthGauge();
  let deep: number | null = null;
  function* tokens(): Generator<CST.Token> {
    lines.addNewLine(0);
    for (const lexeme of new Lexer().lex(source)) {
      const start = gauge.offset;
      if (gauge.feed(lexeme)) {
        deep = start;
        return;
      }
      yield* parser.next(lexeme);
    }
    yield* parser.end();
  }
  let doc: Document | null = null;
  for (const next of new Composer({ uniqueKeys: false }).compose(tokens(), true, source.length)) {
    if (doc === null) {
      doc = next;
      continue;
    }
    doc.errors.push(
      new YAMLParseError(
        [next.range[0], next.range[1]],
        "MULTIPLE_DOCS",
        "Source contains multiple documents; please use YAML.parseAllDocuments()",
      ),
    );
    break;
  }
  if (deep !== null) return { deep };
  return { doc: doc as unknown as Document };
}

/**
 * Parses the text, lexing it once; gives the offset where it nests too deep,
 * or at most {@link MAX_REPORTED_ERRORS} syntax errors. The package builds one
 * `Error` per problem it meets; stack traces are not captured meanwhile, since
 * a text can hold a problem per character.
 */
export function readYaml(
  source: string,
): { ok: true; tree: YamlTree } | { ok: false; errors: YamlSyntaxError[] } | { ok: false; deep: string } {
  const lines = new LineCounter();
  const limit = Error.stackTraceLimit;
  let composed: { doc: Document } | { deep: number };
  try {
    Error.stackTraceLimit = 0;
    composed = compose(source, lines);
  } finally {
    Error.stackTraceLimit = limit;
  }
  const position = (offset: number) => {
    const pos = lines.linePos(offset);
    return `${pos.line}:${pos.col}`;
  };
  if ("deep" in composed) return { ok: false, deep: position(composed.deep) };
  const doc = composed.doc;
  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors
        .slice(0, MAX_REPORTED_ERRORS)
        .map((e) => ({ message: e.message.split("\n")[0], at: position(e.pos[0]) })),
    };
  }
  const { targets, cycles } = indexAnchors(doc);
  const keyIndex = new WeakMap<YAMLMap, Map<string, Pair>>();
  const tree: YamlTree = {
    doc,
    target: (alias) => targets.get(alias),
    cyclic: (alias) => cycles.has(alias),
    position,
    locate: (pointer) => locate(tree, keyIndex, pointer),
  };
  return { ok: true, tree };
}

/**
 * One walk over the tree in document order: each alias is mapped to the last
 * node anchored with its name before it, as both the package and Go's decoder
 * resolve it; an alias met inside the node it names is marked cyclic. The
 * walk recurses once per level, which the depth pre-scan bounds.
 */
function indexAnchors(doc: Document): { targets: Map<Alias, YamlNode>; cycles: Set<Alias> } {
  const anchors = new Map<string, YamlNode>();
  const targets = new Map<Alias, YamlNode>();
  const cycles = new Set<Alias>();
  const open = new Set<YamlNode>();
  const visit = (v: unknown): void => {
    if (isPair(v)) {
      visit(v.key);
      visit(v.value);
      return;
    }
    if (isAlias(v)) {
      const found = anchors.get(v.source);
      if (found !== undefined) {
        targets.set(v, found);
        if (open.has(found)) cycles.add(v);
      }
      return;
    }
    if (!isScalar(v) && !isCollection(v)) return;
    if (v.anchor !== undefined && v.anchor !== "") anchors.set(v.anchor, v);
    if (!isCollection(v)) return;
    open.add(v);
    for (const item of v.items) visit(item);
    open.delete(v);
  };
  visit(doc.contents);
  return { targets, cycles };
}

/** The key text a pointer segment matches: a scalar key's value as a string. */
function keyText(key: unknown): string | null {
  return isScalar(key) ? String(key.value) : null;
}

/**
 * The `line:column` of the node a pointer names: a mapping key's own position
 * for `/…/key`, a sequence item's for `/…/3`. Where the path leaves the
 * document (a key that is absent), the deepest node reached; `""` (the whole
 * configuration) stays `""`. Each mapping's keys are indexed on first use, so
 * locating many errors stays linear.
 */
function locate(tree: YamlTree, keyIndex: WeakMap<YAMLMap, Map<string, Pair>>, pointer: string): string {
  const at = (node: { range?: [number, number, number] | null } | null | undefined) =>
    tree.position(node?.range?.[0] ?? 0);
  let node = tree.doc.contents as Value;
  if (pointer === "") return "";
  let last: string | null = null;
  for (const segment of pointer.split("/").slice(1)) {
    if (isAlias(node)) node = tree.target(node);
    if (isMap(node)) {
      let index = keyIndex.get(node);
      if (index === undefined) {
        index = new Map();
        for (const pair of node.items as Pair[]) {
          const text = keyText(pair.key);
          if (text !== null && !index.has(text)) index.set(text, pair);
        }
        keyIndex.set(node, index);
      }
      const pair = index.get(segment);
      if (pair === undefined) return last ?? at(node);
      last = at(pair.key as YamlNode);
      node = pair.value as Value;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Value;
      if (item === undefined || item === null) return last ?? at(node);
      last = at(item);
      node = item;
    } else {
      break;
    }
  }
  return last ?? at(node);
}
