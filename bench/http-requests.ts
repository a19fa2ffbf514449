/**
 * The decision requests the HTTP benchmarks send (`bench:http`, its profiler and
 * its Node twin), one per stateless decision route, so that every figure is for
 * the same body.
 */
export interface DecisionRequest {
  path: string;
  body: unknown;
}

export const DECISION_REQUESTS: Record<"limits" | "place" | "match", DecisionRequest> = {
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
