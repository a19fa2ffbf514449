/**
 * The ladder of `npm run bench:ladder`: one Worker that answers a decision
 * request with the no-op's work plus the first `LADDER_STEP` parts of a
 * decision route, each part the project's own code, so that the CPU one part
 * adds in workerd is the difference between two rungs. Rungs:
 *   0 the no-op (the body as JSON, a small JSON answer);
 *   1 + reading the body as the route does, the active bundle, the JSON shape check;
 *   2 + validating the request as the route does (its schema compiled at load, limits' fast schema first);
 *   3 + the decision under its budget, not awaited when it answers at once (as the route runs it);
 *   4 + a decision id and the decision log line's text (built, not written);
 *   5 + the log line written (the runtime's console: what issue 31 goal 8 leaves out);
 *   6 + the answer as the route writes it (the envelope's members and the verdict's own writer)
 *       and sends it (one `Response`, its three headers set on it).
 * Each rung takes its route's options (engine, schema, fast schema, decide) from the route
 * module and each step from src/http/decision.ts, so a rung runs what the route runs. The
 * route itself (Hono dispatch over the whole API, request ids, authorization, metrics, the
 * verdict memo) is the real Worker, measured beside it.
 */
import { Hono } from "hono";
import type { AppEnv, Env } from "../../src/env.js";
import { decisionBudget } from "../../src/engines/common/budget.js";
import type { Decision } from "../../src/engines/common/decision.js";
import type { EngineName } from "../../src/engines/common/engine.js";
import { parseJsonText, readJsonText } from "../../src/http/body.js";
import {
  decideNow,
  decisionAnswer,
  elapsedMs,
  newDecisionId,
  routeValidator,
  answerWithId,
  verdictMembers,
  type RouteContext,
} from "../../src/http/decision.js";
import { limitsDecision } from "../../src/http/routes/limits.js";
import { matchDecision } from "../../src/http/routes/match.js";
import { placeDecision } from "../../src/http/routes/placement.js";
import { decisionLogText } from "../../src/http/decision-log.js";
import { writeLineText } from "../../src/log-line.js";
import { getActiveBundle } from "../../src/state/policy-store.js";

interface Rung {
  engine: EngineName;
  /** The route's validation: built here, at module load, as the route builds its own. */
  check: (raw: unknown) => unknown;
  readsConnectingIp: (request: never) => boolean;
  decide: (policy: never, request: never, ctx: RouteContext) => Decision<object> | Promise<Decision<object>>;
}

function rung(opts: {
  engine: EngineName;
  schema: Parameters<typeof routeValidator>[0]["schema"];
  fastSchema?: Parameters<typeof routeValidator>[0]["fastSchema"];
  readsConnectingIp?: (request: never) => boolean;
  decide: unknown;
}): Rung {
  return {
    engine: opts.engine,
    check: routeValidator(opts),
    readsConnectingIp: opts.readsConnectingIp ?? (() => false),
    decide: opts.decide as Rung["decide"],
  };
}

const ROUTES: Record<string, Rung> = {
  "/v1/limits/decide": rung(limitsDecision),
  "/v1/place": rung(placeDecision),
  "/v1/match": rung(matchDecision),
};

const app = new Hono<AppEnv>();

app.post("*", async (c) => {
  const step = Number((c.env as Env & { LADDER_STEP?: string }).LADDER_STEP ?? 0);
  if (step === 0) {
    const body: unknown = await c.req.json();
    return c.json({
      ok: true,
      fields: body !== null && typeof body === "object" ? Object.keys(body).length : 0,
    });
  }
  const route = ROUTES[c.req.path];
  if (route === undefined) return c.json({ error: `no rung for ${c.req.path}` }, 404);
  const started = Date.now();
  const text = await readJsonText(c);
  const bundle = await getActiveBundle(c.env);
  const raw = parseJsonText(text);
  if (step === 1) return c.json({ ok: true, fields: Object.keys(raw as object).length });
  const request = route.check(raw);
  if (step === 2) return c.json({ ok: true, fields: Object.keys(request as object).length });
  const ctx: RouteContext = {
    env: c.env,
    now: Date.now(),
    explain: false,
    connectingIp: route.readsConnectingIp(request as never)
      ? (c.req.header("cf-connecting-ip") ?? null)
      : null,
    revision: bundle.revision,
    bundle,
    budget: decisionBudget(c.env.DECISION_BUDGET),
  };
  const policy = bundle.policy(route.engine) ?? null;
  const decided = decideNow(ctx.budget, () => route.decide(policy as never, request as never, ctx));
  const decision = decided instanceof Promise ? await decided : decided;
  if (step === 3) return c.json({ ok: true, fields: decision.outcome.length });
  const decisionId = newDecisionId();
  // the route's logDecision, in its two parts: the line's text, then its write
  const line = decisionLogText(
    {
      decision_id: decisionId,
      engine: route.engine,
      revision: bundle.revision,
      outcome: decision.outcome,
      ms: elapsedMs(started),
      cache: "bypass",
    },
    Date.now(),
  );
  if (step === 4) return c.json({ ok: true, fields: line.length });
  writeLineText(line);
  if (step === 5) return c.json({ ok: true, fields: decision.outcome.length });
  const json = answerWithId(decisionId, verdictMembers(decision, bundle.revision, false));
  return decisionAnswer(json, "bypass", crypto.randomUUID());
});

export default app;
