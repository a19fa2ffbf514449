import { parseExactJson, stringifyExactJson } from "../engines/common/exact-json.js";
import type { FilterRule, Job, JobfilterPolicy } from "../engines/jobfilter/index.js";
import { decideJobfilter, loadFilters, validateRules } from "../engines/jobfilter/index.js";
import { jobSchemas } from "../http/schemas/jobs.js";
import type { PolicyEvaluator } from "./evaluator.js";

const perFilters = new Map<string, JobfilterPolicy>();

/** The rules a line carries, loaded once per distinct list (the schema has already validated them). */
function lineFilters(filters: unknown[]): JobfilterPolicy {
  const key = stringifyExactJson(filters);
  let loaded = perFilters.get(key);
  if (loaded === undefined) {
    const checked = validateRules(filters);
    if (!checked.ok) throw new Error("bug: filters passed the schema but not the engine");
    loaded = loadFilters(checked.value as FilterRule[]);
    perFilters.set(key, loaded);
  }
  return loaded;
}

/**
 * `arbiter eval jobfilter [--policy filters.json]`: a PolicyEvaluator. Each
 * line is the pure decision's input `{filters?, job, queue?: {running?,
 * queued?}}` (the spec's `running`/`queuedAhead` spellings work too); a line's
 * own `filters` replace the rules of --policy (or of policies/filters.json).
 * It prints `{decision_id, revision, cacheable: false, action, rule}`. Lines
 * are read with exact integers, as the HTTP API reads them, so a priority or a
 * watermark past 2^53 keeps its value.
 */
export const jobfilterEvaluator: PolicyEvaluator<
  ReturnType<typeof jobSchemas>["JobfilterDecisionRequest"],
  JobfilterPolicy,
  object
> = {
  engine: "jobfilter",
  get schema() {
    return jobSchemas().JobfilterDecisionRequest;
  },
  parseLine: parseExactJson,
  stringify: stringifyExactJson,
  decide(policy, request, { explain }) {
    const chosen = request.filters !== undefined ? lineFilters(request.filters) : policy;
    const job = request.job as Job;
    const queue = {
      running: (request.queue?.running ?? request.running ?? []) as Job[],
      queued: (request.queue?.queued ?? request.queuedAhead ?? []) as Job[],
    };
    return decideJobfilter(chosen, { job, queue }, { explain });
  },
};
