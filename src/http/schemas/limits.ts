import * as z from "zod";
import { MAX_JSON_DEPTH } from "../../engines/common/json-shape.js";
import type { JsonObject as EngineJsonObject } from "../../engines/common/json.js";
import type { LimitsRequest as EngineLimitsRequest } from "../../engines/limits/index.js";
import { lazily } from "../../engines/common/lazy.js";

/** Any JSON object, as task specs and schedules carry them. */
const JsonObject = z.record(z.string(), z.json());

/** The task, run and request schemas (described at their exports below), around the schema of the JSON objects a task carries. */
function limitsSchemas(jsonObject: typeof JsonObject) {
  const LimitsTask = z.looseObject({
    schema: z.number().int().min(1).optional(),
    test: z.looseObject({
      type: z.string().min(1),
      spec: jsonObject,
    }),
    schedule: jsonObject.optional(),
    tools: z.array(z.string()).optional(),
    priority: z.number().int().optional(),
  });

  const LimitsRun = z.strictObject({
    start: z.string().min(1),
    duration: z.string().min(1),
  });

  const LimitsRequest = z.strictObject({
    requester: z.string().min(1).optional(),
    server: z.string().min(1).optional(),
    task: LimitsTask,
    run: LimitsRun.optional(),
    rewrite: z.boolean().optional(),
    prioritize: z.boolean().optional(),
  });
  return { LimitsTask, LimitsRun, LimitsRequest };
}

const schemas = limitsSchemas(JsonObject);

/** A pScheduler task: its test, plus any other task keys (schedule, tools, priority, reference…) passed through. */
export const LimitsTask = schemas.LimitsTask;
/** The task object of a limits request. */
export type LimitsTask = z.infer<typeof LimitsTask>;

/** One run of a task: when it starts and for how long (ISO 8601), checked by run-schedule limits. */
export const LimitsRun = schemas.LimitsRun;
/** A run of a task. */
export type LimitsRun = z.infer<typeof LimitsRun>;

/**
 * The body of POST /v1/limits/decide: the task, the hints pScheduler passes
 * (requester, server), an optional run, and the rewrite / prioritize switches
 * of pScheduler's limit processor. Unknown top-level keys are refused so a
 * misspelt `prioritise` is a 400, not a silent default.
 */
export const LimitsRequest = schemas.LimitsRequest;
/** A limits decision request after validation. */
export type LimitsRequest = z.infer<typeof LimitsRequest>;

/** Whether a value is JSON that `z.json()` takes as it is: no number past the doubles, no `__proto__` key, not deeper than a body may be. */
function plainJson(value: unknown, depth: number): boolean {
  if (typeof value === "string" || typeof value === "boolean" || value === null) return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || depth > MAX_JSON_DEPTH) return false;
  if (Array.isArray(value)) {
    for (const item of value) if (!plainJson(item, depth + 1)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === "__proto__" || !plainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/**
 * A JSON object `JsonObject` takes, checked by `plainJson` and answered as the object itself,
 * where `z.json()` answers a copy equal to it: the route validates objects JSON.parse made for
 * this request alone, and nothing changes them (the limits engine and its jq copy what they
 * change; src/http/compiled-schema.test.ts guards it). The copy of `spec` and `schedule` cost
 * about 1,500 instructions a request (docs/performance.md, wt/floor8).
 */
const PlainJsonObject = z.custom<Record<string, unknown>>(
  (v) => typeof v === "object" && v !== null && !Array.isArray(v) && plainJson(v, 1),
);

/**
 * LimitsRequest with its JSON objects checked by plain functions instead of the
 * self-referring `z.json()`, which zod cannot compile: it takes part of what
 * LimitsRequest takes (a body it refuses is validated by LimitsRequest, whose
 * errors the answer gives) and answers what LimitsRequest answers for it.
 */
export const LimitsRequestFast = limitsSchemas(PlainJsonObject as unknown as typeof JsonObject).LimitsRequest;

/**
 * The verdict of POST /v1/limits/decide: the frame's envelope, then the
 * engine's answer. A denial is still HTTP 200, with `allowed` false and the
 * reasons in `diagnostics` (pScheduler's diags text, line for line). For the OpenAPI document
 * and the playground's and policy test file's schemas: made on the first call and kept, not in
 * every isolate at load (no route validates with it; docs/performance.md, wt/heap2).
 */
function limitsVerdictBuild() {
  return z.object({
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
}

/** The limits verdict's schema, made on the first call and kept. */
export const limitsVerdictSchema = lazily(limitsVerdictBuild);
/** A limits verdict as the API answers it. */
export type LimitsVerdict = z.infer<ReturnType<typeof limitsVerdictSchema>>;

/**
 * The engine's view of a validated request, with the requester the caller
 * settled on (the body's, else the connecting address). The engine's type
 * insists on a requester string; a request that has none (no body field and no
 * connecting address, which only happens outside Cloudflare) is passed without
 * it and the engine treats the hint as absent.
 */
export function toEngineRequest(request: LimitsRequest, requester: string | undefined): EngineLimitsRequest {
  // one literal with every member, absent ones undefined (the engine reads each as a property), so
  // that every engine request has the literal's hidden class: a spread of the body's members gave
  // one reached only through V8's weak transitions, which died at each full collection between
  // requests with the optimized code that read it (src/engines/common/shapes.ts, wt/stall2)
  return {
    requester: requester as string,
    server: request.server,
    task: request.task as EngineJsonObject,
    run: request.run,
    rewrite: request.rewrite,
    prioritize: request.prioritize,
  };
}
