import { decidePlacement, type PlacementPolicy, type PlaceVerdict } from "../engines/placement/index.js";
import { PlaceRequest } from "../http/schemas/placement.js";
import type { PolicyEvaluator } from "./evaluator.js";

/** `arbiter eval placement`: the same request schema and decide function as `POST /v1/place`. */
export const placementEvaluator: PolicyEvaluator<typeof PlaceRequest, PlacementPolicy, PlaceVerdict> = {
  engine: "placement",
  schema: PlaceRequest,
  decide: (policy, request, ctx) => decidePlacement(policy, request, { explain: ctx.explain }),
};
