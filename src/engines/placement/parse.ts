import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import type {
  RawConfig,
  RawFilter,
  RawLimit,
  RawPartition,
  RawQueue,
  RawResources,
  RawRule,
} from "./types.js";
import {
  bool,
  DecodeError,
  Decoder,
  entries,
  isNull,
  itemsEachSteps,
  itemsSteps,
  numberMap,
  seq,
  str,
  stringMap,
  strings,
  uint64,
} from "./yaml-decode.js";
import { MAX_YAML_DEPTH } from "./yaml-read.js";
import { QuickRules, RULE_TWINS } from "./quick-rule.js";
import { SEEDED_MEMOS, type RegexMemo } from "./filter.js";
import { MAX_REPORTED_ERRORS, readYamlTreeSteps, type ReadTree, type Value } from "./yaml-tree.js";
import { finish, type Steps } from "../common/slices.js";

/**
 * Decodes a YuniKorn configuration (YAML, or JSON with the same keys) into the
 * raw shapes with strict keys, the way the scheduler's strict YAML decoding
 * (yaml.v3, `KnownFields(true)`) does: an unknown key, a repeated key or a
 * value of the wrong type rejects the configuration. Every field YuniKorn has
 * is decoded, including those only validation reads (resources, limits).
 */

/**
 * Each mapping's keys, the same lists as the configuration's shape in config-shape.ts (a test says
 * so): written out, so that decoding a file builds none of the zod shapes (about 5 ms in a fresh
 * isolate, paid inside the first compile when they were read from the shapes).
 */
export const PLACEMENT_KEYS = {
  TOP_KEYS: ["partitions", "checksum"],
  PARTITION_KEYS: [
    "name",
    "queues",
    "placementrules",
    "limits",
    "preemption",
    "nodesortpolicy",
    "usergroupresolver",
    "defaultqueue",
  ],
  QUEUE_KEYS: [
    "name",
    "parent",
    "resources",
    "maxapplications",
    "properties",
    "adminacl",
    "submitacl",
    "childtemplate",
    "queues",
    "limits",
  ],
  RULE_KEYS: ["name", "create", "filter", "parent", "value"],
  FILTER_KEYS: ["type", "users", "groups"],
  RESOURCE_KEYS: ["guaranteed", "max"],
  LIMIT_KEYS: ["limit", "users", "groups", "maxresources", "maxapplications"],
  TEMPLATE_KEYS: ["maxapplications", "properties", "resources"],
  PREEMPTION_KEYS: ["enabled", "quotapreemptionenabled"],
  NODESORT_KEYS: ["type", "resourceweights"],
  RESOLVER_KEYS: ["type"],
} as const satisfies Record<string, readonly string[]>;

/** A rule's filter (at `${ruleAt}/filter`); an absent one is the zero filter. */
function filter(d: Decoder, v: Value, ruleAt: string): RawFilter {
  if (v === undefined) return { type: "", users: [], groups: [] };
  const at = `${ruleAt}/filter`;
  const m = entries(d, v, PLACEMENT_KEYS.FILTER_KEYS, "filter", at);
  return {
    type: str(d, m.get("type"), at, "type"),
    users: strings(d, m.get("users"), at, "users"),
    groups: strings(d, m.get("groups"), at, "groups"),
  };
}

/** Decodes a placement rule at pointer `at` the general way (any error reported to `d`). */
export function decodeRule(d: Decoder, v: Value, at: string): RawRule {
  const m = entries(d, v, PLACEMENT_KEYS.RULE_KEYS, "placement rule", at);
  const parent = m.get("parent");
  return {
    name: str(d, m.get("name"), at, "name"),
    create: bool(d, m.get("create"), at, "create"),
    filter: filter(d, m.get("filter"), at),
    parent: parent === undefined ? null : parentRule(d, parent, `${at}/parent`),
    value: str(d, m.get("value"), at, "value"),
    at,
  };
}

/** A rule's parent rule, or null where it is null. */
function parentRule(d: Decoder, parent: Value, at: string): RawRule | null {
  return isNull(d, d.deref(parent, at)) ? null : d.nested(at, () => decodeRule(d, parent, at));
}

function resources(d: Decoder, v: Value, at: string): RawResources {
  const m = entries(d, v, PLACEMENT_KEYS.RESOURCE_KEYS, "resources", at);
  return {
    guaranteed: stringMap(d, m.get("guaranteed"), "guaranteed resources", `${at}/guaranteed`),
    max: stringMap(d, m.get("max"), "maximum resources", `${at}/max`),
  };
}

function limit(d: Decoder, v: Value, at: string): RawLimit {
  const m = entries(d, v, PLACEMENT_KEYS.LIMIT_KEYS, "limit", at);
  return {
    limit: str(d, m.get("limit"), at, "limit"),
    users: strings(d, m.get("users"), at, "users"),
    groups: strings(d, m.get("groups"), at, "groups"),
    maxresources: stringMap(d, m.get("maxresources"), "maximum resources", `${at}/maxresources`),
    maxapplications: uint64(d, m.get("maxapplications"), `${at}/maxapplications`),
    at,
  };
}

function limits(d: Decoder, v: Value, at: string): RawLimit[] {
  return (seq(d, v, at) ?? []).map((item, i) => limit(d, item, `${at}/${i}`));
}

/** Decoded for its strictness only: nothing of the child template is used or validated. */
function childTemplate(d: Decoder, v: Value, at: string): void {
  const m = entries(d, v, PLACEMENT_KEYS.TEMPLATE_KEYS, "child template", at);
  uint64(d, m.get("maxapplications"), `${at}/maxapplications`);
  stringMap(d, m.get("properties"), "properties", `${at}/properties`);
  resources(d, m.get("resources"), `${at}/resources`);
}

/** A queue and its children (yielding between them). */
function* queue(d: Decoder, v: Value, at: string): Steps<RawQueue> {
  const m = entries(d, v, PLACEMENT_KEYS.QUEUE_KEYS, "queue", at);
  stringMap(d, m.get("properties"), "properties", `${at}/properties`);
  childTemplate(d, m.get("childtemplate"), `${at}/childtemplate`);
  const name = str(d, m.get("name"), at, "name");
  const parent = bool(d, m.get("parent"), at, "parent");
  const adminacl = str(d, m.get("adminacl"), at, "adminacl");
  const submitacl = str(d, m.get("submitacl"), at, "submitacl");
  return {
    name,
    parent,
    adminacl,
    submitacl,
    queues: yield* itemsSteps(d, m.get("queues"), `${at}/queues`, (c, cat) => queue(d, c, cat)),
    resources: resources(d, m.get("resources"), `${at}/resources`),
    maxapplications: uint64(d, m.get("maxapplications"), `${at}/maxapplications`),
    limits: limits(d, m.get("limits"), `${at}/limits`),
    at,
  };
}

/** A partition, its queues and its rules (yielding between them). */
function* partition(d: Decoder, v: Value, at: string, memo: RegexMemo): Steps<RawPartition> {
  const m = entries(d, v, PLACEMENT_KEYS.PARTITION_KEYS, "partition", at);
  const preemption = entries(
    d,
    m.get("preemption"),
    PLACEMENT_KEYS.PREEMPTION_KEYS,
    "preemption",
    `${at}/preemption`,
  );
  for (const key of PLACEMENT_KEYS.PREEMPTION_KEYS) bool(d, preemption.get(key), `${at}/preemption/${key}`);
  const resolver = entries(
    d,
    m.get("usergroupresolver"),
    PLACEMENT_KEYS.RESOLVER_KEYS,
    "user group resolver",
    `${at}/usergroupresolver`,
  );
  str(d, resolver.get("type"), `${at}/usergroupresolver/type`);
  const nodesort = entries(
    d,
    m.get("nodesortpolicy"),
    PLACEMENT_KEYS.NODESORT_KEYS,
    "node sort policy",
    `${at}/nodesortpolicy`,
  );
  const name = str(d, m.get("name"), at, "name");
  const queues = yield* itemsSteps(d, m.get("queues"), `${at}/queues`, (q, qat) => queue(d, q, qat));
  // a rule's decoding is short: the list yields between rules; a plainly written rule takes the quick path
  const quick = new QuickRules(memo);
  const rules = yield* itemsEachSteps(
    d,
    m.get("placementrules"),
    `${at}/placementrules`,
    (r, rat, i) => (r === null || r === undefined ? null : quick.rule(r, rat, i)) ?? decodeRule(d, r, rat),
  );
  // the rules that validate as an earlier one does, for the compile (quick-rule.ts RULE_TWINS)
  if (rules !== null && quick.twins.length > 0) RULE_TWINS.set(rules, quick.twins);
  return {
    name,
    queues,
    placementrules: rules ?? [],
    limits: limits(d, m.get("limits"), `${at}/limits`),
    nodesort: {
      type: str(d, nodesort.get("type"), `${at}/nodesortpolicy/type`),
      weights: numberMap(
        d,
        nodesort.get("resourceweights"),
        "resource weights",
        `${at}/nodesortpolicy/resourceweights`,
      ),
    },
    defaultqueue: str(d, m.get("defaultqueue"), at, "defaultqueue"),
    at,
  };
}

/** Maps a JSON pointer into the configuration to the `line:column` of what it names. */
export type Locate = (pointer: string) => string;

/** The error that stands for those past the report limit. */
function tooMany(dropped: number): PolicyError {
  return policyError(
    "placement_too_many_errors",
    `${dropped} more errors not reported (at most ${MAX_REPORTED_ERRORS} are)`,
    "",
  );
}

/**
 * Parses and decodes the source text. Every error carries `line:column`:
 * syntax errors where the YAML parser stopped, decoding errors (an unknown
 * key, a repeated key, a value of the wrong type) at the key or item they
 * concern. With the configuration comes `locate`, which places the later
 * stages' errors. Linear in the text: see yaml-tree.ts and yaml-decode.ts.
 */
export function parseConfig(
  source: string,
  lazy = true,
): Result<{ config: RawConfig; locate: Locate }, PolicyError[]> {
  return finish(parseConfigSteps(source, lazy));
}

/**
 * {@link parseConfig} as resumable work (common/slices.ts): reading yields as
 * it goes, and decoding between list items. `lazy` false reads every mapping
 * into nodes (for tests that hold the lazy reading, yaml-read-lazy.ts, to it).
 */
export function* parseConfigSteps(
  source: string,
  lazy = true,
): Steps<Result<{ config: RawConfig; locate: Locate }, PolicyError[]>> {
  const read = yield* readYamlTreeSteps(source, lazy);
  yield;
  return yield* decodeTree(read);
}

function* decodeTree(read: ReadTree): Steps<Result<{ config: RawConfig; locate: Locate }, PolicyError[]>> {
  if (!read.ok) {
    if ("deep" in read)
      return err([
        policyError(
          "placement_yaml_too_deep",
          `the YAML nests more than ${MAX_YAML_DEPTH} levels deep`,
          read.deep,
        ),
      ]);
    return err(read.errors.map((e) => policyError("placement_yaml_syntax", e.message, e.at)));
  }
  const tree = read.tree;
  // decoding errors name a pointer, or `@offset` where the node has no pointer of its own (a repeated key)
  const locate: Locate = (at) => (at.startsWith("@") ? tree.position(Number(at.slice(1))) : tree.locate(at));
  const d = new Decoder(tree);
  const placed = (errors: PolicyError[]) => [
    ...errors.map((e) => ({ ...e, at: locate(e.at) })),
    ...(d.dropped > 0 ? [tooMany(d.dropped)] : []),
  ];
  try {
    const top: Value = tree.root;
    if (isNull(d, top)) return ok({ config: { partitions: null }, locate });
    const m = entries(d, top, PLACEMENT_KEYS.TOP_KEYS, "the configuration", "");
    str(d, m.get("checksum"), "/checksum");
    // the expressions the rule decoder read once per shape, for the compile (filter.ts SEEDED_MEMOS)
    const memo: RegexMemo = new Map();
    const parts = yield* itemsSteps(d, m.get("partitions"), "/partitions", (p, at) =>
      partition(d, p, at, memo),
    );
    if (d.errors.length > 0) return err(placed(d.errors));
    const config = { partitions: parts ?? [] };
    if (memo.size > 0) SEEDED_MEMOS.set(config, memo);
    return ok({ config, locate });
  } catch (e) {
    if (e instanceof DecodeError) return err(placed([...d.errors, policyError(e.code, e.message, e.at)]));
    throw e;
  }
}
