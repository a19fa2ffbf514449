/**
 * The decision requests the HTTP benchmarks send (`bench:http`, its profiler and
 * its Node twin), one per stateless decision route, so that every figure is for
 * the same body. Limits has two: `limits`, a requester on the toolkit default's
 * hackers list, denied by its first group before any jq runs (the cheapest
 * limits path), and `limits-allowed`, a throughput task from an ordinary
 * requester that the rewriter changes (duration bumped to 5 s) and the jq limits
 * of the default classifier then pass.
 */
import { LIMITS_REQUEST } from "./fixtures.js";

export interface DecisionRequest {
  path: string;
  body: unknown;
}

/** The bench requests by route name (BENCH_ROUTES names these keys). */
export const DECISION_REQUESTS: Record<"limits" | "limits-allowed" | "place" | "match", DecisionRequest> = {
  limits: {
    path: "/v1/limits/decide",
    body: {
      requester: "198.51.100.7",
      task: {
        schema: 1,
        test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1", duration: "PT30S" } },
      },
    },
  },
  "limits-allowed": {
    path: "/v1/limits/decide",
    body: { ...LIMITS_REQUEST, rewrite: true },
  },
  place: {
    path: "/v1/place",
    body: { user: "sarah", groups: ["sarah", "dev_app"], tags: { namespace: "newapp" } },
  },
  match: {
    path: "/v1/match",
    body: {
      job: '[ Requirements = TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64"; RequestMemory = 1024; Rank = TARGET.Memory; Owner = "alice" ]',
      machines: Array.from(
        { length: 8 },
        (_, i) => `[ Name = "slot${i}"; Arch = "X86_64"; Memory = ${512 * (i + 1)}; Requirements = true ]`,
      ),
    },
  },
};
