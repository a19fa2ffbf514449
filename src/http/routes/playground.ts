import { unknownEngine } from "./policies.js";
import { Hono } from "hono";
import * as z from "zod";
import { decisionBudget } from "../../engines/common/budget.js";
import { shapeVerdict } from "../../engines/common/decision.js";
import { ENGINE_NAMES, type EngineName } from "../../engines/common/engine.js";
import { stringifyExactJson } from "../../engines/common/exact-json.js";
import type { AppEnv } from "../../env.js";
import { answerJson } from "../answer-json.js";
import { authorize } from "../auth.js";
import { parseExactJsonText, parseJsonText, readJsonText, validate } from "../body.js";
import { decideWithin, newDecisionId } from "../decision.js";
import { registerOperation } from "../openapi.js";
import { compilePlaygroundPolicy } from "../playground/compile.js";
import { PLAYGROUND_ENGINES, type PlaygroundContext } from "../playground/decide.js";
import { servePlaygroundFile } from "../playground/page.js";
import { playgroundSchemas, policyText } from "../schemas/playground.js";
import { jqPlaygroundSchemas } from "../schemas/playground-jq.js";
import { runPlaygroundJq } from "../playground/jq.js";
import { writeLog } from "../../log-line.js";

/** The body before the engine's request schema is applied: the policy text, and any request. */
const Envelope = z.strictObject({ policy: policyText, request: z.unknown() });

function engineName(name: string): EngineName {
  if (!(ENGINE_NAMES as readonly string[]).includes(name)) throw unknownEngine(name);
  return name as EngineName;
}

/**
 * The playground: the page at `/` (and its files under `/playground/`), and
 * `POST /v1/playground/{engine}`, which compiles the posted policy in this
 * isolate's memory only (never stored, never activated), then decides the posted
 * request under it with the trace. Job and host decisions run on the queue and
 * pool the request carries, never on a Durable Object.
 */
export const playgroundRoutes = new Hono<AppEnv>()
  .get("/", (c) => servePlaygroundFile(c, "/"))
  .get("/playground/:file", (c) => servePlaygroundFile(c, `/playground/${c.req.param("file")}`))
  .get("/playground/:version/:file", (c) =>
    servePlaygroundFile(c, `/playground/${c.req.param("file")}`, c.req.param("version")),
  )
  .post("/v1/playground/jq", async (c) => {
    authorize(c, "admin");
    const body = validate(jqPlaygroundSchemas().JqPlaygroundBody, parseJsonText(await readJsonText(c)));
    const budget = decisionBudget(c.env.DECISION_BUDGET);
    const answer = await decideWithin(budget, () => runPlaygroundJq(body, budget));
    writeLog({ ts: new Date().toISOString(), event: "playground_jq", exit_status: answer.exit_status });
    return c.json(answer);
  })
  .post("/v1/playground/:engine", async (c) => {
    authorize(c, "admin");
    const engine = engineName(c.req.param("engine"));
    const driver = PLAYGROUND_ENGINES[engine];
    const text = await readJsonText(c);
    const body = validate(Envelope, driver.exactJson ? parseExactJsonText(text) : parseJsonText(text));
    const compiled = await compilePlaygroundPolicy(engine, body.policy);
    const request = validate(z.strictObject({ request: driver.schema }), { request: body.request }).request;
    const ctx: PlaygroundContext = {
      env: c.env,
      now: Date.now(),
      explain: true,
      connectingIp: c.req.header("cf-connecting-ip") ?? null,
      budget: decisionBudget(c.env.DECISION_BUDGET),
      revision: compiled.revision,
    };
    const decision = await decideWithin(ctx.budget, () => driver.decide(compiled.policy, request, ctx));
    const verdict = shapeVerdict(decision, newDecisionId(), compiled.revision, true);
    writeLog({
      ts: new Date().toISOString(),
      event: "playground_decision",
      engine,
      revision: compiled.revision,
      outcome: decision.outcome,
    });
    return c.body(answerJson(verdict, stringifyExactJson), 200, { "content-type": "application/json" });
  });

registerOperation({
  operationId: "playgroundPage",
  method: "get",
  path: "/",
  summary:
    "The policy playground: a page to edit a policy, decide a request under it and read the trace (its files are under /playground/)",
  tag: "playground",
  auth: "none",
  responseText: "text/html",
});
registerOperation({
  operationId: "playgroundJq",
  method: "post",
  path: "/v1/playground/jq",
  summary:
    "Run a jq 1.7.1 program on an input as `arbiter jq` does (-c, -r, -s, -n, --arg, --argjson): what it prints on standard output and error and its exit status, under the decision budget",
  tag: "playground",
  auth: "admin",
  request: () => jqPlaygroundSchemas().JqPlaygroundBody,
  response: () => jqPlaygroundSchemas().JqPlaygroundAnswer,
  errors: ["budget_exceeded"],
});
registerOperation({
  operationId: "playgroundDecide",
  method: "post",
  path: "/v1/playground/{engine}",
  summary:
    "Compile a policy in memory (never stored, never activated) and decide one request under it with the trace; jobfilter and customs decide on the queue or pool the request carries",
  tag: "playground",
  auth: "admin",
  request: () => playgroundSchemas().PlaygroundBody,
  response: () => playgroundSchemas().PlaygroundVerdict,
  errors: ["unknown_engine", "policy_invalid", "budget_exceeded", "answer_too_deep"],
});
