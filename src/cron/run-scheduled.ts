import { urlSources } from "../engines/limits/index.js";
import type { Env } from "../env.js";
import type { LimitsPolicy } from "../state/cidr-lists.js";
import { getActiveBundle } from "../state/policy-store.js";
import { refreshSources, type RefreshReport } from "./refresh-cidr-lists.js";
import { writeLog } from "../log-line.js";

/**
 * The scheduled job's entry: refreshes the lists the active limits policy
 * names. Lists of identifiers no longer in the policy are left as they are.
 */
export async function refreshCidrLists(env: Env, now: number): Promise<RefreshReport> {
  const bundle = await getActiveBundle(env);
  const policy = bundle.policy<LimitsPolicy>("limits");
  const sources = policy === undefined || policy === null ? [] : urlSources(policy);
  return refreshSources(env, sources, now);
}

/**
 * What the Worker's `scheduled` handler calls on every cron tick
 * (`*\/5 * * * *`): refreshes the downloaded CIDR lists as of the tick's
 * scheduled time and leaves one JSON log line, so a failing list shows in logs
 * as well as in /v1/status.
 */
export async function runScheduled(
  env: Env,
  controller: Pick<ScheduledController, "scheduledTime" | "cron">,
): Promise<RefreshReport> {
  const report = await refreshCidrLists(env, controller.scheduledTime);
  const changed = report.sources.filter((s) => s.action !== "skipped");
  writeLog({
    ts: new Date().toISOString(),
    event: "cidr_lists_refreshed",
    cron: controller.cron,
    scheduled: report.at,
    fetched: changed.filter((s) => s.action === "fetched").length,
    failed: changed.filter((s) => s.action === "failed").map((s) => ({ source: s.source, error: s.error })),
    skipped: report.sources.length - changed.length,
  });
  return report;
}
