import { Hono, type Context } from "hono";
import * as z from "zod";
import { compileBundle, engineByName, sourcesOf, type Bundle, type BundleError } from "../../bundle/index.js";
import { suggestEngine } from "../../bundle/registry.js";
import type { EngineDefinition } from "../../engines/common/engine.js";
import { bundleInfo, compilerId, expireBundleCheck, getActiveBundle } from "../../state/policy-store.js";
import { requireRole } from "../auth.js";
import { readJson, readText } from "../body.js";
import type { AppEnv } from "../../env.js";
import { ApiError, errorDetail } from "../errors.js";
import { registerOperation } from "../openapi.js";
import { candidateSchemas, stageCandidate } from "./candidate.js";
import { changeAuthor, coordinator, parseIfMatch, publishError } from "../coordinator.js";
import { writeLog } from "../../log-line.js";
import { HISTORY_KEPT } from "../../state/policy-history.js";
import { historySchemas } from "../schemas/history.js";
import { lintSourceSteps } from "../../bundle/lint.js";
import { finishInSlices, nextTurn } from "../../engines/common/slices.js";
import { lintSchemas } from "../schemas/lint.js";
import { diffRoute } from "./policy-diff.js";

function engineParam(c: Context<AppEnv>): EngineDefinition {
  const name = c.req.param("engine") ?? "";
  const engine = engineByName(name);
  if (!engine) throw unknownEngine(name);
  return engine;
}

/** The 404 for a name that is no engine, naming the engine it most likely meant. */
export function unknownEngine(name: string): ApiError {
  const near = suggestEngine(name);
  const hint =
    near === undefined
      ? ""
      : near.file !== undefined
        ? `; the engine for ${near.file} is \`${near.engine}\``
        : ` (did you mean \`${near.engine}\`?)`;
  const message = `there is no engine \`${name}\`${hint}`;
  const suggestion = near === undefined ? {} : { suggestion: near.engine };
  return new ApiError("unknown_engine", message, [
    { code: "unknown_engine", message, at: "/engine", ...suggestion },
  ]);
}

/** Compiles the active bundle with one engine's source replaced; a failure is the 422 envelope. */
async function candidate(c: Context<AppEnv>): Promise<Bundle> {
  const engine = engineParam(c);
  const source = await readText(c);
  const current = await getActiveBundle(c.env);
  const sources = { ...sourcesOf(current.bundle), [engine.name]: source };
  // only the engine that changed compiles, when the active bundle was made by this build (bundle/build.ts)
  const compiled = await compileBundle(sources, new Date().toISOString(), nextTurn, {
    compiler: compilerId(),
    base: current.bundle,
  });
  if (!compiled.ok) {
    const details = compiled.error.map((e: BundleError) => errorDetail(e));
    const first = compiled.error[0];
    throw new ApiError(
      "policy_invalid",
      `the \`${first.engine}\` policy is invalid: ${first.message}${first.at ? ` (at ${first.at})` : ""}`,
      details,
    );
  }
  return compiled.value;
}

/** The admin API over the policy bundle: publish, validate, read. */
export const policyRoutes = new Hono<AppEnv>()
  .use("/v1/policies", requireRole("admin"))
  .use("/v1/policies/*", requireRole("admin"))
  .get("/v1/policies", async (c) => {
    const bundle = await getActiveBundle(c.env);
    const engines: Record<string, { format: string; source_sha256: string }> = {};
    for (const [name, entry] of Object.entries(bundle.bundle.engines)) {
      if (entry) engines[name] = { format: entry.format, source_sha256: entry.source_sha256 };
    }
    c.header("ETag", `"${bundle.revision}"`);
    return c.json({ revision: bundle.revision, source: bundleInfo().source, engines });
  })
  .get("/v1/policies/history", async (c) => {
    const limit = historyLimit(c.req.query("limit"));
    return c.json({ kept: HISTORY_KEPT, history: await coordinator(c.env).changes(limit) });
  })
  .post("/v1/policies/rollback", async (c) => {
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    const by = changeAuthor(c);
    const { revision } = await readJson(c, historySchemas().RollbackBody);
    const outcome = await coordinator(c.env).rollback({
      revision,
      ifMatch,
      createdAt: new Date().toISOString(),
      by,
    });
    if (!outcome.ok)
      throw outcome.code === "not_found"
        ? new ApiError("not_found", outcome.message)
        : publishError(c, outcome);
    expireBundleCheck();
    writeLog({
      ts: new Date().toISOString(),
      event: "policy_rolled_back",
      revision: outcome.revision,
      previous: outcome.previous,
    });
    c.header("ETag", `"${outcome.revision}"`);
    return c.json({ revision: outcome.revision, previous: outcome.previous });
  })
  .get("/v1/policies/:engine", async (c) => {
    const engine = engineParam(c);
    const bundle = await getActiveBundle(c.env);
    const entry = bundle.bundle.engines[engine.name];
    if (!entry) throw new ApiError("not_found", `no \`${engine.name}\` policy is loaded`);
    c.header("ETag", `"${bundle.revision}"`);
    return c.text(entry.source, 200, { "content-type": "text/plain; charset=utf-8" });
  })
  .put("/v1/policies/:engine", async (c) => {
    const engine = engineParam(c);
    const stage = c.req.query("stage");
    if (stage !== undefined && stage !== "candidate" && stage !== "active") {
      throw new ApiError(
        "invalid_request",
        `\`stage\`: \`${stage}\` is not a stage (\`candidate\` stages the policy for shadow evaluation, \`active\` publishes it)`,
      );
    }
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    const source = await readText(c);
    if (stage === "candidate") return stageCandidate(c, engine.name, source, ifMatch);
    const outcome = await coordinator(c.env).publish({
      engine: engine.name,
      source,
      ifMatch,
      createdAt: new Date().toISOString(),
      by: changeAuthor(c),
    });
    if (!outcome.ok) throw publishError(c, outcome);
    expireBundleCheck();
    writeLog({
      ts: new Date().toISOString(),
      event: "policy_published",
      engine: engine.name,
      revision: outcome.revision,
      previous: outcome.previous,
    });
    c.header("ETag", `"${outcome.revision}"`);
    return c.json({ revision: outcome.revision });
  })
  .post("/v1/policies/:engine/validate", async (c) => {
    const bundle = await candidate(c);
    return c.json({ valid: true, revision: bundle.revision });
  })
  .post("/v1/policies/:engine/lint", async (c) => {
    const engine = engineParam(c);
    const source = await readText(c);
    // in slices (common/slices.ts): other requests are answered while a large source is linted
    const linted = await finishInSlices(lintSourceSteps(engine.name, source));
    if (!linted.ok) {
      const first = linted.error[0];
      throw new ApiError(
        "policy_invalid",
        `the \`${engine.name}\` policy is invalid: ${first.message}${first.at ? ` (at ${first.at})` : ""}`,
        linted.error.map((e) => ({ code: e.code, message: e.message, at: e.at })),
      );
    }
    const findings = linted.value;
    const warning = findings.filter((f) => f.severity === "warning").length;
    return c.json({ engine: engine.name, findings, counts: { warning, info: findings.length - warning } });
  })
  .post("/v1/policies/:engine/diff", (c) => diffRoute(c, engineParam(c).name));

/** Reads `?limit=`: 1 to HISTORY_KEPT, default 20. */
function historyLimit(value: string | undefined): number {
  if (value === undefined) return 20;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > HISTORY_KEPT)
    throw new ApiError(
      "invalid_request",
      `\`limit\`: must be a whole number from 1 to ${HISTORY_KEPT}, not \`${value}\``,
    );
  return n;
}

const STAGE_QUERY = {
  name: "stage",
  description:
    "`candidate`: validate and stage the source as the candidate policy (shadow-evaluated, not active); `active` (the default): publish it",
  schema: { type: "string", enum: ["candidate", "active"] },
};
registerOperation({
  operationId: "listPolicies",
  method: "get",
  path: "/v1/policies",
  summary: "The active bundle's revision, source and engines",
  tag: "policies",
  auth: "admin",
  // the answers only the document shows are made when it is first built (docs/performance.md, wt/heap2)
  response: () =>
    z.object({
      revision: z.string(),
      source: z.enum(["embedded", "kv"]),
      engines: z.record(z.string(), z.object({ format: z.string(), source_sha256: z.string() })),
    }),
});
registerOperation({
  operationId: "getPolicy",
  method: "get",
  path: "/v1/policies/{engine}",
  summary: "One engine's policy source text, as published",
  tag: "policies",
  auth: "admin",
  responseText: "text/plain",
  errors: ["unknown_engine", "not_found"],
});
registerOperation({
  operationId: "publishPolicy",
  method: "put",
  path: "/v1/policies/{engine}",
  summary:
    "Validate, compile and activate one engine's policy source on top of the active bundle (publishes are serialised; `If-Match: <revision>` makes it conditional, 412 when the active revision moved); `?stage=candidate` stages it for shadow evaluation instead, answering the candidate",
  tag: "policies",
  auth: "admin",
  requestText: "text/plain",
  response: () => z.union([z.object({ revision: z.string() }).strict(), candidateSchemas().CandidateInfo]),
  query: [STAGE_QUERY],
  errors: ["unknown_engine", "policy_invalid", "precondition_failed", "invalid_request"],
  headers: [
    {
      name: "If-Match",
      description:
        'the revision the change is based on: `"<revision>"` (or bare), a list, or `*`; compared strongly (a weak `W/"…"` tag never matches); 412 when the active revision moved, 400 when empty or unreadable',
    },
  ],
});
registerOperation({
  operationId: "validatePolicy",
  method: "post",
  path: "/v1/policies/{engine}/validate",
  summary: "Validate one engine's policy source without activating it",
  tag: "policies",
  auth: "admin",
  requestText: "text/plain",
  response: () => z.object({ valid: z.literal(true), revision: z.string() }),
  errors: ["unknown_engine", "policy_invalid"],
});
registerOperation({
  operationId: "lintPolicy",
  method: "post",
  path: "/v1/policies/{engine}/lint",
  summary:
    "Lint one engine's policy source without storing it: findings (warnings and infos, each with a stable code and `line:column`) about rules that can never apply, unused definitions, constant expressions and access lists that admit nobody (docs/policies/analysis.md); an invalid source is a 422 with its errors, as for validate",
  tag: "policies",
  auth: "admin",
  requestText: "text/plain",
  response: () => lintSchemas().LintAnswer,
  errors: ["unknown_engine", "policy_invalid"],
});
registerOperation({
  operationId: "policyHistory",
  method: "get",
  path: "/v1/policies/history",
  summary: `The changes of the active revision (publishes, promotions, rollbacks), newest first; the last ${HISTORY_KEPT} are kept`,
  tag: "policies",
  auth: "admin",
  query: [
    {
      name: "limit",
      description: `how many records, 1 to ${HISTORY_KEPT} (default 20)`,
      schema: { type: "integer", minimum: 1, maximum: HISTORY_KEPT },
    },
  ],
  response: () => historySchemas().HistoryList,
  errors: ["invalid_request"],
});
registerOperation({
  operationId: "rollbackPolicy",
  method: "post",
  path: "/v1/policies/rollback",
  summary:
    "Make a revision the history still keeps active again, with a publish's rules (`If-Match` against the active revision, 412 when it moved); 404 when the revision is no longer kept",
  tag: "policies",
  auth: "admin",
  request: () => historySchemas().RollbackBody,
  response: () => historySchemas().RollbackAnswer,
  errors: ["invalid_request", "not_found", "precondition_failed", "service_unavailable"],
  headers: [
    {
      name: "If-Match",
      description:
        'the active revision the rollback is based on: `"<revision>"` (or bare), a list, or `*`; compared strongly (a weak `W/"…"` tag never matches); 412 when it moved, 400 when empty or unreadable',
    },
    {
      name: "X-Arbiter-Change-Note",
      description: "why: kept in the history record (at most 1,000 characters)",
    },
  ],
});
