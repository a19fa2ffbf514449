import { Hono } from "hono";
import { decidePlacement, type PlacementPolicy } from "../../engines/placement/index.js";
import { decisionRoute, type RouteContext } from "../decision.js";
import type { AppEnv } from "../../env.js";
import { EXPLAIN_QUERY, registerOperation } from "../openapi.js";
import { PlaceRequest, PlaceVerdict } from "../schemas/placement.js";

/** Decides one placement request in the Worker (the route's and the playground's decide). */
export function decidePlace(policy: PlacementPolicy, request: PlaceRequest, ctx: Pick<RouteContext, "explain">) {
  return decidePlacement(policy, request, { explain: ctx.explain });
}

/** `POST /v1/place`: which queue an application goes to, under the active YuniKorn placement policy. */
export const placementRoutes = new Hono<AppEnv>().post(
  "/v1/place",
  decisionRoute({
    engine: "placement",
    schema: PlaceRequest,
    decide: decidePlace,
  }),
);

registerOperation({
  operationId: "placeApplication",
  method: "post",
  path: "/v1/place",
  summary: "Place an application in a queue (YuniKorn placement rules and queue ACLs)",
  tag: "placement",
  auth: "decision",
  request: PlaceRequest,
  response: PlaceVerdict,
  query: [EXPLAIN_QUERY],
});
