import type { AclData, PartitionData, PlacementData, RuleData } from "./types.js";

/** A rule that can place into a queue: its position in the chain and its name. */
export interface PlacingRule {
  index: number;
  name: string;
}

/** One configured queue as `GET /v1/placement/queues` shows it (YuniKorn's queue DAO where it fits). */
export interface QueueTreeNode {
  queuename: string;
  partition: string;
  isLeaf: boolean;
  /** Configured queues are managed; dynamic ones (created by rules) are not listed. */
  isManaged: true;
  parent: string;
  submitacl: string;
  adminacl: string;
  /** The rules whose placement can name this queue. */
  rules: PlacingRule[];
  children: QueueTreeNode[];
}

/** One partition's configured queue tree, the rules that can create queues under a configured parent, and its default queue. */
export interface PartitionTree {
  name: string;
  defaultqueue: string | null;
  root: QueueTreeNode | null;
  /** Per rule that may create queues (`create: true`): the configured queues it can create children under (`*`: anywhere). */
  creates: { index: number; name: string; under: string[] }[];
}

/** An ACL as YuniKorn's configuration writes it: `*`, or users and groups separated by a space. */
export function aclText(acl: AclData): string {
  if (acl.all) return "*";
  if (acl.users.length === 0 && acl.groups.length === 0) return "";
  return `${acl.users.join(",")} ${acl.groups.join(",")}`.trimEnd();
}

/**
 * The queue paths a rule can name, without a request, as a pattern: each segment a
 * name or `*` (any one name), or `null` for any queue at all. A `fixed` rule names its
 * queue (under its parent's when not qualified); `user` and `tag` name a child of their
 * parent's queue (root without one); `provided` names any queue the application asks
 * for when it has no parent, else a child of the parent's.
 */
function patternOf(rule: RuleData): string[] | null {
  if (rule.kind === "fixed" && rule.qualified) return rule.value.split(".");
  if (rule.kind === "provided" && rule.parent === null) return null;
  const parent = rule.parent === null ? ["root"] : patternOf(rule.parent);
  if (parent === null) return null;
  return [...parent, rule.kind === "fixed" ? rule.value : "*"];
}

function matches(pattern: string[] | null, path: string): boolean {
  if (pattern === null) return true;
  const segments = path.split(".");
  return segments.length === pattern.length && pattern.every((p, i) => p === "*" || p === segments[i]);
}

/** The configured queue tree of one partition, each queue with the rules that can place into it. */
export function partitionTree(partition: PartitionData): PartitionTree {
  const patterns = partition.rules.map(patternOf);
  const nodes = new Map<string, QueueTreeNode>();
  for (const q of partition.queues) {
    const dot = q.path.lastIndexOf(".");
    const rules: PlacingRule[] = [];
    patterns.forEach((pattern, index) => {
      if (q.leaf && matches(pattern, q.path)) rules.push({ index, name: partition.rules[index].kind });
    });
    nodes.set(q.path, {
      queuename: q.path,
      partition: partition.name,
      isLeaf: q.leaf,
      isManaged: true,
      parent: dot < 0 ? "" : q.path.slice(0, dot),
      submitacl: aclText(q.submit),
      adminacl: aclText(q.admin),
      rules,
      children: [],
    });
  }
  for (const node of nodes.values()) if (node.parent !== "") nodes.get(node.parent)?.children.push(node);
  const creates = partition.rules.flatMap((rule, index) => {
    if (!rule.create) return [];
    const pattern = patterns[index];
    const under =
      pattern === null
        ? ["*"]
        : partition.queues.filter((q) => !q.leaf && matches(pattern.slice(0, -1), q.path)).map((q) => q.path);
    return [{ index, name: rule.kind, under }];
  });
  return {
    name: partition.name,
    defaultqueue: partition.defaultQueue,
    root: nodes.get("root") ?? null,
    creates,
  };
}

/** Every partition's tree, or the one named (lower-cased); an unknown name gives none. */
export function queueTrees(data: PlacementData, partition?: string): PartitionTree[] {
  const wanted = partition?.toLowerCase();
  return data.partitions.filter((p) => wanted === undefined || p.name === wanted).map(partitionTree);
}
