import { app } from "./http/app.js";
import type { Env } from "./http/env.js";

/** The Worker: the HTTP API, and the scheduled refresh of downloaded lists. */
export default {
  fetch: app.fetch,
  async scheduled(_controller, _env, _ctx) {},
} satisfies ExportedHandler<Env>;
