import { isAlias, isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node as YamlNode, type Pair } from "yaml";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import { keysOf, PartitionShape, PlacementConfigShape, PlacementFilterShape, PlacementRuleShape, QueueResourcesShape, QueueShape } from "./config-shape.js";
import type { RawConfig, RawFilter, RawPartition, RawQueue, RawRule } from "./types.js";
import { MAX_YAML_DEPTH, yamlTooDeep } from "./yaml-depth.js";

/**
 * Decodes a YuniKorn configuration (YAML, or JSON with the same keys) into the
 * raw shapes with strict keys, the way the scheduler's strict YAML decoding
 * does: an unknown key or a value of the wrong type rejects the configuration.
 */

// Each mapping's keys, from the configuration's shape (config-shape.ts).
const TOP_KEYS = keysOf(PlacementConfigShape);
const PARTITION_KEYS = keysOf(PartitionShape);
const QUEUE_KEYS = keysOf(QueueShape);
const RULE_KEYS = keysOf(PlacementRuleShape);
const FILTER_KEYS = keysOf(PlacementFilterShape);
const RESOURCE_KEYS = keysOf(QueueResourcesShape);

class DecodeError {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly at: string,
  ) {}
}

type Value = YamlNode | null | undefined;

/**
 * The document being decoded, for resolving aliases, and the errors found so
 * far; set only for the duration of one synchronous parse. Decoding goes on
 * after an error (with an empty value in its place), so one pass reports them all.
 */
let current: { doc: Document; aliases: number; aliasedItems: number; errors: PolicyError[] } | null = null;

/** Records a decoding error and lets decoding go on. */
function report(code: string, message: string, at: string): void {
  current?.errors.push(policyError(code, message, at));
}
const MAX_ALIASES = 1000;
/** How many collection items all aliases together may bring back (an alias to a long list costs its length). */
const MAX_ALIASED_ITEMS = 100_000;

/** Follows YAML aliases (`*name`) to their anchored node, with a cap against alias bombs. */
function deref(v: Value, at: string): Value {
  if (!isAlias(v)) return v;
  if (current === null || ++current.aliases > MAX_ALIASES) {
    throw new DecodeError("placement_invalid_type", `too many YAML aliases (more than ${MAX_ALIASES})`, at);
  }
  const target = v.resolve(current.doc) as Value;
  if (target === undefined) throw new DecodeError("placement_invalid_type", `unresolved YAML alias \`${v.source}\``, at);
  if ((isMap(target) || isSeq(target)) && (current.aliasedItems += target.items.length) > MAX_ALIASED_ITEMS) {
    throw new DecodeError("placement_invalid_type", `YAML aliases bring back more than ${MAX_ALIASED_ITEMS} items`, at);
  }
  return target;
}

function isNull(raw: Value): boolean {
  const v = deref(raw, "");
  return v === null || v === undefined || (isScalar(v) && v.value === null);
}

function kindOf(v: Value): string {
  if (isMap(v)) return "a mapping";
  if (isSeq(v)) return "a sequence";
  if (isScalar(v)) return `\`${String(v.source ?? v.value)}\``;
  return "nothing";
}

function entries(raw: Value, keys: readonly string[], where: string, at: string): Map<string, Value> {
  const v = deref(raw, at);
  const out = new Map<string, Value>();
  if (isNull(v)) return out;
  if (!isMap(v)) {
    report("placement_invalid_type", `${where} must be a mapping, got ${kindOf(v)}`, at);
    return out;
  }
  for (const pair of v.items as Pair<unknown, unknown>[]) {
    const keyNode = deref(pair.key as Value, at);
    // Go's decoder reads a struct's keys as strings: a mapping or sequence as a key is a type error
    if (isMap(keyNode) || isSeq(keyNode)) {
      report("placement_invalid_type", `cannot unmarshal !!${isMap(keyNode) ? "map" : "seq"} into string (a key of ${where})`, at);
      continue;
    }
    const key = isScalar(keyNode) ? String(keyNode.value) : "null";
    if (!keys.includes(key)) {
      report("placement_unknown_key", `field \`${key}\` not found in ${where}`, `${at}/${key}`);
      continue;
    }
    out.set(key, pair.value as Value);
  }
  return out;
}

function str(raw: Value, at: string): string {
  const v = deref(raw, at);
  if (isNull(v)) return "";
  if (isScalar(v)) {
    if (typeof v.value === "string") return v.value;
    return v.source !== undefined ? String(v.source) : String(v.value);
  }
  report("placement_invalid_type", `\`${at}\` must be a string, got ${kindOf(v)}`, at);
  return "";
}

function bool(raw: Value, at: string): boolean {
  const v = deref(raw, at);
  if (isNull(v)) return false;
  if (isScalar(v) && typeof v.value === "boolean") return v.value;
  report("placement_invalid_type", `\`${at}\` must be a boolean, got ${kindOf(v)}`, at);
  return false;
}

function seq(raw: Value, at: string): Value[] | null {
  const v = deref(raw, at);
  if (isNull(v)) return null;
  if (isSeq(v)) return v.items as Value[];
  report("placement_invalid_type", `\`${at}\` must be a sequence, got ${kindOf(v)}`, at);
  return null;
}

function strings(v: Value, at: string): string[] {
  return (seq(v, at) ?? []).map((item, i) => str(item, `${at}/${i}`));
}

function filter(v: Value, at: string): RawFilter {
  const m = entries(v, FILTER_KEYS, "filter", at);
  return { type: str(m.get("type"), `${at}/type`), users: strings(m.get("users"), `${at}/users`), groups: strings(m.get("groups"), `${at}/groups`) };
}

function rule(v: Value, at: string): RawRule {
  const m = entries(v, RULE_KEYS, "placement rule", at);
  const parent = m.get("parent");
  return {
    name: str(m.get("name"), `${at}/name`),
    create: bool(m.get("create"), `${at}/create`),
    filter: filter(m.get("filter"), `${at}/filter`),
    parent: isNull(deref(parent, `${at}/parent`)) ? null : rule(parent, `${at}/parent`),
    value: str(m.get("value"), `${at}/value`),
    at,
  };
}

function queue(v: Value, at: string): RawQueue {
  const m = entries(v, QUEUE_KEYS, "queue", at);
  const res = entries(m.get("resources"), RESOURCE_KEYS, "resources", `${at}/resources`);
  const children = seq(m.get("queues"), `${at}/queues`);
  return {
    name: str(m.get("name"), `${at}/name`),
    parent: bool(m.get("parent"), `${at}/parent`),
    adminacl: str(m.get("adminacl"), `${at}/adminacl`),
    submitacl: str(m.get("submitacl"), `${at}/submitacl`),
    queues: children === null ? null : children.map((c, i) => queue(c, `${at}/queues/${i}`)),
    hasResources: !isNull(res.get("guaranteed")) || !isNull(res.get("max")),
    at,
  };
}

function partition(v: Value, at: string): RawPartition {
  const m = entries(v, PARTITION_KEYS, "partition", at);
  const queues = seq(m.get("queues"), `${at}/queues`);
  return {
    name: str(m.get("name"), `${at}/name`),
    queues: queues === null ? null : queues.map((q, i) => queue(q, `${at}/queues/${i}`)),
    placementrules: (seq(m.get("placementrules"), `${at}/placementrules`) ?? []).map((r, i) =>
      rule(r, `${at}/placementrules/${i}`),
    ),
    defaultqueue: str(m.get("defaultqueue"), `${at}/defaultqueue`),
    at,
  };
}

/** Maps a JSON pointer into the configuration to the `line:column` of what it names. */
export type Locate = (pointer: string) => string;

/**
 * The `line:column` of the node a pointer names: a mapping key's own position
 * for `/…/key`, a sequence item's for `/…/3`. Where the path leaves the
 * document (a key that is absent), the deepest node reached; `""` (the whole
 * configuration) stays `""`.
 */
function locator(doc: Document, lines: LineCounter): Locate {
  const at = (node: { range?: [number, number, number] | null } | null | undefined) => {
    const pos = lines.linePos(node?.range?.[0] ?? 0);
    return `${pos.line}:${pos.col}`;
  };
  return (pointer) => {
    if (pointer === "") return "";
    let node = doc.contents as Value;
    let last: string | null = null;
    for (const segment of pointer.split("/").slice(1)) {
      if (isAlias(node)) node = node.resolve(doc) as Value;
      if (isMap(node)) {
        const pair = (node.items as Pair<unknown, unknown>[]).find((p) => isScalar(p.key) && String(p.key.value) === segment);
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
  };
}

/**
 * Parses and decodes the source text. Every error carries `line:column`:
 * syntax errors where the YAML parser stopped, decoding errors (an unknown
 * key, a value of the wrong type) at the key or item they concern. With the
 * configuration comes `locate`, which places the later stages' errors.
 */
export function parseConfig(source: string): Result<{ config: RawConfig; locate: Locate }, PolicyError[]> {
  const lines = new LineCounter();
  const deep = yamlTooDeep(source);
  if (deep !== null) {
    const before = source.slice(0, deep);
    const line = before.split("\n").length;
    const col = deep - before.lastIndexOf("\n");
    return err([policyError("placement_yaml_too_deep", `the YAML nests more than ${MAX_YAML_DEPTH} levels deep`, `${line}:${col}`)]);
  }
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    return err(
      doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        return policyError("placement_yaml_syntax", e.message.split("\n")[0], `${pos.line}:${pos.col}`);
      }),
    );
  }
  const locate = locator(doc, lines);
  const errors: PolicyError[] = [];
  current = { doc, aliases: 0, aliasedItems: 0, errors };
  try {
    const top = doc.contents as Value;
    if (isNull(top)) return ok({ config: { partitions: null }, locate });
    const m = entries(top, TOP_KEYS, "the configuration", "");
    const parts = seq(m.get("partitions"), "/partitions");
    const config = { partitions: parts === null ? [] : parts.map((p, i) => partition(p, `/partitions/${i}`)) };
    if (errors.length > 0) return err(errors.map((e) => ({ ...e, at: locate(e.at) })));
    return ok({ config, locate });
  } catch (e) {
    if (e instanceof DecodeError) return err([...errors, policyError(e.code, e.message, e.at)].map((x) => ({ ...x, at: locate(x.at) })));
    throw e;
  } finally {
    current = null;
  }
}
