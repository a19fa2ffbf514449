import { Hono } from "hono";
import { decidePlacement, type PlacementPolicy } from "../../engines/placement/index.js";
import { queueTrees } from "../../engines/placement/queue-tree.js";
import { placementData, type StoredPlacement } from "../../engines/placement/store.js";
import type { PlacementData } from "../../engines/placement/types.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { requireRole } from "../auth.js";
import { ApiError } from "../errors.js";
import { queueTreeSchemas } from "../schemas/placement-queues.js";
import { decisionRoute, type RouteContext } from "../decision.js";
import type { AppEnv } from "../../env.js";
import { EXPLAIN_QUERY, registerOperation } from "../openapi.js";
import { PlaceRequest, placeVerdictSchema } from "../schemas/placement.js";

/** Decides one placement request in the Worker (the route's and the playground's decide). */
export function decidePlace(
  policy: PlacementPolicy,
  request: PlaceRequest,
  ctx: Pick<RouteContext, "explain">,
) {
  return decidePlacement(policy, request, { explain: ctx.explain });
}

/** What `POST /v1/place` decides with (bench/ladder/ builds its rungs from it). */
export const placeDecision = { engine: "placement" as const, schema: PlaceRequest, decide: decidePlace };

/** `POST /v1/place`: which queue an application goes to, under the active YuniKorn placement policy. */
export const placementRoutes = new Hono<AppEnv>()
  .post("/v1/place", decisionRoute(placeDecision))
  .get("/v1/placement/queues", requireRole("admin"), async (c) => {
    const active = await getActiveBundle(c.env);
    const stored = active.bundle.engines.placement?.compiled as StoredPlacement | PlacementData | undefined;
    if (stored === undefined) throw new ApiError("not_found", "no `placement` policy is loaded");
    const partition = c.req.query("partition");
    const partitions = queueTrees(placementData(stored), partition);
    if (partition !== undefined && partitions.length === 0)
      throw new ApiError("not_found", `\`partition\`: there is no partition \`${partition}\``);
    return c.json({ revision: active.revision, partitions });
  });

registerOperation({
  operationId: "placeApplication",
  method: "post",
  path: "/v1/place",
  summary: "Place an application in a queue (YuniKorn placement rules and queue ACLs)",
  tag: "placement",
  auth: "decision",
  request: PlaceRequest,
  response: placeVerdictSchema,
  query: [EXPLAIN_QUERY],
});
registerOperation({
  operationId: "placementQueues",
  method: "get",
  path: "/v1/placement/queues",
  summary:
    "The active placement policy's configured queue tree per partition (YuniKorn's /ws/v1/partition/{p}/queues shape where it fits), each queue with its ACLs, leaf flag and the rules that can place into it",
  tag: "placement",
  auth: "admin",
  query: [{ name: "partition", description: "only this partition", schema: { type: "string" } }],
  response: () => queueTreeSchemas().QueueTreeList,
  errors: ["not_found"],
});
