import type { Env } from "../http/env.js";
import { refreshCidrLists, type RefreshReport } from "./refresh-cidr-lists.js";

/**
 * What the Worker's `scheduled` handler calls on every cron tick
 * (`*\/5 * * * *`): refreshes the downloaded CIDR lists as of the tick's
 * scheduled time and leaves one JSON log line, so a failing list shows in logs
 * as well as in /v1/status.
 */
export async function runScheduled(env: Env, controller: Pick<ScheduledController, "scheduledTime" | "cron">): Promise<RefreshReport> {
  const report = await refreshCidrLists(env, controller.scheduledTime);
  const changed = report.sources.filter((s) => s.action !== "skipped");
  console.log(
    JSON.stringify({
      ts: new Date().toISOString(),
      event: "cidr_lists_refreshed",
      cron: controller.cron,
      scheduled: report.at,
      fetched: changed.filter((s) => s.action === "fetched").length,
      failed: changed.filter((s) => s.action === "failed").map((s) => ({ source: s.source, error: s.error })),
      skipped: report.sources.length - changed.length,
    }),
  );
  return report;
}
