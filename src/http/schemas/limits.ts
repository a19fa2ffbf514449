import { z } from "zod";
import type { JsonObject as EngineJsonObject } from "../../engines/common/json.js";
import type { LimitsRequest as EngineLimitsRequest } from "../../engines/limits/index.js";

/** Any JSON object, as task specs and schedules carry them. */
const JsonObject = z.record(z.string(), z.json());

/** A pScheduler task: its test, plus any other task keys (schedule, tools, priority, reference…) passed through. */
export const LimitsTask = z.looseObject({
  schema: z.number().int().min(1).optional(),
  test: z.looseObject({
    type: z.string().min(1),
    spec: JsonObject,
  }),
  schedule: JsonObject.optional(),
  tools: z.array(z.string()).optional(),
  priority: z.number().int().optional(),
});
/** The task object of a limits request. */
export type LimitsTask = z.infer<typeof LimitsTask>;

/** One run of a task: when it starts and for how long (ISO 8601), checked by run-schedule limits. */
export const LimitsRun = z.strictObject({
  start: z.string().min(1),
  duration: z.string().min(1),
});
/** A run of a task. */
export type LimitsRun = z.infer<typeof LimitsRun>;

/**
 * The body of POST /v1/limits/decide: the task, the hints pScheduler passes
 * (requester, server), an optional run, and the rewrite / prioritize switches
 * of pScheduler's limit processor. Unknown top-level keys are refused so a
 * misspelt `prioritise` is a 400, not a silent default.
 */
export const LimitsRequest = z.strictObject({
  requester: z.string().min(1).optional(),
  server: z.string().min(1).optional(),
  task: LimitsTask,
  run: LimitsRun.optional(),
  rewrite: z.boolean().optional(),
  prioritize: z.boolean().optional(),
});
/** A limits decision request after validation. */
export type LimitsRequest = z.infer<typeof LimitsRequest>;

/**
 * The verdict of POST /v1/limits/decide: the frame's envelope, then the
 * engine's answer. A denial is still HTTP 200, with `allowed` false and the
 * reasons in `diagnostics` (pScheduler's diags text, line for line).
 */
export const LimitsVerdict = z.object({
  decision_id: z.string(),
  revision: z.string(),
  cacheable: z.boolean().describe("false when DNS, a downloaded list or the clock was consulted"),
  allowed: z.boolean(),
  task: JsonObject.nullable().describe("the rewritten task, or null when no rewriter ran"),
  changes: z.array(z.string()).describe("what the rewriter changed, in order"),
  identifiers: z.array(z.string()).describe("identifiers that identified the requester"),
  classifiers: z.array(z.string()).describe("classifiers the requester falls into"),
  priority: z.number().nullable(),
  diagnostics: z.string(),
  trace: z.json().optional().describe("present with ?explain=true"),
});
/** A limits verdict as the API answers it. */
export type LimitsVerdict = z.infer<typeof LimitsVerdict>;

/**
 * The engine's view of a validated request, with the requester the caller
 * settled on (the body's, else the connecting address). The engine's type
 * insists on a requester string; a request that has none (no body field and no
 * connecting address, which only happens outside Cloudflare) is passed without
 * it and the engine treats the hint as absent.
 */
export function toEngineRequest(request: LimitsRequest, requester: string | undefined): EngineLimitsRequest {
  const { requester: _given, task, ...rest } = request;
  const out = { ...rest, task: task as EngineJsonObject } as EngineLimitsRequest;
  if (requester !== undefined) out.requester = requester;
  return out;
}
