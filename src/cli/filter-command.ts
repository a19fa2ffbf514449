import { parseExactJson, stringifyExactJson } from "../engines/common/exact-json.js";
import { formatTable, niceSort, parseServiceJson, pythonStr, type FilterJson } from "./filter-format.js";
import {
  lastValue,
  OptParseError,
  parseOptions,
  type OptionSpec,
  type ParsedOptions,
} from "./filter-options.js";

/** What the filter command needs from its surroundings; tests pass their own. */
export interface FilterIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
}

/** gnt-filter's exit statuses (Ganeti's constants). */
export const EXIT_SUCCESS = 0;
export const EXIT_FAILURE = 1;
/** optparse's status for a command line it cannot parse. */
export const EXIT_USAGE = 2;
/** `EXIT_UNKNOWN_FIELD`: a list asked for a field there is not. */
export const EXIT_UNKNOWN_FIELD = 14;

/** The subcommands, as gnt-filter has them. */
export const FILTER_COMMANDS = ["add", "replace", "delete", "list", "list-fields", "info"] as const;
type FilterCommand = (typeof FILTER_COMMANDS)[number];

/** The fields of a filter rule, as Ganeti's query layer defines them (all of kind "other"). */
const FIELDS: Record<string, { title: string; doc: string }> = {
  watermark: { title: "Watermark", doc: "Highest job ID used at the time when the filter was added" },
  priority: { title: "Priority", doc: "Filter priority" },
  predicates: { title: "Predicates", doc: "List of filter predicates" },
  action: { title: "Action", doc: "Filter action" },
  reason_trail: { title: "ReasonTrail", doc: "Reason why this filter was added" },
  uuid: { title: "UUID", doc: "Filter ID" },
};
/** `gnt-filter list`'s default fields, in order. */
export const DEFAULT_FIELDS = ["uuid", "watermark", "priority", "predicates", "action", "reason_trail"];
/** Ganeti's name of the "other" field kind, as list-fields prints it. */
const KIND_OTHER = "Custom";

const COMMON: OptionSpec[] = [
  { long: "--url", value: true },
  { long: "--queue", value: true },
  { long: "--reason", value: true },
  { long: "--debug", short: "-d", value: false },
  { long: "--help", short: "-h", value: false },
];
const RULE_OPTIONS: OptionSpec[] = [
  { long: "--priority", value: true },
  { long: "--predicates", value: true },
  { long: "--action", value: true },
];
const LIST_OPTIONS: OptionSpec[] = [
  { long: "--no-headers", value: false },
  { long: "--separator", value: true },
  { long: "--output", short: "-o", value: true },
  { long: "--verbose", short: "-v", value: false },
];

const COMMANDS: Record<FilterCommand, { options: OptionSpec[]; args: string; help: string; count?: number }> =
  {
    add: { options: RULE_OPTIONS, args: "", help: "Adds a new filter rule", count: 0 },
    replace: {
      options: RULE_OPTIONS,
      args: "<filter-uuid>",
      help: "Replaces a filter rule, or creates it",
      count: 1,
    },
    delete: { options: [], args: "<filter-uuid>", help: "Removes a filter rule", count: 1 },
    list: {
      options: LIST_OPTIONS,
      args: "[<filter-uuid>...]",
      help: `Lists the job filter rules. The default fields are (in order): ${DEFAULT_FIELDS.join(", ")}`,
    },
    "list-fields": {
      options: LIST_OPTIONS.filter((o) => o.long !== "--output" && o.long !== "--verbose"),
      args: "[<fields>...]",
      help: "Lists all available fields for filters",
    },
    info: { options: [], args: "[<filter-uuid>...]", help: "Shows information about the filter rule(s)" },
  };

export const FILTER_USAGE = `usage: arbiter filter COMMAND [options] [argument...]

Manages a queue's job filter rules on a running Arbiter, as gnt-filter does:
  add [--priority=N] [--predicates=JSON] [--action=ACTION] [--reason=TEXT]
  replace [same options] UUID
  delete UUID
  list [--no-headers] [--separator=SEP] [-v] [-o [+]FIELD,...] [UUID...]
  list-fields [--no-headers] [--separator=SEP] [FIELD...]
  info [UUID...]
ACTION is ACCEPT, PAUSE, REJECT, CONTINUE or "RATE_LIMIT N". -o takes a
comma-separated list of fields (also attached, -ouuid,action); a list starting
with + adds to the default fields (${DEFAULT_FIELDS.join(", ")}).
UUIDs are listed in the order given. Long options may be shortened to a unique
prefix (--sep=,), as with optparse.
Common options: --url URL (default $ARBITER_URL or http://127.0.0.1:8787),
--queue NAME (default: the Ganeti path /2/filters). The admin token is read
from ARBITER_ADMIN_TOKEN.
Exit status: 0 success, 1 failure (the service refused, a wrong number of
arguments, an unknown command), 2 an option that does not parse, 14 an
unknown field (EXIT_UNKNOWN_FIELD; the table is still printed).
`;

function commandUsage(name: FilterCommand): string {
  const c = COMMANDS[name];
  const opts = [...c.options, ...COMMON].map(
    (o) => `  ${o.short ? `${o.short}, ` : ""}${o.long}${o.value ? "=VALUE" : ""}`,
  );
  return `Usage: arbiter filter ${name} [options] ${c.args}\n\n${c.help}\n\nOptions:\n${opts.join("\n")}\n`;
}

class Failure extends Error {}

/** Merges `--action RATE_LIMIT 10` (three words) into one option value, as the spec's examples write it. */
function joinRateLimit(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--action" && argv[i + 1] === "RATE_LIMIT" && /^\d+$/.test(argv[i + 2] ?? "")) {
      out.push(`--action=RATE_LIMIT ${argv[i + 2]}`);
      i += 2;
    } else if (a === "--action=RATE_LIMIT" && /^\d+$/.test(argv[i + 1] ?? "")) {
      out.push(`--action=RATE_LIMIT ${argv[i + 1]}`);
      i += 1;
    } else {
      out.push(a);
    }
  }
  return out;
}

/** gnt-filter's `filteraction` option type: "RATE_LIMIT n" becomes `["RATE_LIMIT", n]`, any other text is sent as it is. */
function actionValue(text: string): unknown {
  const m = /^RATE_LIMIT\s+(\d+)/.exec(text);
  return m ? ["RATE_LIMIT", Number(m[1])] : text;
}

/** Builds a RAPI body from the options gnt-filter add/replace take. */
function ruleBody(opts: ParsedOptions, nowMs: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const priority = lastValue(opts, "--priority");
  if (priority !== undefined) {
    if (!/^[-+]?\d+$/.test(priority.trim()))
      throw new OptParseError(`option --priority: invalid integer value: '${priority}'`);
    // Exact past 2^53, as optparse's int is: the service checks the range.
    const n = BigInt(priority.trim());
    body.priority =
      n >= BigInt(Number.MIN_SAFE_INTEGER) && n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;
  }
  const predicates = lastValue(opts, "--predicates");
  if (predicates !== undefined) {
    try {
      body.predicates = parseExactJson(predicates);
    } catch (e) {
      throw new OptParseError(`option --predicates: invalid JSON value: ${(e as Error).message}`);
    }
  }
  const action = lastValue(opts, "--action");
  if (action !== undefined) body.action = actionValue(action);
  const reason = lastValue(opts, "--reason");
  if (reason !== undefined) body.reason = [["gnt:user", reason, BigInt(nowMs) * 1_000_000n]];
  return body;
}

type Rule = { [key: string]: FilterJson };

/** The gnt-filter command line against a running service's RAPI filter resource. */
export async function runFilterCommand(argv: string[], io: FilterIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--help" || name === "-h") return (io.stdout(FILTER_USAGE), EXIT_SUCCESS);
  if (name === undefined || !(FILTER_COMMANDS as readonly string[]).includes(name)) {
    io.stdout(FILTER_USAGE);
    return EXIT_FAILURE;
  }
  const command = name as FilterCommand;
  const spec = COMMANDS[command];
  let opts: ParsedOptions;
  try {
    opts = parseOptions(joinRateLimit(rest), [...spec.options, ...COMMON]);
  } catch (e) {
    if (!(e instanceof OptParseError)) throw e;
    io.stderr(
      `Usage: arbiter filter ${command} [options] ${spec.args}\n\narbiter filter: error: ${e.message}\n`,
    );
    return EXIT_USAGE;
  }
  if (opts.flags.has("--help")) return (io.stdout(commandUsage(command)), EXIT_SUCCESS);
  if (spec.count !== undefined && opts.args.length !== spec.count) {
    io.stderr(
      spec.count === 0
        ? `Error: Command ${command} expects no arguments\n`
        : `Error: Command ${command} expects ${spec.count} argument(s)\n`,
    );
    return EXIT_FAILURE;
  }

  const url = (lastValue(opts, "--url") ?? io.env.ARBITER_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const queue = lastValue(opts, "--queue");
  const base =
    queue === undefined ? `${url}/2/filters` : `${url}/v1/queues/${encodeURIComponent(queue)}/filters`;
  const token = io.env.ARBITER_ADMIN_TOKEN;

  async function call(method: string, path: string, body?: unknown): Promise<FilterJson> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : stringifyExactJson(body),
      });
    } catch (e) {
      throw new Failure(`cannot reach ${base}: ${(e as Error).message}`);
    }
    const text = await res.text();
    let value: FilterJson = text;
    try {
      value = text === "" ? null : parseServiceJson(text);
    } catch {
      // not JSON: keep the text for the message
    }
    if (!res.ok) {
      const v = value as { message?: FilterJson; error?: { message?: FilterJson } } | null;
      const message =
        (typeof v === "object" && v !== null && !Array.isArray(v)
          ? (v.message ?? v.error?.message)
          : undefined) ?? `HTTP ${res.status}`;
      throw new Failure(typeof message === "string" ? message : pythonStr(message));
    }
    return value;
  }

  /** The rules asked for, in the order given (every rule, by UUID, when none is named), as Ganeti's query returns them. */
  async function rulesFor(uuids: string[]): Promise<Rule[]> {
    const all = (await call("GET", "?bulk=1")) as Rule[];
    if (uuids.length === 0) return niceSort(all, (r) => pythonStr(r.uuid ?? null));
    return uuids.map((u) => {
      const found = all.find((r) => r.uuid === u);
      if (!found)
        throw new Failure(
          `prerequisites not met for this operation:\nerror type: unknown_entity, error details:\nFilter uuid ${u} not found`,
        );
      return found;
    });
  }

  const separator = lastValue(opts, "--separator");
  const header = !opts.flags.has("--no-headers");
  try {
    switch (command) {
      case "add":
        io.stdout(`${pythonStr(await call("POST", "", ruleBody(opts, Date.now())))}\n`);
        return EXIT_SUCCESS;
      case "replace":
        io.stdout(
          `${pythonStr(await call("PUT", `/${encodeURIComponent(opts.args[0])}`, ruleBody(opts, Date.now())))}\n`,
        );
        return EXIT_SUCCESS;
      case "delete":
        await call("DELETE", `/${encodeURIComponent(opts.args[0])}`);
        return EXIT_SUCCESS;
      case "list": {
        const o = lastValue(opts, "--output");
        const fields =
          o === undefined
            ? DEFAULT_FIELDS
            : o.startsWith("+")
              ? [...DEFAULT_FIELDS, ...o.slice(1).split(",")]
              : o.split(",");
        const unknown = fields.filter((f) => !(f in FIELDS));
        const rules = await rulesFor(opts.args);
        const missing = opts.flags.has("--verbose") ? "(unknown)" : "??";
        const rows = rules.map((r) => fields.map((f) => (f in FIELDS ? pythonStr(r[f] ?? null) : missing)));
        const titles = fields.map((f) => FIELDS[f]?.title ?? f);
        if (unknown.length > 0) io.stderr(`Warning: Queried for unknown fields ${unknown.join(", ")}\n`);
        for (const line of formatTable(titles, rows, header, separator)) io.stdout(`${line}\n`);
        return unknown.length > 0 ? EXIT_UNKNOWN_FIELD : EXIT_SUCCESS;
      }
      case "list-fields": {
        const names = opts.args.length > 0 ? opts.args : niceSort(Object.keys(FIELDS), (f) => f);
        const unknown = names.filter((f) => !(f in FIELDS));
        const rows = names.map((f) =>
          f in FIELDS
            ? [f, KIND_OTHER, FIELDS[f].title, FIELDS[f].doc]
            : [f, "Unknown", f, `Unknown field '${f}'`],
        );
        if (unknown.length > 0) io.stderr(`Warning: Queried for unknown fields ${unknown.join(", ")}\n`);
        for (const line of formatTable(["Name", "Type", "Title", "Description"], rows, header, separator))
          io.stdout(`${line}\n`);
        return unknown.length > 0 ? EXIT_UNKNOWN_FIELD : EXIT_SUCCESS;
      }
      case "info": {
        for (const r of await rulesFor(opts.args)) {
          io.stdout(
            `UUID: ${pythonStr(r.uuid ?? null)}\n` +
              `  Watermark: ${pythonStr(r.watermark ?? null)}\n` +
              `  Priority: ${pythonStr(r.priority ?? null)}\n` +
              `  Predicates: ${pythonStr(r.predicates ?? null)}\n` +
              `  Action: ${pythonStr(r.action ?? null)}\n` +
              `  Reason trail: ${pythonStr(r.reason_trail ?? null)}\n`,
          );
        }
        return EXIT_SUCCESS;
      }
    }
  } catch (e) {
    if (e instanceof OptParseError) {
      io.stderr(
        `Usage: arbiter filter ${command} [options] ${spec.args}\n\narbiter filter: error: ${e.message}\n`,
      );
      return EXIT_USAGE;
    }
    if (e instanceof Failure) {
      io.stderr(`Failure: ${e.message}\n`);
      return EXIT_FAILURE;
    }
    throw e;
  }
}
