/**
 * The primitives of decoding a YAML tree into YuniKorn's Go structs, as Go's
 * yaml.v3 decoder with `KnownFields(true)` does it: a string field takes any
 * scalar's text, a mapping's keys must be unique (compared by kind and text,
 * as yaml.v3 compares them), an unknown field is an error. Every primitive is
 * linear in what it reads; aliases cost one lookup each and are capped.
 */
import type { YamlAlias, YamlMap, YamlNode, YamlPair, YamlScalar, YamlSeq } from "./yaml-node.js";
import { policyError, type PolicyError } from "../common/result.js";
import { MAX_YAML_DEPTH } from "./yaml-read.js";
import { MAX_REPORTED_ERRORS, type Value, type YamlTree } from "./yaml-tree.js";
import { Pace, type Steps } from "../common/slices.js";

/** A problem that ends decoding at once (Go's decoder fails the whole document for these). */
export class DecodeError {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly at: string,
  ) {}
}

const MAX_ALIASES = 1000;
/** How many collection items all aliases together may bring back (an alias to a long list costs its length). */
const MAX_ALIASED_ITEMS = 100_000;

/** The decoding under way: the tree, the alias counts and the errors found so far (decoding goes on after an error). */
export class Decoder {
  readonly errors: PolicyError[] = [];
  private aliases = 0;
  private aliasedItems = 0;
  /** How many structs deep decoding is (queues in queues, rules in parents). */
  private depth = 0;
  /** How many errors were found past {@link MAX_REPORTED_ERRORS}. */
  dropped = 0;

  constructor(
    readonly tree: YamlTree,
    /** Counts the items decoded, so that decoding long lists yields (see {@link itemsSteps}). */
    readonly pace = new Pace(),
  ) {}

  /** Records a decoding error and lets decoding go on. */
  report(code: string, message: string, at: string): void {
    if (this.errors.length < MAX_REPORTED_ERRORS) this.errors.push(policyError(code, message, at));
    else this.dropped++;
  }

  /** Follows a YAML alias (`*name`) to its anchored node, with caps against alias bombs and self-containing anchors. */
  deref(v: Value, at: string): Value {
    if (!isAlias(v)) return v;
    if (++this.aliases > MAX_ALIASES)
      throw new DecodeError("placement_invalid_type", `too many YAML aliases (more than ${MAX_ALIASES})`, at);
    const target = v.target;
    if (target === undefined)
      throw new DecodeError("placement_invalid_type", `unresolved YAML alias \`${v.name}\``, at);
    if (v.cyclic)
      throw new DecodeError("placement_invalid_type", `anchor '${v.name}' value contains itself`, at);
    const size = isMap(target) ? target.pairs.length : isSeq(target) ? target.items.length : 0;
    if ((this.aliasedItems += size) > MAX_ALIASED_ITEMS) {
      throw new DecodeError(
        "placement_invalid_type",
        `YAML aliases bring back more than ${MAX_ALIASED_ITEMS} items`,
        at,
      );
    }
    return target;
  }

  /**
   * Runs `decode` one level deeper: aliases can nest a tree deeper than its
   * text (a queue whose children are an alias of another queue), so decoding
   * bounds its own depth as the pre-scan bounds the text's.
   */
  nested<T>(at: string, decode: () => T): T {
    this.enter(at);
    try {
      return decode();
    } finally {
      this.depth--;
    }
  }

  /** {@link nested} for resumable decoding. */
  *nestedSteps<T>(at: string, decode: () => Steps<T>): Steps<T> {
    this.enter(at);
    try {
      return yield* decode();
    } finally {
      this.depth--;
    }
  }

  /** Goes one level deeper, refusing a tree nested past the limit. */
  private enter(at: string): void {
    if (++this.depth > MAX_YAML_DEPTH)
      throw new DecodeError(
        "placement_yaml_too_deep",
        `the YAML nests more than ${MAX_YAML_DEPTH} levels deep`,
        at,
      );
  }
}

function isAlias(v: Value): v is YamlAlias {
  return v?.kind === "alias";
}

function isMap(v: Value): v is YamlMap {
  return v?.kind === "map";
}

function isSeq(v: Value): v is YamlSeq {
  return v?.kind === "seq";
}

function isScalar(v: Value): v is YamlScalar {
  return v?.kind === "scalar";
}

/** Whether the value is absent or YAML null (Go leaves the field at its zero value). */
export function isNull(d: Decoder, raw: Value): boolean {
  const v = d.deref(raw, "");
  return v === null || v === undefined || (isScalar(v) && v.value === null);
}

function kindOf(v: Value): string {
  if (isMap(v)) return "a mapping";
  if (isSeq(v)) return "a sequence";
  if (isScalar(v)) return `\`${v.source}\``;
  return "nothing";
}

/** yaml.v3's identity of a key: its kind and its text (an alias's text is its name). */
function keyIdentity(key: YamlNode): string {
  if (isAlias(key)) return `*${key.name}`;
  if (isScalar(key)) return `=${key.source}`;
  if (isMap(key)) return "{";
  if (isSeq(key)) return "[";
  return "=";
}

/** Up to this many pairs, a mapping's keys are compared with each other instead of through a map of their identities. */
const SMALL_MAP = 12;

/** Whether two keys have the same identity (see keyIdentity), without building it. */
function sameKey(a: YamlNode, b: YamlNode): boolean {
  if (isScalar(a)) return isScalar(b) && a.source === b.source;
  if (isAlias(a)) return isAlias(b) && a.name === b.name;
  return keyIdentity(a) === keyIdentity(b);
}

/** Whether a small mapping repeats a key (each pair against those before it). */
function hasRepeatedKey(pairs: readonly YamlPair[]): boolean {
  for (let i = 1; i < pairs.length; i++)
    for (let j = 0; j < i; j++) if (sameKey(pairs[i].key, pairs[j].key)) return true;
  return false;
}

/** The text Go quotes for a key in its duplicate-key message. */
function keyText(key: YamlNode): string {
  if (isAlias(key)) return key.name;
  if (isScalar(key)) return key.source;
  return "";
}

/** The pointer of a struct's field: the struct's, then the key, built only where an error needs it. */
function pointer(at: string, key: string | number | undefined): string {
  return key === undefined ? at : `${at}/${key}`;
}

/** The pairs an absent or null mapping has (read only). */
const NO_PAIRS: YamlPair[] = [];

/**
 * The pairs of a mapping, or null (with the error reported) when the value is
 * not one or repeats a key: yaml.v3 then reports `mapping key "k" already
 * defined at line n` for each repetition and decodes nothing of the mapping.
 */
export function mappingPairs(d: Decoder, raw: Value, where: string, at: string): YamlPair[] | null {
  const v = d.deref(raw, at);
  if (isNull(d, v)) return NO_PAIRS;
  if (!isMap(v)) {
    d.report("placement_invalid_type", `${where} must be a mapping, got ${kindOf(v)}`, at);
    return null;
  }
  const pairs = v.pairs;
  if (pairs.length <= SMALL_MAP && !hasRepeatedKey(pairs)) return pairs;
  const seen = new Map<string, number>();
  let repeated = false;
  for (const pair of pairs) {
    const id = keyIdentity(pair.key);
    const offset = pair.key.offset;
    const first = seen.get(id);
    if (first === undefined) {
      seen.set(id, offset);
      continue;
    }
    repeated = true;
    // past the reported errors only the count goes on (a mapping can repeat a key 100,000 times)
    if (d.errors.length >= MAX_REPORTED_ERRORS) {
      d.dropped++;
      continue;
    }
    const line = d.tree.position(first).split(":")[0];
    d.report(
      "placement_duplicate_key",
      `mapping key ${JSON.stringify(keyText(pair.key))} already defined at line ${line}`,
      `@${offset}`,
    );
  }
  return repeated ? null : pairs;
}

/**
 * A struct's fields as decoded: each known key's value by the key's place in
 * the struct's key list (a few keys each, so a scan finds one faster than a
 * map is built).
 */
export class Fields {
  constructor(
    private readonly keys: readonly string[],
    private readonly values: Value[] | null,
  ) {}

  /** The value of a key, or undefined when the mapping does not have it. */
  get(key: string): Value {
    return this.values === null ? undefined : this.values[this.keys.indexOf(key)];
  }
}

/** The fields of an absent, null or refused mapping. */
const NO_FIELDS = new Fields([], null);

/** A struct's fields by key: unknown keys, keys that are collections and repeated keys are errors. */
export function entries(d: Decoder, raw: Value, keys: readonly string[], where: string, at: string): Fields {
  const pairs = mappingPairs(d, raw, where, at);
  if (pairs === null || pairs.length === 0) return NO_FIELDS;
  let values: Value[] | null = null;
  for (const pair of pairs) {
    const keyNode = d.deref(pair.key, at);
    // Go's decoder reads a struct's keys as strings: a mapping or sequence as a key is a type error
    if (isMap(keyNode) || isSeq(keyNode)) {
      d.report(
        "placement_invalid_type",
        `cannot unmarshal !!${isMap(keyNode) ? "map" : "seq"} into string (a key of ${where})`,
        at,
      );
      continue;
    }
    const key = isScalar(keyNode) ? String(keyNode.value) : "null";
    const index = keys.indexOf(key);
    if (index < 0) {
      d.report("placement_unknown_key", `field \`${key}\` not found in ${where}`, `${at}/${key}`);
      continue;
    }
    values ??= new Array<Value>(keys.length);
    values[index] = pair.value;
  }
  return values === null ? NO_FIELDS : new Fields(keys, values);
}

/** A string field (at `at`, or at its `key` under `at`): any scalar's text, null as "". */
export function str(d: Decoder, raw: Value, at: string, key?: string | number): string {
  const v = isAlias(raw) ? d.deref(raw, pointer(at, key)) : raw;
  if (isNull(d, v)) return "";
  if (isScalar(v)) {
    if (typeof v.value === "string") return v.value;
    return v.source;
  }
  const where = pointer(at, key);
  d.report("placement_invalid_type", `\`${where}\` must be a string, got ${kindOf(v)}`, where);
  return "";
}

/** A boolean field (YAML 1.2 `true`/`false`), null as false; `key` as for {@link str}. */
export function bool(d: Decoder, raw: Value, at: string, key?: string): boolean {
  const v = isAlias(raw) ? d.deref(raw, pointer(at, key)) : raw;
  if (isNull(d, v)) return false;
  if (isScalar(v) && typeof v.value === "boolean") return v.value;
  const where = pointer(at, key);
  d.report("placement_invalid_type", `\`${where}\` must be a boolean, got ${kindOf(v)}`, where);
  return false;
}

/** A sequence field's items, or null when absent or null (Go's nil slice); `key` as for {@link str}. */
export function seq(d: Decoder, raw: Value, at: string, key?: string): Value[] | null {
  const v = isAlias(raw) ? d.deref(raw, pointer(at, key)) : raw;
  if (isNull(d, v)) return null;
  if (isSeq(v)) return v.items;
  const where = pointer(at, key);
  d.report("placement_invalid_type", `\`${where}\` must be a sequence, got ${kindOf(v)}`, where);
  return null;
}

/** A `[]string` field; `key` as for {@link str}. */
export function strings(d: Decoder, v: Value, at: string, key?: string): string[] {
  const list = seq(d, v, at, key);
  const out: string[] = [];
  if (list === null || list.length === 0) return out;
  const base = pointer(at, key);
  for (let i = 0; i < list.length; i++) out.push(str(d, list[i], base, i));
  return out;
}

/** The YAML tag Go names in a type error for a scalar. */
function goTag(v: Value): string {
  if (!isScalar(v)) return isMap(v) ? "!!map" : "!!seq";
  if (typeof v.value === "number") return v.type === "int" ? "!!int" : "!!float";
  if (typeof v.value === "boolean") return "!!bool";
  return "!!str";
}

/** Go's short rendering of a scalar in a type error: up to 10 characters, else 7 and `...`. */
function goShown(v: Value): string {
  if (!isScalar(v)) return "";
  const text = v.source;
  return ` \`${text.length > 10 ? text.slice(0, 7) + "..." : text}\``;
}

/** A `map[string]string` field: null when absent or null (Go's nil map), else its pairs with every value as text. */
export function stringMap(d: Decoder, raw: Value, where: string, at: string): Map<string, string> | null {
  const v = d.deref(raw, at);
  if (isNull(d, v)) return null;
  const out = new Map<string, string>();
  for (const pair of mappingPairs(d, v, where, at) ?? []) {
    const key = str(d, pair.key, at);
    const value = d.deref(pair.value, `${at}/${key}`);
    if (isMap(value) || isSeq(value)) {
      d.report(
        "placement_invalid_type",
        `cannot unmarshal ${goTag(value)} into string (${where} \`${key}\`)`,
        `${at}/${key}`,
      );
      continue;
    }
    out.set(key, str(d, value, `${at}/${key}`));
  }
  return out;
}

/** A `map[string]float64` field; a value that is not a number is Go's type error. */
export function numberMap(d: Decoder, raw: Value, where: string, at: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const pair of mappingPairs(d, raw, where, at) ?? []) {
    const key = str(d, pair.key, at);
    const value = d.deref(pair.value, `${at}/${key}`);
    if (isNull(d, value)) continue;
    if (isScalar(value) && typeof value.value === "number") out.set(key, value.value);
    else
      d.report(
        "placement_invalid_type",
        `cannot unmarshal ${goTag(value)}${goShown(value)} into float64`,
        `${at}/${key}`,
      );
  }
  return out;
}

/** A `uint64` field, exact: a negative number, text or a value past 2^64 - 1 is Go's type error; a float is truncated as Go does. */
export function uint64(d: Decoder, raw: Value, at: string): bigint {
  const v = d.deref(raw, at);
  if (isNull(d, v)) return 0n;
  if (isScalar(v) && typeof v.value === "number" && Number.isFinite(v.value)) {
    const text = v.source.replaceAll("_", "");
    let n: bigint | null = null;
    if (/^\+?[0-9]+$/.test(text)) n = BigInt(text.replace("+", ""));
    else if (/^0[xo][0-9a-fA-F]+$/.test(text)) n = BigInt(text);
    else if (v.value >= 0) n = BigInt(Math.trunc(v.value));
    if (n !== null && n <= 0xffff_ffff_ffff_ffffn) return n;
  }
  d.report("placement_invalid_type", `cannot unmarshal ${goTag(v)}${goShown(v)} into uint64`, at);
  return 0n;
}

/** An item's weight in the pace's units (about the characters of source a short item stands for). */
const ITEM_UNITS = 16;

/** {@link itemsSteps} for items decoded at once: no generator is made for each item. */
export function* itemsEachSteps<T>(
  d: Decoder,
  raw: Value,
  at: string,
  decode: (v: Value, at: string, index: number) => T,
): Steps<T[] | null> {
  const list = seq(d, raw, at);
  if (list === null) return null;
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) {
    const itemAt = `${at}/${i}`;
    out.push(d.nested(itemAt, () => decode(list[i], itemAt, i)));
    if (d.pace.spend(ITEM_UNITS)) yield;
  }
  return out;
}

/** Decodes the items of a sequence field one level deeper each, as resumable work (common/slices.ts): yields between items at the decoder's pace. */
export function* itemsSteps<T>(
  d: Decoder,
  raw: Value,
  at: string,
  decode: (v: Value, at: string) => Steps<T>,
): Steps<T[] | null> {
  const list = seq(d, raw, at);
  if (list === null) return null;
  const out: T[] = [];
  for (let i = 0; i < list.length; i++) {
    const itemAt = `${at}/${i}`;
    out.push(yield* d.nestedSteps(itemAt, () => decode(list[i], itemAt)));
    if (d.pace.spend(ITEM_UNITS)) yield;
  }
  return out;
}
