import * as z from "zod";
import { AllocateRequest, AllocateResponse, HostReport } from "./hosts.js";
import { JobInput, JobVerdict } from "./jobs.js";
import { LimitsRequest, LimitsVerdict } from "./limits.js";
import { MatchRequest } from "./match.js";
import { MatchVerdict } from "./match-verdicts.js";
import { PlaceRequest, PlaceVerdict } from "./placement.js";

/** One host of a playground pool: a host report that names its host. */
export const PlaygroundHost = HostReport.extend({ name: z.string().min(1).max(256) });

/**
 * A customs playground request, as `arbiter eval customs` reads a line: the
 * pool's host reports in scan order, the allocation request, the clock (epoch
 * milliseconds, for down detection; the server's when absent) and the
 * round-robin position (the host allocated last).
 */
export const CustomsPlaygroundInput = z.strictObject({
  hosts: z.array(PlaygroundHost).max(2000),
  request: AllocateRequest,
  now: z.number().int().min(0).optional(),
  last: z.string().max(256).nullable().optional(),
});
/** A customs playground request, as validated. */
export type CustomsPlaygroundInput = z.infer<typeof CustomsPlaygroundInput>;

/**
 * A jobfilter playground request: the job, and the queue's running jobs, each
 * holding a slot (the jobs a submission is decided against, as the queue decides it).
 */
export const JobfilterPlaygroundInput = z.strictObject({
  job: JobInput,
  queue: z.strictObject({ running: z.array(JobInput).max(10_000).optional() }).optional(),
});
/** A jobfilter playground request, as validated. */
export type JobfilterPlaygroundInput = z.infer<typeof JobfilterPlaygroundInput>;

/** The request part of each engine's playground body: the body its decision route (or `arbiter eval` line) takes. */
export const PLAYGROUND_INPUTS = {
  limits: LimitsRequest,
  placement: PlaceRequest,
  match: MatchRequest,
  customs: CustomsPlaygroundInput,
  jobfilter: JobfilterPlaygroundInput,
} as const;

const policyText = z.string().describe("the policy source text, in the engine's own format (as `PUT /v1/policies/{engine}` takes it)");

/** The body of `POST /v1/playground/{engine}` for one engine. */
export function playgroundBody<S extends z.ZodType>(input: S) {
  return z.strictObject({ policy: policyText, request: input });
}

/** The body of `POST /v1/playground/{engine}`, for the OpenAPI document: the request is the engine's. */
export const PlaygroundBody = z.strictObject({
  policy: policyText,
  request: z
    .union(Object.values(PLAYGROUND_INPUTS))
    .describe(
      "limits: the body of POST /v1/limits/decide; placement: of POST /v1/place; match: of POST /v1/match; customs: {hosts, request, now?, last?}; jobfilter: {job, queue?: {running?}}",
    ),
});

/** What `POST /v1/playground/{engine}` answers: the engine's verdict with its trace. */
export const PlaygroundVerdict = z.union([LimitsVerdict, PlaceVerdict, MatchVerdict, AllocateResponse, JobVerdict]);
