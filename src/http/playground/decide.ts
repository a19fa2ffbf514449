import type { z } from "zod";
import type { Decision } from "../../engines/common/decision.js";
import type { EngineName } from "../../engines/common/engine.js";
import {
  normalizeRequest,
  preparePool,
  prepareRequest,
  type CustomsPolicy,
} from "../../engines/customs/index.js";
import type { Job, JobfilterPolicy } from "../../engines/jobfilter/index.js";
import type { PolicyError } from "../../engines/common/result.js";
import { numberVar } from "../../env.js";
import { allocationAnswer, HostPoolCore, type PoolPolicy } from "../../state/host-pool-core.js";
import { MemoryPoolTables } from "../../state/host-pool-store.js";
import { JobQueueCore } from "../../state/job-queue-core.js";
import { MemoryQueueTables } from "../../state/job-queue-store.js";
import { isFailure } from "../../state/job-queue-types.js";
import type { PlacementPolicy } from "../../engines/placement/index.js";
import type { RouteContext } from "../decision.js";
import { ApiError } from "../errors.js";
import { decide as decideLimitsRequest } from "../routes/limits.js";
import { decideMatchWithAnalysis } from "../routes/match.js";
import { decidePlace } from "../routes/placement.js";
import {
  playgroundSchemas,
  type CustomsPlaygroundInput,
  type JobfilterPlaygroundInput,
} from "../schemas/playground.js";

/** What a playground decision gets besides the policy and the request: the route's context, and the posted policy's revision. */
export type PlaygroundContext = Pick<
  RouteContext,
  "env" | "now" | "explain" | "connectingIp" | "budget" | "revision"
>;

/** How the playground drives one engine: the request schema and the decide function. */
export interface PlaygroundEngine {
  readonly schema: z.ZodType;
  /** Whether the request is read with exact integers (Ganeti's nanosecond timestamps). */
  readonly exactJson: boolean;
  decide(
    policy: unknown,
    request: unknown,
    ctx: PlaygroundContext,
  ): Decision<object> | Promise<Decision<object>>;
}

/** Turns engine errors about the request into the 400 that names each field (`at` under `/request`). */
function requestError(errors: readonly PolicyError[]): ApiError {
  const details = errors.map((e) => ({ code: e.code, message: e.message, at: e.at }));
  return new ApiError("invalid_request", details[0]?.message ?? "the request is invalid", details);
}

/**
 * Customs in the playground: a host pool in memory per network number, as the
 * Worker keeps one Durable Object per network, running the objects' own logic
 * (`HostPoolCore` over `MemoryPoolTables`, as `arbiter test` does). Each host of
 * the request reports at `now`, the request's `last` sets the round-robin
 * position, and the allocation answers what `POST /v1/hosts/allocate?explain=true`
 * would from that pool; the pool is dropped after the call.
 */
function decideCustomsPool(
  policy: CustomsPolicy,
  request: CustomsPlaygroundInput,
  ctx: PlaygroundContext,
): Decision<object> {
  const hosts = preparePool(policy, request.hosts, "/request/hosts");
  const wanted = normalizeRequest(request.request, "/request/request");
  if (!hosts.ok || !wanted.ok)
    throw requestError([...(hosts.ok ? [] : hosts.error), ...(wanted.ok ? [] : wanted.error)]);
  const prepared = prepareRequest(wanted.value, "/request/request");
  if (!prepared.ok) throw requestError(prepared.error);
  const now = request.now ?? ctx.now;
  const pp: PoolPolicy = { revision: ctx.revision, data: policy };
  const pools = new Map<number, HostPoolCore>();
  const poolOf = (net: number) => {
    let pool = pools.get(net);
    if (pool === undefined) pools.set(net, (pool = new HostPoolCore(new MemoryPoolTables())));
    return pool;
  };
  for (const h of hosts.value) poolOf(h.host.net).report(pp, h.host, now);
  const pool = poolOf(wanted.value.net);
  if (typeof request.last === "string") pool.tables.setMeta("last", request.last);
  const answer = allocationAnswer(
    pool.allocate(pp, wanted.value, now, true),
    { decision_id: "", revision: ctx.revision },
    true,
  );
  const { decision_id: _id, revision: _revision, cacheable: _cacheable, trace, ...verdict } = answer;
  return { verdict, cacheable: false, outcome: answer.host === null ? "no_host" : "allocated", trace };
}

/**
 * The jobfilter in the playground: a job queue in memory seeded with the
 * posted rules and the request's running jobs (each holding a slot under a
 * lease), running the queue object's own logic (`JobQueueCore` over
 * `MemoryQueueTables`, as `arbiter test` does); the job is then submitted and
 * the answer is what `POST /v1/queues/{queue}/jobs?explain=true` would give.
 */
function decideJobPool(
  policy: JobfilterPolicy,
  request: JobfilterPlaygroundInput,
  ctx: PlaygroundContext,
): Decision<object> {
  const tables = new MemoryQueueTables();
  const leaseMs = numberVar(ctx.env.LEASE_SECONDS, 600) * 1000;
  const queue = new JobQueueCore(tables, {
    leaseMs: () => leaseMs,
    budget: () => ctx.budget,
    newId: () => crypto.randomUUID(),
    log: () => {},
  });
  queue.seed(policy.rules, ctx.revision);
  const running = request.queue?.running ?? [];
  const seen = new Set<number>();
  running.forEach((job, i) => {
    if (seen.has(job.id))
      throw requestError([
        {
          code: "duplicate_job",
          message: `job \`${job.id}\` is running twice`,
          at: `/request/queue/running/${i}/id`,
        },
      ]);
    seen.add(job.id);
    tables.seeJobId(job.id);
    const row = {
      id: job.id,
      job: job as Job,
      priority: 0,
      state: "running" as const,
      action: "ACCEPT" as const,
      rule: null,
      lease_id: crypto.randomUUID(),
      lease_expires: ctx.now + leaseMs,
    };
    tables.insertJob(row, ctx.now);
  });
  const { result } = queue.submit(QUEUE, { id: request.job.id, opcodes: request.job.opcodes }, true, ctx.now);
  if (isFailure(result)) {
    const at = result.error.code === "conflict" ? "/request/job/id" : "/request";
    throw new ApiError(result.error.code, result.error.message, [
      { code: result.error.code, message: result.error.message, at },
    ]);
  }
  const { trace, ...verdict } = result;
  return { verdict, cacheable: false, outcome: verdict.action.toLowerCase(), trace };
}

/** The name the playground's queue has (it appears in nothing the answer shows). */
const QUEUE = "playground";

/** Every engine the playground drives, each through the decide function its own route or object uses. */
export const PLAYGROUND_ENGINES: Readonly<Record<EngineName, PlaygroundEngine>> = {
  limits: {
    get schema() {
      return playgroundSchemas().PLAYGROUND_INPUTS.limits;
    },
    exactJson: false,
    decide: (policy, request, ctx) => decideLimitsRequest(policy as never, request as never, ctx),
  },
  placement: {
    get schema() {
      return playgroundSchemas().PLAYGROUND_INPUTS.placement;
    },
    exactJson: false,
    decide: (policy, request, ctx) => decidePlace(policy as PlacementPolicy, request as never, ctx),
  },
  match: {
    get schema() {
      return playgroundSchemas().PLAYGROUND_INPUTS.match;
    },
    exactJson: false,
    decide: (policy, request, ctx) => decideMatchWithAnalysis(policy as never, request as never, ctx),
  },
  customs: {
    get schema() {
      return playgroundSchemas().PLAYGROUND_INPUTS.customs;
    },
    exactJson: false,
    decide: (policy, request, ctx) =>
      decideCustomsPool(policy as CustomsPolicy, request as CustomsPlaygroundInput, ctx),
  },
  jobfilter: {
    get schema() {
      return playgroundSchemas().PLAYGROUND_INPUTS.jobfilter;
    },
    exactJson: true,
    decide: (policy, request, ctx) =>
      decideJobPool(policy as JobfilterPolicy, request as JobfilterPlaygroundInput, ctx),
  },
};
