/**
 * The shape of a YuniKorn scheduler configuration as Arbiter reads it: the
 * keys each mapping may hold and the kind of each value. The decoder
 * (`parse.ts`) takes its key lists from these schemas, and the JSON Schema of
 * placement.yaml is generated from them, so a key is declared once. Values
 * follow Go's YAML decoding into YuniKorn's structs: a string field takes any
 * scalar (`name: 123` is the string "123"), and `null` stands for an absent value.
 * Keys YuniKorn has but placement does not use are decoded and validated as
 * YuniKorn does (resources, limits), then not used.
 *
 * The schemas are made on the first call of `placementShapes()` and kept: an isolate that
 * decodes no placement.yaml (every Worker that only decides) never builds them
 * (docs/performance.md, wt/heap2).
 */
import * as z from "zod";
import { lazily } from "../common/lazy.js";

function placementShapesBuild() {
  /** Any scalar: Go's decoder turns it into a string where a string is expected (null into ""). */
  const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
  /** A string field. */
  const text = (description: string) => scalar.optional().describe(description);
  const flag = (description: string) => z.boolean().nullable().optional().describe(description);
  /** A `map[string]string` of YuniKorn's: any scalar as each value. */
  const textMap = (description: string) =>
    z.record(z.string(), scalar).nullable().optional().describe(description);
  /** A `uint64` of YuniKorn's. */
  const count = (description: string) => z.number().int().min(0).nullable().optional().describe(description);

  /** A placement rule filter: which users and groups a rule applies to (regular expressions allowed). */
  const PlacementFilterShape = z.strictObject({
    type: text("`allow` (default) or `deny`"),
    users: z.array(scalar).nullable().optional().describe("user names or regular expressions"),
    groups: z.array(scalar).nullable().optional().describe("group names or regular expressions"),
  });

  /** A placement rule, with an optional parent rule that names the queue it goes under. */
  const PlacementRuleShape = z
    .strictObject({
      name: text("provided, user, primaryGroup, secondaryGroup, tag, fixed (or recovery)"),
      create: flag("whether the rule may create the queue it names"),
      filter: PlacementFilterShape.nullable().optional(),
      get parent() {
        return PlacementRuleShape.nullable().optional().describe("the rule naming the parent queue");
      },
      value: text("the tag name (tag rule) or the queue (fixed rule)"),
    })
    .meta({ id: "PlacementRule" });

  /** A queue's `resources`: quantities by resource name (`memory: 10G`, `vcore: 500m`), validated as YuniKorn does; placement does not use them. */
  const QueueResourcesShape = z.strictObject({
    guaranteed: textMap("guaranteed resources"),
    max: textMap("maximum resources"),
  });

  /** A user and group limit of a queue or a partition: validated as YuniKorn does; placement does not use it. */
  const LimitShape = z.strictObject({
    limit: text("a description"),
    users: z.array(scalar).nullable().optional().describe("user names, or `*`"),
    groups: z.array(scalar).nullable().optional().describe("group names, or `*`"),
    maxresources: textMap("maximum resources of each user or group"),
    maxapplications: count("maximum running applications of each user or group"),
  });

  /** The template of dynamically created children. */
  const ChildTemplateShape = z.strictObject({
    maxapplications: count("maximum running applications"),
    properties: textMap("queue properties"),
    resources: QueueResourcesShape.nullable().optional(),
  });

  /** A partition's preemption switches. */
  const PreemptionShape = z.strictObject({
    enabled: flag("preemption on"),
    quotapreemptionenabled: flag("quota preemption on"),
  });

  /** A partition's node sorting: `fair` (default) or `binpacking`, and weights per resource. */
  const NodeSortPolicyShape = z.strictObject({
    type: text("`fair` or `binpacking`"),
    resourceweights: z
      .record(z.string(), z.number())
      .nullable()
      .optional()
      .describe("weight per resource name"),
  });

  /** How users' groups are resolved. */
  const UserGroupResolverShape = z.strictObject({ type: text("the resolver") });

  const limitList = (description: string) => z.array(LimitShape).nullable().optional().describe(description);

  /** A queue and its children. */
  const QueueShape = z
    .strictObject({
      name: text("the queue's name (no dots)"),
      parent: flag("a parent queue even without children"),
      resources: QueueResourcesShape.nullable().optional(),
      maxapplications: count("maximum running applications"),
      properties: textMap("queue properties"),
      adminacl: text("the administration ACL: `users groups`, or `*`"),
      submitacl: text("the submission ACL: `users groups`, or `*`"),
      childtemplate: ChildTemplateShape.nullable().optional(),
      get queues() {
        return z.array(QueueShape).nullable().optional().describe("the child queues");
      },
      limits: limitList("user and group limits of the queue"),
    })
    .meta({ id: "Queue" });

  /** A partition: its queues and placement rules. */
  const PartitionShape = z.strictObject({
    name: text("the partition's name"),
    queues: z.array(QueueShape).nullable().optional().describe("the queue tree, starting with root"),
    placementrules: z.array(PlacementRuleShape).nullable().optional().describe("the rules, tried in order"),
    limits: limitList("user and group limits of the partition (as the root queue's)"),
    preemption: PreemptionShape.nullable().optional(),
    nodesortpolicy: NodeSortPolicyShape.nullable().optional(),
    usergroupresolver: UserGroupResolverShape.nullable().optional(),
    defaultqueue: text("Arbiter extension: the queue an application no rule placed goes to"),
  });

  /** A whole scheduler configuration (queues.yaml). */
  const PlacementConfigShape = z
    .strictObject({
      partitions: z.array(PartitionShape).nullable().optional(),
      checksum: text("the configuration checksum"),
    })
    .meta({ title: "Arbiter placement policy (YuniKorn queues.yaml)" });

  return {
    PlacementFilterShape,
    PlacementRuleShape,
    QueueResourcesShape,
    LimitShape,
    ChildTemplateShape,
    PreemptionShape,
    NodeSortPolicyShape,
    UserGroupResolverShape,
    QueueShape,
    PartitionShape,
    PlacementConfigShape,
  };
}

/** The shapes of a scheduler configuration, made on the first call and kept. */
export const placementShapes = lazily(placementShapesBuild);

/** The keys a mapping of this shape may hold, in declaration order. */
export function keysOf(shape: { shape: Record<string, unknown> }): string[] {
  return Object.keys(shape.shape);
}
