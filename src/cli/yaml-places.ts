import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode, type Pair } from "yaml";

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

/** Parses YAML (1.2 core schema, duplicate keys refused) keeping node positions; aliases are bounded. */
export function readPlacedYaml(text: string): { ok: true; value: PlacedYaml } | { ok: false; error: YamlSyntaxError[] } {
  const lines = new LineCounter();
  // Integers are read exactly (nanosecond timestamps pass 2^53), then the safe ones made plain numbers.
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, intAsBigInt: true });
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return `${pos.line}:${pos.col}`;
  };
  if (doc.errors.length > 0) return { ok: false, error: doc.errors.map((e) => ({ message: e.message.split("\n")[0], at: at(e.pos[0]) })) };
  let value: unknown;
  try {
    value = safeIntegers(doc.toJS({ maxAliasCount: 1000 }));
  } catch (e) {
    return { ok: false, error: [{ message: (e as Error).message, at: "1:1" }] };
  }
  return { ok: true, value: { value, place: (path) => placeOf(doc, path, at) } };
}

/** Turns every bigint within JavaScript's safe integers back into a number, in place. */
function safeIntegers(v: unknown): unknown {
  if (typeof v === "bigint") return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = safeIntegers(v[i]);
  } else if (typeof v === "object" && v !== null) {
    for (const k of Object.keys(v)) (v as Record<string, unknown>)[k] = safeIntegers((v as Record<string, unknown>)[k]);
  }
  return v;
}

function placeOf(doc: Document, path: readonly PropertyKey[], at: (offset: number) => string): string {
  let node = doc.contents as YamlNode | null;
  let last = at(node?.range?.[0] ?? 0);
  for (const segment of path) {
    if (isMap(node)) {
      const pair = (node.items as Pair<unknown, unknown>[]).find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (pair === undefined) break;
      last = at((pair.key as YamlNode).range?.[0] ?? 0);
      node = pair.value as YamlNode | null;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as YamlNode | null | undefined;
      if (item === undefined || item === null) break;
      last = at(item.range?.[0] ?? 0);
      node = item;
    } else {
      break;
    }
  }
  return last;
}
