import type { LazyRegex } from "./filter.js";
/**
 * The shapes the placement engine passes between its stages: the decoded
 * configuration (raw, as written), the compiled plain-JSON data stored in the
 * bundle, the loaded fast form, and the request and verdict of a decision.
 */

/** A placement rule filter as written: `{type, users, groups}`. */
export interface RawFilter {
  type: string;
  users: string[];
  groups: string[];
}

/** A placement rule as decoded from the configuration (strict keys, defaults applied). */
export interface RawRule {
  name: string;
  create: boolean;
  filter: RawFilter;
  parent: RawRule | null;
  value: string;
  /** JSON pointer of the rule in the source. */
  at: string;
}

/** A user and group limit (`limits` of a queue or a partition), checked by validation only. */
export interface RawLimit {
  limit: string;
  users: string[];
  groups: string[];
  /** `null` when absent or null (Go's nil map). */
  maxresources: Map<string, string> | null;
  maxapplications: bigint;
  at: string;
}

/** A queue's `resources`: each map `null` when absent or null (Go's nil map). */
export interface RawResources {
  guaranteed: Map<string, string> | null;
  max: Map<string, string> | null;
}

/** A queue as decoded from the configuration: what placement uses and what validation checks. */
export interface RawQueue {
  name: string;
  parent: boolean;
  adminacl: string;
  submitacl: string;
  /** `null` when the key is absent or null (Go's nil slice). */
  queues: RawQueue[] | null;
  resources: RawResources;
  maxapplications: bigint;
  limits: RawLimit[];
  at: string;
}

/** A partition as decoded from the configuration. */
export interface RawPartition {
  name: string;
  queues: RawQueue[] | null;
  placementrules: RawRule[];
  limits: RawLimit[];
  /** `nodesortpolicy`: the policy name and the resource weights. */
  nodesort: { type: string; weights: Map<string, number> };
  defaultqueue: string;
  at: string;
}

/** The decoded configuration; `null` partitions means the document was empty. */
export interface RawConfig {
  partitions: RawPartition[] | null;
}

/** A parsed ACL as plain data: everybody, or the listed users and groups. */
export interface AclData {
  all: boolean;
  users: string[];
  groups: string[];
}

/** A JavaScript translation of a Go RE2 filter expression. */
export interface RegexData {
  /** The expression as written (Go's regexp syntax), compiled by the linear-time matcher when a decision first tests it. */
  source: string;
  /** Text every match starts with, or "" (absent in bundles made before it was stored). */
  prefix?: string;
  /** Text every match contains, or "" (absent in bundles made before it was stored). */
  required?: string;
  /**
   * Every text the expression matches, when it is anchored at both ends and
   * matches only a few (`^(u1|v1)$`: "u1", "v1"): decisions look the text up
   * instead of compiling the expression. Absent otherwise, and in bundles made
   * before it was stored.
   */
  exact?: string[];
}

/** A built rule filter as plain data. */
export interface FilterData {
  allow: boolean;
  empty: boolean;
  users: string[];
  groups: string[];
  userExp: RegexData | null;
  groupExp: RegexData | null;
}

/** The rule kinds a configuration may use (recovery is internal). */
export type RuleKind = "provided" | "user" | "fixed" | "tag";

/** A built rule as plain data. */
export interface RuleData {
  kind: RuleKind;
  create: boolean;
  filter: FilterData;
  parent: RuleData | null;
  /** fixed: the lower-cased queue; tag: the lower-cased tag name; otherwise "". */
  value: string;
  /** fixed only: the value is a full path. */
  qualified: boolean;
}

/** A configured queue as plain data, addressed by its lower-cased full path. */
export interface QueueData {
  path: string;
  leaf: boolean;
  submit: AclData;
  admin: AclData;
}

/** One partition's compiled data. */
export interface PartitionData {
  name: string;
  queues: QueueData[];
  rules: RuleData[];
  defaultQueue: string | null;
}

/** What `compile` returns and the bundle stores. */
export interface PlacementData {
  partitions: PartitionData[];
}

/** A loaded ACL. */
export interface Acl {
  readonly all: boolean;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
}

/** A loaded filter. */
export interface Filter {
  readonly allow: boolean;
  readonly empty: boolean;
  readonly users: ReadonlySet<string>;
  readonly groups: ReadonlySet<string>;
  readonly userExp: LazyRegex | null;
  readonly groupExp: LazyRegex | null;
}

/** A loaded rule. */
export interface Rule {
  readonly kind: RuleKind;
  readonly create: boolean;
  readonly filter: Filter;
  readonly parent: Rule | null;
  readonly value: string;
  readonly qualified: boolean;
}

/** A configured queue in the loaded tree. */
export interface QueueNode {
  readonly path: string;
  readonly leaf: boolean;
  readonly submit: Acl;
  readonly admin: Acl;
  /** The configured parent queue; `null` for root. */
  readonly parent: QueueNode | null;
}

/** A partition's chain of rules: its length and rule `i` (built when first asked for, see rule-chain.ts). */
export interface RuleChain {
  readonly length: number;
  at(i: number): Rule;
}

/** One loaded partition. */
export interface Partition {
  readonly name: string;
  readonly queues: ReadonlyMap<string, QueueNode>;
  readonly rules: RuleChain;
  /** The rules' filter gates: an unexplained decision skips the rules whose filter cannot admit the application without reading them. */
  readonly gates: RuleGates;
  readonly defaultQueue: string | null;
}

/**
 * The filter gates of a partition's rules, as parallel arrays (see
 * filter.ts, FilterGate): per rule, 1 in `gated` when it has a gate, the
 * mode and literal of each side, and indexes from a user or group name to
 * the rules whose filter lists it.
 */
export interface RuleGates {
  readonly gated: Uint8Array;
  readonly userSide: Uint8Array;
  readonly userLiteral: readonly string[];
  readonly groupSide: Uint8Array;
  readonly groupLiteral: readonly string[];
  readonly users: RuleIndex;
  readonly groups: RuleIndex;
  /**
   * The rules without a gate, ascending, and the rules of each side whose
   * literal a text holds; null for a bundle stored without the literal order,
   * whose decisions read every rule's gate.
   */
  readonly open: readonly number[] | null;
  readonly userLiterals: LiteralRules | null;
  readonly groupLiterals: LiteralRules | null;
}

/** From a text to the rules whose gate literal it holds (gate-store.ts, LiteralIndex). */
export interface LiteralRules {
  /** How many pieces of `text` {@link collect} looks up. */
  probes(text: string): number;
  /** Appends those rules to `out` (possibly more than once each). */
  collect(text: string, out: number[]): void;
}

/** From a user or group name to the rules (indexes in the chain, ascending) whose filter lists it. */
export interface RuleIndex {
  readonly size: number;
  get(name: string): readonly number[] | undefined;
  /** Appends the rules to `out`. */
  collect(name: string, out: number[]): void;
  /** The same rules as a set, kept for the next decision that asks. */
  ruleSet(name: string): ReadonlySet<number> | undefined;
}

/** The loaded policy: partitions by lower-cased name. */
export interface PlacementPolicy {
  readonly partitions: ReadonlyMap<string, Partition>;
}

/** A queue the scheduler already has at run time (a dynamic queue created earlier). */
export interface ExistingQueue {
  path: string;
  leaf?: boolean;
  kind?: "leaf" | "parent";
  draining?: boolean;
}

/** The placement question: who submits, what they asked for, what exists already. */
export interface PlacementRequest {
  partition?: string;
  applicationId?: string;
  user: string;
  groups?: readonly string[];
  queue?: string;
  tags?: Readonly<Record<string, string>>;
  existingQueues?: readonly ExistingQueue[];
}

/** The rule that placed (or rejected) an application: its position in the chain and its name. */
export interface RuleRef {
  index: number;
  name: string;
}

/** The engine's answer, without the envelope the frame adds. */
export interface PlaceVerdict {
  queue: string | null;
  create: boolean;
  rule: RuleRef | null;
  rejected: boolean;
  reason?: string;
  error?: string;
}

/** One step of the explain trace: a rule of the chain and what became of it. */
export interface TraceStep {
  index: number;
  rule: string;
  result: "placed" | "skipped" | "error";
  queue?: string;
  why?: string;
}
