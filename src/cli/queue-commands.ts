import { ApiFailure, apiTarget, callApi, table } from "./api-client.js";
import { option, parseArgs, UsageError, type ParsedArgs } from "./args.js";
import type { Io } from "./io.js";

export const QUEUE_USAGE = `usage: arbiter queue list [--limit N] [--format table|json]
       arbiter queue jobs QUEUE [--state running|queued|finished] [--limit N] [--cursor ID] [--format table|json]
       arbiter queue cancel QUEUE ID [--format table|json]

Lists the job queues with their running, queued and finished jobs and watermark
(GET /v1/queues), a queue's jobs newest first (GET /v1/queues/QUEUE/jobs;
\`finished\` covers finished, cancelled and expired jobs), or cancels a job
(DELETE /v1/queues/QUEUE/jobs/ID: a held job is dropped, a running job's slot
released).
Common options: --url URL (default $ARBITER_URL or http://127.0.0.1:8787);
the token is read from $ARBITER_TOKEN.
`;

const VALUED = ["--url", "--format", "--limit", "--state", "--cursor"];

interface QueueRow {
  queue: string;
  running: number;
  queued: number;
  finished: number;
  watermark: number;
}

interface JobRow {
  id: number;
  state: string;
  action: string;
  rule: string | null;
  priority: number;
  lease_expires_at: string | null;
}

function format(args: ParsedArgs): "table" | "json" {
  const f = option(args, "--format") ?? "table";
  if (f !== "table" && f !== "json") throw new UsageError(`--format: \`${f}\` is not a format (table, json)`);
  return f;
}

/** Adds the query parameters that were given. */
function query(params: Record<string, string | undefined>): string {
  const given = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return given.length === 0 ? "" : "?" + new URLSearchParams(given).toString();
}

/** `arbiter queue list|jobs|cancel`: the job queues over the API, as gnt-job lists and cancels. */
export async function queueCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, VALUED);
  if (args.switches.has("--help")) return (io.stdout(QUEUE_USAGE), 0);
  const [sub, ...rest] = args.positional;
  const fmt = format(args);
  const target = apiTarget(args, io);
  const limit = option(args, "--limit");
  const print = (value: unknown, render: () => string) =>
    io.stdout(fmt === "json" ? JSON.stringify(value, null, 2) + "\n" : render());
  try {
    if (sub === "list" && rest.length === 0) {
      const { value } = await callApi(target, "GET", "/v1/queues" + query({ limit }));
      const queues = (value as { queues: QueueRow[] }).queues;
      print(queues, () =>
        table(
          ["Queue", "Running", "Queued", "Finished", "Watermark"],
          queues.map((q) => [
            q.queue,
            String(q.running),
            String(q.queued),
            String(q.finished),
            String(q.watermark),
          ]),
        ),
      );
    } else if (sub === "jobs" && rest.length === 1) {
      const path =
        `/v1/queues/${encodeURIComponent(rest[0])}/jobs` +
        query({ state: option(args, "--state"), limit, cursor: option(args, "--cursor") });
      const { value } = await callApi(target, "GET", path);
      const page = value as { jobs: JobRow[]; cursor: string | null };
      print(page, () => {
        const rows = page.jobs.map((j) => [
          String(j.id),
          j.state,
          j.action,
          j.rule ?? "-",
          String(j.priority),
          j.lease_expires_at ?? "-",
        ]);
        const more = page.cursor === null ? "" : `(more: --cursor ${page.cursor})\n`;
        return table(["ID", "Status", "Action", "Rule", "Priority", "LeaseExpires"], rows) + more;
      });
    } else if (sub === "cancel" && rest.length === 2) {
      const path = `/v1/queues/${encodeURIComponent(rest[0])}/jobs/${encodeURIComponent(rest[1])}`;
      const { value } = await callApi(target, "DELETE", path);
      const job = value as { job_id: number; state: string };
      print(job, () => `job ${job.job_id}: ${job.state}\n`);
    } else {
      throw new UsageError(QUEUE_USAGE);
    }
    return 0;
  } catch (e) {
    if (!(e instanceof ApiFailure)) throw e;
    io.stderr(`arbiter: ${e.message}\n`);
    return 1;
  }
}
