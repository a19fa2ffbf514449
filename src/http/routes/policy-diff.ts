import type { Context } from "hono";
import { DIFF_ENGINES, diffPoliciesSteps, type DiffError } from "../../bundle/diff.js";
import { decisionBudget } from "../../engines/common/budget.js";
import type { EngineName } from "../../engines/common/engine.js";
import { finishInSlices } from "../../engines/common/slices.js";
import type { AppEnv } from "../../env.js";
import { getActiveBundle } from "../../state/policy-store.js";
import { readJson } from "../body.js";
import { ApiError } from "../errors.js";
import { registerOperation } from "../openapi.js";
import { diffSchemas } from "../schemas/diff.js";

/** The 400 for an engine the diff has no request generator for (yet). */
function notSupported(engine: EngineName): ApiError {
  const message = `diff does not cover the ${engine} engine yet (it covers ${DIFF_ENGINES.join(", ")})`;
  return new ApiError("engine_not_supported", message, [
    { code: "engine_not_supported", message, at: "/engine" },
  ]);
}

/** A failed diff as the API answers it: the side that does not validate (422, with `side`), or an engine not covered. */
function diffError(engine: EngineName, e: DiffError): ApiError {
  if (e.code === "engine_not_supported") return notSupported(engine);
  const details = e.errors.map((x) => ({ code: x.code, message: x.message, at: x.at }));
  return new ApiError(
    "policy_invalid",
    e.message,
    details,
    e.side === undefined ? undefined : { side: e.side },
  );
}

/**
 * `POST /v1/policies/{engine}/diff`: the semantic diff of two sources of one
 * engine's policy (src/bundle/diff.ts), `old` defaulting to the active
 * policy's source. Bounded as lint is (the body limit; both sides compile as
 * validation compiles them) and by the diff's own bounds: generated and
 * captured request caps, each decision's DECISION_BUDGET, and DIFF_WORK.
 * Stores nothing.
 */
export async function diffRoute(c: Context<AppEnv>, engine: EngineName): Promise<Response> {
  if (!DIFF_ENGINES.includes(engine)) throw notSupported(engine);
  const body = await readJson(c, diffSchemas().DiffBody);
  let oldSource = body.old;
  let oldRevision: string | undefined;
  if (oldSource === undefined) {
    const active = await getActiveBundle(c.env);
    const entry = active.bundle.engines[engine];
    if (!entry) {
      const message = `\`old\`: left out, and no \`${engine}\` policy is active to stand for it`;
      throw new ApiError("not_found", message, [{ code: "not_found", message, at: "/old" }]);
    }
    oldSource = entry.source;
    oldRevision = active.revision;
  }
  // in slices (common/slices.ts): other requests are answered while two large sources are diffed
  const r = await finishInSlices(
    diffPoliciesSteps(engine, oldSource, body.new, {
      requests: body.requests,
      decisionBudget: decisionBudget(c.env.DECISION_BUDGET).limit,
    }),
  );
  if (!r.ok) throw diffError(engine, r.error);
  return c.json(oldRevision === undefined ? r.value : { ...r.value, old_revision: oldRevision });
}

registerOperation({
  operationId: "diffPolicy",
  method: "post",
  path: "/v1/policies/{engine}/diff",
  summary:
    "Semantic diff of two versions of one engine's policy, without traffic and without storing anything: the requests that reach every boundary either policy draws (plus any captured `requests`) are decided under both, and the differing verdicts are grouped as the shadow report groups them (docs/policies/analysis.md#diff). `old` left out is the active policy's source. A side that does not validate is a 422 `policy_invalid` naming it in `side`; an engine the diff does not cover yet is a 400 `engine_not_supported`",
  tag: "policies",
  auth: "admin",
  request: () => diffSchemas().DiffBody,
  response: () => diffSchemas().DiffAnswer,
  errors: ["unknown_engine", "engine_not_supported", "not_found", "policy_invalid"],
});
