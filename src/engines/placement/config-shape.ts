/**
 * The shape of a YuniKorn scheduler configuration as Arbiter reads it: the
 * keys each mapping may hold and the kind of each value. The decoder
 * (`parse.ts`) takes its key lists from these schemas, and the JSON Schema of
 * placement.yaml is generated from them, so a key is declared once. Values
 * follow Go's YAML decoding into YuniKorn's structs: a string field takes any
 * scalar (`name: 123` is the string "123"), and `null` stands for an absent value.
 * Keys YuniKorn has but placement does not use are accepted with any value.
 */
import { z } from "zod";

/** Any scalar: Go's decoder turns it into a string where a string is expected (null into ""). */
const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
/** A string field. */
const text = (description: string) => scalar.optional().describe(description);
const flag = (description: string) => z.boolean().nullable().optional().describe(description);
const ignored = (what: string) => z.unknown().optional().describe(`${what}: accepted and ignored by placement`);

/** A placement rule filter: which users and groups a rule applies to (regular expressions allowed). */
export const PlacementFilterShape = z.strictObject({
  type: text("`allow` (default) or `deny`"),
  users: z.array(scalar).nullable().optional().describe("user names or regular expressions"),
  groups: z.array(scalar).nullable().optional().describe("group names or regular expressions"),
});

/** A placement rule, with an optional parent rule that names the queue it goes under. */
export const PlacementRuleShape = z.strictObject({
  name: text("provided, user, primaryGroup, secondaryGroup, tag, fixed (or recovery)"),
  create: flag("whether the rule may create the queue it names"),
  filter: PlacementFilterShape.nullable().optional(),
  get parent() {
    return PlacementRuleShape.nullable().optional().describe("the rule naming the parent queue");
  },
  value: text("the tag name (tag rule) or the queue (fixed rule)"),
}).meta({ id: "PlacementRule" });

/** A queue's `resources`: the keys are checked, the quantities are not used by placement. */
export const QueueResourcesShape = z.strictObject({
  guaranteed: ignored("guaranteed resources"),
  max: ignored("maximum resources"),
});

/** A queue and its children. */
export const QueueShape = z.strictObject({
  name: text("the queue's name (no dots)"),
  parent: flag("a parent queue even without children"),
  resources: QueueResourcesShape.nullable().optional(),
  maxapplications: ignored("maximum running applications"),
  properties: ignored("queue properties"),
  adminacl: text("the administration ACL: `users groups`, or `*`"),
  submitacl: text("the submission ACL: `users groups`, or `*`"),
  childtemplate: ignored("the template of dynamically created children"),
  get queues() {
    return z.array(QueueShape).nullable().optional().describe("the child queues");
  },
  limits: ignored("queue limits"),
}).meta({ id: "Queue" });

/** A partition: its queues and placement rules. */
export const PartitionShape = z.strictObject({
  name: text("the partition's name"),
  queues: z.array(QueueShape).nullable().optional().describe("the queue tree, starting with root"),
  placementrules: z.array(PlacementRuleShape).nullable().optional().describe("the rules, tried in order"),
  limits: ignored("partition limits"),
  preemption: ignored("preemption settings"),
  nodesortpolicy: ignored("node sorting policy"),
  usergroupresolver: ignored("user group resolver"),
  defaultqueue: text("Arbiter extension: the queue an application no rule placed goes to"),
});

/** A whole scheduler configuration (queues.yaml). */
export const PlacementConfigShape = z
  .strictObject({
    partitions: z.array(PartitionShape).nullable().optional(),
    checksum: ignored("the configuration checksum"),
  })
  .meta({ title: "Arbiter placement policy (YuniKorn queues.yaml)" });

/** The keys a mapping of this shape may hold, in declaration order. */
export function keysOf(shape: { shape: Record<string, unknown> }): string[] {
  return Object.keys(shape.shape);
}
