import { apiTarget, callApi, reportingApiFailure, tableOrJson } from "./api-client.js";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import {
  fieldsHelp,
  formatTable,
  LIST_OPTIONS_HELP,
  LIST_VALUED,
  listOptions,
  listTime,
  type ListField,
} from "./list-fields.js";

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
  priority?: number;
  submitted_at?: string | null;
  started_at?: string | null;
  ended_at?: string | null;
  lease_expires_at?: string | null;
}

/** The fields of `arbiter queue list`. */
const QUEUE_FIELDS: ListField<QueueRow>[] = [
  { name: "name", title: "Queue", doc: "the queue's name", value: (q) => q.queue },
  {
    name: "running",
    title: "Running",
    doc: "jobs holding a slot",
    numeric: true,
    value: (q) => String(q.running),
  },
  {
    name: "queued",
    title: "Queued",
    doc: "jobs held (paused or rate-limited)",
    numeric: true,
    value: (q) => String(q.queued),
  },
  {
    name: "finished",
    title: "Finished",
    doc: "finished, cancelled and expired jobs still kept",
    numeric: true,
    value: (q) => String(q.finished),
  },
  {
    name: "watermark",
    title: "Watermark",
    doc: "the highest job id the queue has seen",
    numeric: true,
    value: (q) => String(q.watermark),
  },
];
const QUEUE_DEFAULT = ["name", "running", "queued", "finished", "watermark"];

/** The fields of `arbiter queue jobs` (and `cancel -o`), named as gnt-job names its fields where it has one. */
const JOB_FIELDS: ListField<JobRow>[] = [
  { name: "id", title: "ID", doc: "the job id", numeric: true, value: (j) => String(j.id) },
  {
    name: "status",
    title: "Status",
    doc: "queued, running, finished, cancelled or expired",
    value: (j) => j.state,
  },
  {
    name: "action",
    title: "Action",
    doc: "the filter decision: ACCEPT, PAUSE, REJECT, RATE_LIMITED, ADHOC_RATE_LIMITED",
    value: (j) => j.action,
  },
  {
    name: "rule",
    title: "Rule",
    doc: "the uuid of the filter rule that decided it",
    value: (j) => j.rule ?? "-",
  },
  {
    name: "priority",
    title: "Prio",
    doc: "the job's priority",
    numeric: true,
    value: (j) => (j.priority === undefined ? "-" : String(j.priority)),
  },
  {
    name: "received_ts",
    title: "Received",
    doc: "when the job was submitted",
    value: (j) => listTime(j.submitted_at),
  },
  { name: "start_ts", title: "Start", doc: "when the job took a slot", value: (j) => listTime(j.started_at) },
  {
    name: "end_ts",
    title: "End",
    doc: "when the job finished, was cancelled or its lease expired",
    value: (j) => listTime(j.ended_at),
  },
  {
    name: "lease_expires",
    title: "LeaseExpires",
    doc: "when a running job's lease runs out",
    value: (j) => listTime(j.lease_expires_at),
  },
];
const JOB_DEFAULT = [
  "id",
  "status",
  "action",
  "rule",
  "priority",
  "received_ts",
  "start_ts",
  "lease_expires",
];
const CANCEL_DEFAULT = ["id", "status", "action", "rule"];

export const QUEUE_USAGE = `usage: arbiter queue list [--limit N] [LIST OPTIONS]
       arbiter queue jobs QUEUE [--state running|queued|finished] [--limit N] [--cursor ID] [LIST OPTIONS]
       arbiter queue cancel QUEUE ID [LIST OPTIONS]

Lists the job queues with their running, queued and finished jobs and watermark
(GET /v1/queues), a queue's jobs newest first (GET /v1/queues/QUEUE/jobs;
\`finished\` covers finished, cancelled and expired jobs), or cancels a job
(DELETE /v1/queues/QUEUE/jobs/ID: a held job is dropped, a running job's slot
released; prints \`job ID: STATE\`, or a table with -o).

${LIST_OPTIONS_HELP}

Fields of queue list (* default):
${fieldsHelp(QUEUE_FIELDS, QUEUE_DEFAULT)}
Fields of queue jobs (* default; queue cancel: ${CANCEL_DEFAULT.join(", ")}); times are local, as gnt-job prints them:
${fieldsHelp(JOB_FIELDS, JOB_DEFAULT)}`;

const VALUED = ["--url", "--format", "--limit", "--state", "--cursor", ...LIST_VALUED];

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
  const fmt = tableOrJson(args);
  const target = apiTarget(args, io);
  const limit = option(args, "--limit");
  const print = (value: unknown, render: () => string) =>
    io.stdout(fmt === "json" ? JSON.stringify(value, null, 2) + "\n" : render());
  return reportingApiFailure(io, async () => {
    if (sub === "list" && rest.length === 0) {
      const { fields, style } = listOptions(args, QUEUE_FIELDS, QUEUE_DEFAULT);
      const { value } = await callApi(target, "GET", "/v1/queues" + query({ limit }));
      const queues = (value as { queues: QueueRow[] }).queues;
      print(queues, () => formatTable(fields, queues, style));
    } else if (sub === "jobs" && rest.length === 1) {
      const { fields, style } = listOptions(args, JOB_FIELDS, JOB_DEFAULT);
      const path =
        `/v1/queues/${encodeURIComponent(rest[0])}/jobs` +
        query({ state: option(args, "--state"), limit, cursor: option(args, "--cursor") });
      const { value } = await callApi(target, "GET", path);
      const page = value as { jobs: JobRow[]; cursor: string | null };
      print(page, () => {
        const more = page.cursor === null ? "" : `(more: --cursor ${page.cursor})\n`;
        return formatTable(fields, page.jobs, style) + more;
      });
    } else if (sub === "cancel" && rest.length === 2) {
      const selected = args.values.has("-o") || args.values.has("--output");
      const { fields, style } = listOptions(
        args,
        JOB_FIELDS.filter((f) => CANCEL_DEFAULT.includes(f.name)),
        CANCEL_DEFAULT,
      );
      const path = `/v1/queues/${encodeURIComponent(rest[0])}/jobs/${encodeURIComponent(rest[1])}`;
      const { value } = await callApi(target, "DELETE", path);
      const job = value as { job_id: number; state: string; action: string; rule: string | null };
      print(job, () =>
        selected
          ? formatTable(
              fields,
              [{ id: job.job_id, state: job.state, action: job.action, rule: job.rule }],
              style,
            )
          : `job ${job.job_id}: ${job.state}\n`,
      );
    } else {
      throw new UsageError(QUEUE_USAGE);
    }
  });
}
