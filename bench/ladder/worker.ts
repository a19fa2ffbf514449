/**
 * The ladder of `npm run bench:ladder`: one Worker that answers a decision
 * request with the no-op's work plus the first `LADDER_STEP` parts of a
 * decision route, each part the project's own code, so that the CPU one part
 * adds in workerd is the difference between two rungs. Rungs:
 *   0 the no-op (the body as JSON, a small JSON answer);
 *   1 + reading the body as the route does, the active bundle, the JSON shape check;
 *   2 + validating the request (the route's zod schema);
 *   3 + the decision under its budget;
 *   4 + a decision id and the decision log line;
 *   5 + the verdict and the answer with its three headers, as the route sends them.
 * The route itself (Hono dispatch over the whole API, request ids, metrics, the
 * verdict memo) is the real Worker, measured beside it.
 */
import { Hono } from "hono";
import type { z } from "zod";
import type { AppEnv, Env } from "../../src/env.js";
import { decisionBudget } from "../../src/engines/common/budget.js";
import { shapeVerdict, type Decision } from "../../src/engines/common/decision.js";
import type { EngineName } from "../../src/engines/common/engine.js";
import { parseJsonText, readJsonText, validate } from "../../src/http/body.js";
import { decideWithin, logDecision, newDecisionId, type RouteContext } from "../../src/http/decision.js";
import { decide as decideLimits } from "../../src/http/routes/limits.js";
import { decideMatchRequest } from "../../src/http/routes/match.js";
import { decidePlace } from "../../src/http/routes/placement.js";
import { LimitsRequest } from "../../src/http/schemas/limits.js";
import { MatchRequest } from "../../src/http/schemas/match.js";
import { PlaceRequest } from "../../src/http/schemas/placement.js";
import { getActiveBundle } from "../../src/state/policy-store.js";

interface Rung {
  engine: EngineName;
  schema: z.ZodType;
  decide: (policy: never, request: never, ctx: RouteContext) => Decision<object> | Promise<Decision<object>>;
}

const ROUTES: Record<string, Rung> = {
  "/v1/limits/decide": { engine: "limits", schema: LimitsRequest, decide: decideLimits as Rung["decide"] },
  "/v1/place": { engine: "placement", schema: PlaceRequest, decide: decidePlace as Rung["decide"] },
  "/v1/match": { engine: "match", schema: MatchRequest, decide: decideMatchRequest as Rung["decide"] },
};

const app = new Hono<AppEnv>();

app.post("*", async (c) => {
  const step = Number((c.env as Env & { LADDER_STEP?: string }).LADDER_STEP ?? 0);
  if (step === 0) {
    const body: unknown = await c.req.json();
    return c.json({ ok: true, fields: body !== null && typeof body === "object" ? Object.keys(body).length : 0 });
  }
  const rung = ROUTES[c.req.path];
  if (rung === undefined) return c.json({ error: `no rung for ${c.req.path}` }, 404);
  const text = await readJsonText(c);
  const bundle = await getActiveBundle(c.env);
  const raw = parseJsonText(text);
  if (step === 1) return c.json({ ok: true, fields: Object.keys(raw as object).length });
  const request = validate(rung.schema, raw);
  if (step === 2) return c.json({ ok: true, fields: Object.keys(request as object).length });
  const ctx: RouteContext = {
    env: c.env,
    now: Date.now(),
    explain: false,
    connectingIp: c.req.header("cf-connecting-ip") ?? null,
    revision: bundle.revision,
    bundle,
    budget: decisionBudget(c.env.DECISION_BUDGET),
  };
  const policy = bundle.policy(rung.engine) ?? null;
  const decision = await decideWithin(ctx.budget, () => rung.decide(policy as never, request as never, ctx));
  if (step === 3) return c.json({ ok: true, fields: decision.outcome.length });
  const decisionId = newDecisionId();
  logDecision({ decision_id: decisionId, engine: rung.engine, revision: bundle.revision, outcome: decision.outcome, ms: 0, cache: "bypass" });
  if (step === 4) return c.json({ ok: true, fields: decision.outcome.length });
  const body = shapeVerdict(decision, decisionId, bundle.revision, false);
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json", "x-arbiter-cache": "bypass", "x-request-id": crypto.randomUUID() },
  });
});

export default app;
