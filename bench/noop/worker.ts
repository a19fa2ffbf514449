/**
 * The floor of `npm run bench:http`: a Hono Worker (the project's Hono) that
 * reads a POST's JSON body and answers a small JSON object, doing no policy
 * work at all. Every decision route is compared with it answering the same body.
 * Two settings let the bench price the parts of a decision answer that the
 * contract requires, on the floor itself: `NOOP_LOG_LINE = "1"` also writes one
 * line shaped like a decision log line; `NOOP_CONTRACT = "1"` writes that line
 * and answers as a decision route must (a fresh decision id, `X-Request-Id` and
 * `X-Arbiter-Cache` headers, an answer as long as the request's
 * `x-bench-answer-bytes` header says the route's answer is).
 */
import { Hono } from "hono";

const app = new Hono<{ Bindings: { NOOP_LOG_LINE?: string; NOOP_CONTRACT?: string } }>();

function logLine(decisionId: string): void {
  const line = {
    decision_id: decisionId,
    engine: "limits",
    revision: "bench",
    outcome: "allowed",
    ms: 0,
    cache: "bypass",
  };
  console.log(JSON.stringify({ ts: new Date().toISOString(), ...line }));
}

const pads = new Map<number, string>();

app.post("*", async (c) => {
  const body: unknown = await c.req.json();
  const fields = body !== null && typeof body === "object" ? Object.keys(body).length : 0;
  if (c.env.NOOP_CONTRACT === "1") {
    const decisionId = crypto.randomUUID();
    logLine(decisionId);
    const bytes = Number(c.req.header("x-bench-answer-bytes") ?? 0);
    let pad = pads.get(bytes);
    if (pad === undefined)
      pads.set(
        bytes,
        (pad = "x".repeat(
          Math.max(0, bytes - JSON.stringify({ decision_id: decisionId, fields, pad: "" }).length),
        )),
      );
    c.header("X-Arbiter-Cache", "bypass");
    c.header("X-Request-Id", crypto.randomUUID());
    return c.json({ decision_id: decisionId, fields, pad });
  }
  if (c.env.NOOP_LOG_LINE === "1") logLine("00000000-0000-4000-8000-000000000000");
  return c.json({ ok: true, fields });
});
app.get("/healthz", (c) => c.json({ status: "ok" }));

export default app;
