import * as z from "zod";
import { hostSchemas } from "./hosts.js";
import { jobSchemas } from "./jobs.js";
import { LimitsRequest, limitsVerdictSchema } from "./limits.js";
import { MatchRequest } from "./match.js";
import { matchVerdictSchemas } from "./match-verdicts.js";
import { PlaceRequest, placeVerdictSchema } from "./placement.js";
import { lazily } from "../../engines/common/lazy.js";

/** A playground body's policy: its source text. */
export const policyText = z
  .string()
  .describe("the policy source text, in the engine's own format (as `PUT /v1/policies/{engine}` takes it)");

/** The body of `POST /v1/playground/{engine}` for one engine. */
export function playgroundBody<S extends z.ZodType>(input: S) {
  return z.strictObject({ policy: policyText, request: input });
}

/**
 * The playground's schemas, made on the first call and kept: the customs and jobfilter inputs and the
 * verdicts are built from the host and job routes' schemas, which an isolate now makes on first use
 * (docs/performance.md, wt/lazyschema2).
 */
function buildPlaygroundSchemas() {
  const { HostReport, AllocateRequest, AllocateResponse } = hostSchemas();
  const { JobInput, JobVerdict } = jobSchemas();

  /** One host of a playground pool: a host report that names its host. */
  const PlaygroundHost = HostReport.extend({ name: z.string().min(1).max(256) });

  /**
   * A customs playground request, as `arbiter eval customs` reads a line: the
   * pool's host reports in scan order, the allocation request, the clock (epoch
   * milliseconds, for down detection; the server's when absent) and the
   * round-robin position (the host allocated last).
   */
  const CustomsPlaygroundInput = z.strictObject({
    hosts: z.array(PlaygroundHost).max(2000),
    request: AllocateRequest,
    now: z.number().int().min(0).optional(),
    last: z.string().max(256).nullable().optional(),
  });

  /**
   * A jobfilter playground request: the job, and the queue's running jobs, each
   * holding a slot (the jobs a submission is decided against, as the queue decides it).
   */
  const JobfilterPlaygroundInput = z.strictObject({
    job: JobInput,
    queue: z.strictObject({ running: z.array(JobInput).max(10_000).optional() }).optional(),
  });

  /** The request part of each engine's playground body: the body its decision route (or `arbiter eval` line) takes. */
  const PLAYGROUND_INPUTS = {
    limits: LimitsRequest,
    placement: PlaceRequest,
    match: MatchRequest,
    customs: CustomsPlaygroundInput,
    jobfilter: JobfilterPlaygroundInput,
  } as const;

  /** The body of `POST /v1/playground/{engine}`, for the OpenAPI document: the request is the engine's. */
  const PlaygroundBody = z.strictObject({
    policy: policyText,
    request: z
      .union(Object.values(PLAYGROUND_INPUTS))
      .describe(
        "limits: the body of POST /v1/limits/decide; placement: of POST /v1/place; match: of POST /v1/match; customs: {hosts, request, now?, last?}; jobfilter: {job, queue?: {running?}}",
      ),
  });

  /** What `POST /v1/playground/{engine}` answers: the engine's verdict with its trace. */
  const PlaygroundVerdict = z.union([
    limitsVerdictSchema(),
    placeVerdictSchema(),
    matchVerdictSchemas().MatchVerdict,
    AllocateResponse,
    JobVerdict,
  ]);
  return {
    PlaygroundHost,
    CustomsPlaygroundInput,
    JobfilterPlaygroundInput,
    PLAYGROUND_INPUTS,
    PlaygroundBody,
    PlaygroundVerdict,
  };
}

/** The playground's schemas (the engines' inputs, the body and verdict the document shows), made once. */
export const playgroundSchemas = lazily(buildPlaygroundSchemas);

/** See `playgroundSchemas().CustomsPlaygroundInput`. */
export type CustomsPlaygroundInput = z.infer<ReturnType<typeof playgroundSchemas>["CustomsPlaygroundInput"]>;
/** See `playgroundSchemas().JobfilterPlaygroundInput`. */
export type JobfilterPlaygroundInput = z.infer<
  ReturnType<typeof playgroundSchemas>["JobfilterPlaygroundInput"]
>;
