import { apiTarget, callApi, reportingApiFailure, tableOrJson } from "./api-client.js";
import { option, parseArgs, UsageError } from "./args.js";
import type { Io } from "./io.js";
import {
  fieldsHelp,
  LIST_OPTIONS_HELP,
  formatTable,
  LIST_VALUED,
  listOptions,
  listTime,
  yesNo,
  type ListField,
} from "./list-fields.js";

interface HostRow {
  net: number;
  name: string;
  address: string;
  available: boolean;
  rating: number | null;
  reason?: string;
  down: boolean;
  jobs: number;
  pending: number;
  reported_at: string;
  permits: number[];
}

/** The fields of `arbiter hosts list`. */
const HOST_FIELDS: ListField<HostRow>[] = [
  {
    name: "net",
    title: "Net",
    doc: "the network number of its pool (default when listing every network)",
    numeric: true,
    value: (h) => String(h.net),
  },
  { name: "name", title: "Host", doc: "the host's name", value: (h) => h.name },
  { name: "address", title: "Address", doc: "the address it reported", value: (h) => h.address },
  {
    name: "available",
    title: "Avail",
    doc: "Y when it can take a job now",
    value: (h) => yesNo(h.available),
  },
  {
    name: "reason",
    title: "Reason",
    doc: "why it is unavailable (AVAIL_IDLE, AVAIL_SWAP, AVAIL_LOAD, AVAIL_IMPORTS, AVAIL_PROC, AVAIL_DOWN)",
    value: (h) => h.reason ?? "-",
  },
  {
    name: "rating",
    title: "Rating",
    doc: "its customs rating, allocations since its report counted",
    numeric: true,
    value: (h) => (h.rating === null ? "-" : String(h.rating)),
  },
  { name: "down", title: "Down", doc: "Y when it missed its reports", value: (h) => yesNo(h.down) },
  {
    name: "jobs",
    title: "Jobs",
    doc: "imported jobs, as last reported",
    numeric: true,
    value: (h) => String(h.jobs),
  },
  {
    name: "pending",
    title: "Pending",
    doc: "allocations since that report",
    numeric: true,
    value: (h) => String(h.pending),
  },
  {
    name: "permits",
    title: "Permits",
    doc: "the ids of its open permits",
    value: (h) => (h.permits.length === 0 ? "-" : h.permits.join(",")),
  },
  {
    name: "reported",
    title: "LastReport",
    doc: "when it last reported (local time)",
    value: (h) => listTime(h.reported_at),
  },
];
const HOST_DEFAULT = ["name", "address", "available", "reason", "rating", "jobs", "permits", "reported"];

/** The default fields when every network is listed: the network first. */
const HOST_DEFAULT_ALL = ["net", ...HOST_DEFAULT];

export const HOSTS_USAGE = `usage: arbiter hosts list [--net N] [--limit N] [--cursor C] [LIST OPTIONS]
       arbiter hosts remove NAME [--net N] [--format table|json]

Lists every host of every network's pool (GET /v1/hosts), or of network N
with --net (GET /v1/hosts?net=N), with its network, availability, the reason
when it is unavailable, rating, jobs, permits and last report: all of them,
page after page, or with --limit one page of at most N hosts (--cursor C for
the next; the table then ends with the cursor to pass). Or removes a host
(DELETE /v1/hosts/NAME?net=N, default network 0, admin): its permits are
revoked and it is not selected until it reports again.

${LIST_OPTIONS_HELP}

Fields of hosts list (* default; net too when every network is listed):
${fieldsHelp(HOST_FIELDS, HOST_DEFAULT)}`;

const VALUED = ["--url", "--format", "--net", "--limit", "--cursor", ...LIST_VALUED];
/** Pages `hosts list` follows at most when listing everything (of GET /v1/hosts' largest page, 500 hosts). */
const MAX_PAGES = 10_000;

interface HostPage {
  net?: number;
  hosts: HostRow[];
  cursor: string | null;
}

function query(params: Record<string, string | undefined>): string {
  const given = Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined);
  return given.length === 0 ? "" : "?" + new URLSearchParams(given).toString();
}

/** `arbiter hosts list|remove`: the host pools over the API, as customs' `reginfo` and host removal. */
export async function hostsCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, VALUED);
  if (args.switches.has("--help")) return (io.stdout(HOSTS_USAGE), 0);
  const [sub, ...rest] = args.positional;
  const fmt = tableOrJson(args);
  const target = apiTarget(args, io);
  const net = option(args, "--net");
  const netQuery = net === undefined ? "" : `?net=${encodeURIComponent(net)}`;
  const print = (value: unknown, render: () => string) =>
    io.stdout(fmt === "json" ? JSON.stringify(value, null, 2) + "\n" : render());
  return reportingApiFailure(io, async () => {
    if (sub === "list" && rest.length === 0) {
      const { fields, style } = listOptions(
        args,
        HOST_FIELDS,
        net === undefined ? HOST_DEFAULT_ALL : HOST_DEFAULT,
      );
      const limit = option(args, "--limit");
      const cursor = option(args, "--cursor");
      if (limit !== undefined || cursor !== undefined) {
        const { value } = await callApi(target, "GET", "/v1/hosts" + query({ net, limit, cursor }));
        const page = value as HostPage;
        print(
          page,
          () =>
            formatTable(fields, page.hosts, style) +
            (page.cursor === null ? "" : `(more: --cursor ${page.cursor})\n`),
        );
        return;
      }
      // everything: page after page of the largest size
      const hosts: HostRow[] = [];
      let next: string | null = null;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const { value } = await callApi(
          target,
          "GET",
          "/v1/hosts" + query({ net, limit: "500", cursor: next ?? undefined }),
        );
        const page = value as HostPage;
        hosts.push(...page.hosts);
        next = page.cursor;
        if (next === null) break;
      }
      const answer = { ...(net === undefined ? {} : { net: Number(net) }), hosts, cursor: next };
      print(
        answer,
        () => formatTable(fields, hosts, style) + (next === null ? "" : `(more: --cursor ${next})\n`),
      );
    } else if (sub === "remove" && rest.length === 1) {
      const { value } = await callApi(
        target,
        "DELETE",
        `/v1/hosts/${encodeURIComponent(rest[0])}${netQuery}`,
      );
      const removed = value as { host: string; net: number; revoked: number[] };
      print(removed, () => {
        const revoked =
          removed.revoked.length === 0 ? "no permits" : `permits revoked: ${removed.revoked.join(", ")}`;
        return `host ${removed.host} removed from network ${removed.net} (${revoked})\n`;
      });
    } else {
      throw new UsageError(HOSTS_USAGE);
    }
  });
}
