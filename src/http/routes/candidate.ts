import { Hono, type Context } from "hono";
import * as z from "zod";
import { Tally, type TallyBatch } from "../../bundle/compare/index.js";
import { diffFindings, type StoredDiff } from "../../bundle/compare/diff-findings.js";
import { ENGINE_NAMES, type EngineName } from "../../engines/common/engine.js";
import { numberVar, type AppEnv } from "../../env.js";
import { expireBundleCheck, getActiveBundle } from "../../state/policy-store.js";
import type { CandidateRecord } from "../../state/shadow-tables.js";
import type { EngineSummaries } from "../../state/policy-coordinator.js";
import { requireRole } from "../auth.js";
import { ApiError } from "../errors.js";
import { registerOperation } from "../openapi.js";
import { reportSchemas } from "../schemas/report.js";
import { diffSchemas } from "../schemas/diff.js";
import { changeAuthor, coordinator, parseIfMatch, publishError } from "../coordinator.js";
import { writeLog } from "../../log-line.js";
import { lazily } from "../../engines/common/lazy.js";

/**
 * The candidate routes' answers, for the OpenAPI document (and `CandidateInfo` for the publish
 * route's): made on the first call and kept, not in every isolate at load (docs/performance.md,
 * wt/heap2).
 */
function candidateSchemasBuild() {
  const engineSummary = z.object({ format: z.string(), source_sha256: z.string() });

  /** A staged candidate as the API shows it. */
  const CandidateInfo = z
    .object({
      stage: z.literal("candidate"),
      revision: z.string().describe("the revision the candidate bundle would have"),
      staged: z.array(z.enum(ENGINE_NAMES)).describe("the engines whose sources are staged"),
      staged_at: z.string(),
      based_on: z.string().describe("the active revision when it was staged"),
      engines: z.record(z.string(), engineSummary).describe("the staged engines' formats and source hashes"),
    })
    .strict();

  const DroppedInfo = z
    .object({
      dropped: z.literal(true),
      revision: z.string(),
      staged: z.array(z.enum(ENGINE_NAMES)),
      staged_at: z.string(),
    })
    .strict();

  const Promoted = z
    .object({
      revision: z.string().describe("the new active revision"),
      previous: z.string(),
      promoted: z
        .object({ revision: z.string(), staged: z.array(z.enum(ENGINE_NAMES)), staged_at: z.string() })
        .strict(),
    })
    .strict();

  /** The report route's answer: the candidate, the sample rate, and the comparison report. */
  const CandidateReport = reportSchemas().ReportBody.extend({
    candidate: CandidateInfo,
    sample: z.number().describe("the share of decisions compared (SHADOW_SAMPLE)"),
    diff: diffSchemas().CandidateDiff,
  });

  return { CandidateInfo, DroppedInfo, Promoted, CandidateReport };
}

/** The candidate routes' schemas, made on the first call and kept. */
export const candidateSchemas = lazily(candidateSchemasBuild);

function info(
  candidate: CandidateRecord,
  engines: EngineSummaries,
): z.infer<ReturnType<typeof candidateSchemas>["CandidateInfo"]> {
  return {
    stage: "candidate",
    revision: candidate.revision,
    staged: candidate.staged,
    staged_at: candidate.staged_at,
    based_on: candidate.based_on,
    engines,
  };
}

const noCandidate = () =>
  new ApiError(
    "not_found",
    "no candidate is staged (stage one with `PUT /v1/policies/{engine}?stage=candidate`)",
  );

/** `PUT /v1/policies/{engine}?stage=candidate`: validates the source and stages it; the active policy does not change. */
export async function stageCandidate(
  c: Context<AppEnv>,
  engine: EngineName,
  source: string,
  ifMatch: "*" | string[] | undefined,
): Promise<Response> {
  const outcome = await coordinator(c.env).stage({
    engine,
    source,
    ifMatch,
    createdAt: new Date().toISOString(),
    by: changeAuthor(c),
  });
  if (!outcome.ok) throw publishError(c, outcome);
  expireBundleCheck();
  writeLog({
    ts: new Date().toISOString(),
    event: "candidate_staged",
    engine,
    revision: outcome.candidate.revision,
    staged: outcome.candidate.staged,
  });
  return c.json(info(outcome.candidate, outcome.engines));
}

/** The staged candidate: read, drop, promote, and its shadow report. */
export const candidateRoutes = new Hono<AppEnv>()
  .use("/v1/candidate", requireRole("admin"))
  .use("/v1/candidate/*", requireRole("admin"))
  .get("/v1/candidate", async (c) => {
    const found = await coordinator(c.env).candidate();
    if (found === null) throw noCandidate();
    return c.json(info(found.candidate, found.engines));
  })
  .delete("/v1/candidate", async (c) => {
    const outcome = await coordinator(c.env).drop();
    if (!outcome.ok) throw publishError(c, outcome);
    if (outcome.dropped === null) throw noCandidate();
    expireBundleCheck();
    const { revision, staged, staged_at } = outcome.dropped;
    writeLog({ ts: new Date().toISOString(), event: "candidate_dropped", revision });
    return c.json({ dropped: true as const, revision, staged, staged_at });
  })
  .post("/v1/candidate/promote", async (c) => {
    const ifMatch = parseIfMatch(c.req.header("if-match"));
    const outcome = await coordinator(c.env).promote({
      ifMatch,
      createdAt: new Date().toISOString(),
      by: changeAuthor(c),
    });
    if (!outcome.ok) throw outcome.code === "not_found" ? noCandidate() : publishError(c, outcome);
    expireBundleCheck();
    const { revision, staged, staged_at } = outcome.promoted;
    writeLog({
      ts: new Date().toISOString(),
      event: "candidate_promoted",
      revision: outcome.revision,
      previous: outcome.previous,
      staged,
    });
    c.header("ETag", `"${outcome.revision}"`);
    return c.json({
      revision: outcome.revision,
      previous: outcome.previous,
      promoted: { revision, staged, staged_at },
    });
  })
  .get("/v1/candidate/report", async (c) => {
    const stored = await coordinator(c.env).report();
    if (stored === null) throw noCandidate();
    const report = new Tally()
      .merge(JSON.parse(stored.batch) as TallyBatch)
      .report(stored.candidate.staged_at);
    const active = await getActiveBundle(c.env);
    const diffs = JSON.parse(stored.diffs) as StoredDiff[];
    return c.json({
      candidate: info(stored.candidate, stored.engines),
      sample: shadowSample(c.env.SHADOW_SAMPLE),
      ...report,
      diff: diffFindings(stored.candidate.staged, stored.engines, active.bundle, diffs, report),
    });
  });

/** Reads SHADOW_SAMPLE: a share from 0 to 1 (default 1); out-of-range values are clamped. */
export function shadowSample(value: string | undefined): number {
  return Math.min(1, numberVar(value, 1));
}

const candidate = { tag: "candidate", auth: "admin" } as const;
registerOperation({
  ...candidate,
  operationId: "getCandidate",
  method: "get",
  path: "/v1/candidate",
  summary: "The staged candidate policy (404 when none is staged)",
  errors: ["not_found"],
  response: () => candidateSchemas().CandidateInfo,
});
registerOperation({
  ...candidate,
  operationId: "dropCandidate",
  method: "delete",
  path: "/v1/candidate",
  summary: "Drop the staged candidate and its shadow report",
  errors: ["not_found", "service_unavailable"],
  response: () => candidateSchemas().DroppedInfo,
});
registerOperation({
  ...candidate,
  operationId: "promoteCandidate",
  method: "post",
  path: "/v1/candidate/promote",
  summary:
    "Make the staged engines' sources active on top of the active bundle, with a publish's rules (`If-Match` against the active revision, 412 when it moved; nothing written when invalid); the candidate and its report are then dropped",
  errors: ["not_found", "policy_invalid", "precondition_failed", "invalid_request", "service_unavailable"],
  headers: [
    {
      name: "If-Match",
      description:
        'the active revision the promotion is based on: `"<revision>"` (or bare), a list, or `*`; compared strongly (a weak `W/"…"` tag never matches); 412 when it moved, 400 when empty or unreadable',
    },
  ],
  response: () => candidateSchemas().Promoted,
});
registerOperation({
  ...candidate,
  operationId: "candidateReport",
  method: "get",
  path: "/v1/candidate/report",
  summary:
    "How the staged candidate's verdicts compare with the active ones on live traffic: counts, outcome pairs, examples (masked); and `diff`: the semantic diff of each staged engine's source against the active one, computed when it was staged, each pair marked `seen` when live traffic has shown it",
  errors: ["not_found"],
  response: () => candidateSchemas().CandidateReport,
});
