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

export const HOSTS_USAGE = `usage: arbiter hosts list [--net N] [LIST OPTIONS]
       arbiter hosts remove NAME [--net N] [--format table|json]

Lists every host of a network's pool (GET /v1/hosts?net=N, default 0) with its
availability, the reason when it is unavailable, rating, jobs, permits and last
report; or removes a host (DELETE /v1/hosts/NAME?net=N, admin): its permits are
revoked and it is not selected until it reports again.

${LIST_OPTIONS_HELP}

Fields of hosts list (* default):
${fieldsHelp(HOST_FIELDS, HOST_DEFAULT)}`;

const VALUED = ["--url", "--format", "--net", ...LIST_VALUED];

/** `arbiter hosts list|remove`: a network's host pool over the API, as customs' `reginfo` and host removal. */
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
      const { fields, style } = listOptions(args, HOST_FIELDS, HOST_DEFAULT);
      const { value } = await callApi(target, "GET", "/v1/hosts" + netQuery);
      const answer = value as { net: number; hosts: HostRow[] };
      print(answer, () => formatTable(fields, answer.hosts, style));
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
