import { env } from "cloudflare:workers";
import { runScheduled } from "./cron/index.js";
import { app } from "./http/app.js";
import { authStartupLine } from "./http/auth.js";
import type { Env } from "./env.js";
import { writeLog, writeLogText } from "./log-line.js";

export { HostPool } from "./state/host-pool.js";
export { JobQueue } from "./state/job-queue.js";
export { MetricsShard } from "./state/metrics-shard.js";
export { PolicyCoordinator } from "./state/policy-coordinator.js";

// Once per isolate: how each route class is guarded (and a warning when nothing is).
writeLogText(authStartupLine(env as unknown as Env));

/** The Worker: the HTTP API, and the scheduled refresh of downloaded CIDR lists. */
export default {
  fetch: app.fetch,
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(
      runScheduled(env, controller).catch((error: unknown) =>
        writeLog(
          { ts: new Date().toISOString(), event: "cidr_refresh_crashed", error: String(error) },
          "error",
        ),
      ),
    );
  },
} satisfies ExportedHandler<Env>;
