/**
 * The floor of `npm run bench:http`: a Hono Worker (the project's Hono) that
 * reads a POST's JSON body and answers a small JSON object, doing no policy
 * work at all. Every decision route is compared with it answering the same body.
 */
import { Hono } from "hono";

const app = new Hono();

app.post("*", async (c) => {
  const body: unknown = await c.req.json();
  return c.json({ ok: true, fields: body !== null && typeof body === "object" ? Object.keys(body).length : 0 });
});
app.get("/healthz", (c) => c.json({ status: "ok" }));

export default app;
