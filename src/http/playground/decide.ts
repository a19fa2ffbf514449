import type { z } from "zod";
import type { Decision } from "../../engines/common/decision.js";
import type { EngineName } from "../../engines/common/engine.js";
import { decideCustoms, type CustomsPolicy } from "../../engines/customs/index.js";
import { decideJobfilter, type Job, type JobfilterPolicy } from "../../engines/jobfilter/index.js";
import type { PlacementPolicy } from "../../engines/placement/index.js";
import type { RouteContext } from "../decision.js";
import { ApiError } from "../errors.js";
import { decide as decideLimitsRequest } from "../routes/limits.js";
import { decideMatchRequest } from "../routes/match.js";
import { decidePlace } from "../routes/placement.js";
import { PLAYGROUND_INPUTS, type CustomsPlaygroundInput, type JobfilterPlaygroundInput } from "../schemas/playground.js";

/** What a playground decision gets besides the policy and the request. */
export type PlaygroundContext = Pick<RouteContext, "env" | "now" | "explain" | "connectingIp" | "budget">;

/** How the playground drives one engine: the request schema and the decide function. */
export interface PlaygroundEngine {
  readonly schema: z.ZodType;
  /** Whether the request is read with exact integers (Ganeti's nanosecond timestamps). */
  readonly exactJson: boolean;
  decide(policy: unknown, request: unknown, ctx: PlaygroundContext): Decision<object> | Promise<Decision<object>>;
}

/**
 * Customs in the playground: the pool is the request's host reports, held only
 * for this call, and the host is chosen by the same pure selection the host pool
 * object runs (`decideCustoms`, as `arbiter eval customs`); nothing is allocated.
 */
function decideCustomsPool(policy: CustomsPolicy, request: CustomsPlaygroundInput, ctx: PlaygroundContext): Decision<object> {
  const decided = decideCustoms(policy, request, ctx.now);
  if (!decided.ok) {
    const details = decided.error.map((e) => ({ code: e.code, message: e.message, at: `/request${e.at}` }));
    throw new ApiError("invalid_request", details[0]?.message ?? "the request is invalid", details);
  }
  const { host, ratings } = decided.value;
  const address = host === null ? null : (request.hosts.find((h) => h.name === host)?.address ?? null);
  return {
    verdict: { host, address, ...(host === null ? { reason: "no host available" } : {}) },
    cacheable: false,
    outcome: host === null ? "no_host" : "allocated",
    trace: { ratings },
  };
}

/**
 * The jobfilter in the playground: the queue is the request's running and
 * queued-ahead jobs, and the job is decided by the engine's own decision
 * (`decideJobfilter`, as `arbiter eval jobfilter`); no queue object is touched.
 */
function decideJobPool(policy: JobfilterPolicy, request: JobfilterPlaygroundInput, ctx: PlaygroundContext): Decision<object> {
  const queue = { running: (request.queue?.running ?? []) as Job[], queued: (request.queue?.queued ?? []) as Job[] };
  return decideJobfilter(policy, { job: request.job as Job, queue }, { explain: ctx.explain });
}

/** Every engine the playground drives, each through the decide function its own route or object uses. */
export const PLAYGROUND_ENGINES: Readonly<Record<EngineName, PlaygroundEngine>> = {
  limits: {
    schema: PLAYGROUND_INPUTS.limits,
    exactJson: false,
    decide: (policy, request, ctx) => decideLimitsRequest(policy as never, request as never, ctx),
  },
  placement: {
    schema: PLAYGROUND_INPUTS.placement,
    exactJson: false,
    decide: (policy, request, ctx) => decidePlace(policy as PlacementPolicy, request as never, ctx),
  },
  match: {
    schema: PLAYGROUND_INPUTS.match,
    exactJson: false,
    decide: (policy, request, ctx) => decideMatchRequest(policy as never, request as never, ctx),
  },
  customs: {
    schema: PLAYGROUND_INPUTS.customs,
    exactJson: false,
    decide: (policy, request, ctx) => decideCustomsPool(policy as CustomsPolicy, request as CustomsPlaygroundInput, ctx),
  },
  jobfilter: {
    schema: PLAYGROUND_INPUTS.jobfilter,
    exactJson: true,
    decide: (policy, request, ctx) => decideJobPool(policy as JobfilterPolicy, request as JobfilterPlaygroundInput, ctx),
  },
};
