import { parseArgs, option, UsageError, type ParsedArgs } from "./args.js";

/** What the filter command needs from its surroundings; tests pass their own. */
export interface FilterIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
}

export const FILTER_USAGE = `usage: arbiter filter COMMAND [options]

Manages a queue's job filter rules on a running Arbiter, like gnt-filter.
  add [--priority=N] [--predicates=JSON] [--action=ACTION] [--reason=TEXT]
  replace [same options] UUID
  delete UUID
  list [--no-headers] [--separator=SEP] [-o [+]FIELD,...] [UUID...]
  list-fields [FIELD...]
  info [UUID...]
ACTION is ACCEPT, PAUSE, REJECT, CONTINUE or "RATE_LIMIT N".
Common options: --url URL (default $ARBITER_URL or http://127.0.0.1:8787),
--queue NAME (default: the Ganeti path /2/filters). The admin token is read
from ARBITER_ADMIN_TOKEN.
`;

/** The subcommands, as gnt-filter has them. */
export const FILTER_COMMANDS = ["add", "replace", "delete", "list", "list-fields", "info"] as const;

const FIELDS: Record<string, { title: string; kind: string; doc: string }> = {
  uuid: { title: "UUID", kind: "Text", doc: "Network UUID" },
  watermark: { title: "Watermark", kind: "Number", doc: "Highest job ID used at the time when the filter was added" },
  priority: { title: "Priority", kind: "Number", doc: "Filter priority" },
  predicates: { title: "Predicates", kind: "Other", doc: "List of filter predicates" },
  action: { title: "Action", kind: "Other", doc: "Filter action" },
  reason_trail: { title: "ReasonTrail", kind: "Other", doc: "Reason why this filter was added" },
};
const DEFAULT_FIELDS = ["uuid", "watermark", "priority", "predicates", "action", "reason_trail"];

type Rule = Record<string, unknown>;

class Failure extends Error {}

/** Merges `--action RATE_LIMIT 10` (three words) into one option value, as gnt-filter accepts it. */
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

function parseActionOption(text: string): unknown {
  const m = /^\s*RATE_LIMIT\s+(\d+)\s*$/.exec(text);
  if (m) return ["RATE_LIMIT", Number(m[1])];
  if (["ACCEPT", "PAUSE", "REJECT", "CONTINUE"].includes(text)) return text;
  throw new UsageError(`invalid --action \`${text}\`: expected ACCEPT, PAUSE, REJECT, CONTINUE or "RATE_LIMIT N"`);
}

/** Builds a RAPI body from the options gnt-filter add/replace take. */
function ruleBody(args: ParsedArgs, nowMs: number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const priority = option(args, "--priority");
  if (priority !== undefined) {
    if (!/^\d+$/.test(priority)) throw new UsageError(`invalid --priority \`${priority}\`: expected a non-negative integer`);
    body.priority = Number(priority);
  }
  const predicates = option(args, "--predicates");
  if (predicates !== undefined) {
    try {
      body.predicates = JSON.parse(predicates);
    } catch (e) {
      throw new UsageError(`invalid --predicates: ${(e as Error).message}`);
    }
  }
  const action = option(args, "--action");
  if (action !== undefined) body.action = parseActionOption(action);
  const reason = option(args, "--reason");
  if (reason !== undefined) body.reason = [["gnt:user", reason, nowMs * 1_000_000]];
  return body;
}

function formatValue(field: string, v: unknown): string {
  if (field === "action" && Array.isArray(v)) return `${v[0]} ${v[1]}`;
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** Lays out rows as gnt-* list commands do: padded columns, or joined by the separator. */
function table(headers: string[] | null, rows: string[][], separator: string | undefined, numeric: boolean[]): string {
  const all = headers ? [headers, ...rows] : rows;
  if (separator !== undefined) return all.map((r) => r.join(separator) + "\n").join("");
  const widths = headers ? headers.map((h) => h.length) : (rows[0] ?? []).map(() => 0);
  for (const r of all) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return all
    .map((r) =>
      r
        .map((cell, i) => (i === r.length - 1 && !numeric[i] ? cell : numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i])))
        .join(" ")
        .trimEnd() + "\n",
    )
    .join("");
}

/** The gnt-filter command line against a running service's RAPI filter resource. */
export async function runFilterCommand(argv: string[], io: FilterIo): Promise<number> {
  let args: ParsedArgs;
  try {
    args = parseArgs(joinRateLimit(argv), ["--priority", "--predicates", "--action", "--reason", "--separator", "-o", "--url", "--queue"]);
  } catch (e) {
    io.stderr(`${(e as Error).message}\n\n${FILTER_USAGE}`);
    return 2;
  }
  const [command, ...rest] = args.positional;
  const url = (option(args, "--url") ?? io.env.ARBITER_URL ?? "http://127.0.0.1:8787").replace(/\/+$/, "");
  const queue = option(args, "--queue");
  const base = queue === undefined ? `${url}/2/filters` : `${url}/v1/queues/${encodeURIComponent(queue)}/filters`;
  const token = io.env.ARBITER_ADMIN_TOKEN;

  async function call(method: string, path: string, body?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new Failure(`cannot reach ${base}: ${(e as Error).message}`);
    }
    const text = await res.text();
    let value: unknown = null;
    try {
      value = text === "" ? null : JSON.parse(text);
    } catch {
      value = text;
    }
    if (!res.ok) {
      const v = value as { message?: unknown; error?: { message?: unknown } } | null;
      const message = v?.message ?? v?.error?.message ?? `HTTP ${res.status}`;
      throw new Failure(String(message));
    }
    return value;
  }

  async function rulesFor(uuids: string[]): Promise<Rule[]> {
    const all = (await call("GET", "?bulk=1")) as Rule[];
    if (uuids.length === 0) return all;
    return uuids.map((u) => {
      const found = all.find((r) => r.uuid === u);
      if (!found) throw new Failure(`Filter rule with UUID ${u} does not exist`);
      return found;
    });
  }

  const allowed: Record<string, string[]> = {
    add: ["--priority", "--predicates", "--action", "--reason"],
    replace: ["--priority", "--predicates", "--action", "--reason"],
    list: ["--separator", "-o"],
  };
  const switches: Record<string, string[]> = { list: ["--no-headers", "-v"] };
  try {
    if (command === undefined || args.switches.has("--help") || args.switches.has("-h")) {
      io.stdout(FILTER_USAGE);
      return command === undefined ? 2 : 0;
    }
    for (const name of args.values.keys()) {
      if (name !== "--url" && name !== "--queue" && !(allowed[command] ?? []).includes(name)) throw new UsageError(`option ${name} does not apply to \`${command}\``);
    }
    for (const name of args.switches) {
      if (!(switches[command] ?? []).includes(name)) throw new UsageError(`unknown option ${name}`);
    }
    switch (command) {
      case "add": {
        if (rest.length !== 0) throw new UsageError("add takes no positional arguments");
        io.stdout(`${String(await call("POST", "", ruleBody(args, Date.now())))}\n`);
        return 0;
      }
      case "replace": {
        if (rest.length !== 1) throw new UsageError("replace takes exactly one UUID");
        io.stdout(`${String(await call("PUT", `/${encodeURIComponent(rest[0])}`, ruleBody(args, Date.now())))}\n`);
        return 0;
      }
      case "delete": {
        if (rest.length !== 1) throw new UsageError("delete takes exactly one UUID");
        await call("DELETE", `/${encodeURIComponent(rest[0])}`);
        return 0;
      }
      case "list": {
        const o = option(args, "-o");
        let fields = DEFAULT_FIELDS;
        if (o !== undefined) fields = o.startsWith("+") ? [...DEFAULT_FIELDS, ...o.slice(1).split(",")] : o.split(",");
        for (const f of fields) if (!(f in FIELDS)) throw new UsageError(`unknown field \`${f}\``);
        const rules = (await rulesFor(rest)).sort((a, b) => String(a.uuid).localeCompare(String(b.uuid)));
        const rows = rules.map((r) => fields.map((f) => formatValue(f, r[f])));
        const headers = args.switches.has("--no-headers") ? null : fields.map((f) => FIELDS[f].title);
        io.stdout(table(headers, rows, option(args, "--separator"), fields.map((f) => FIELDS[f].kind === "Number")));
        return 0;
      }
      case "list-fields": {
        const names = rest.length > 0 ? rest : Object.keys(FIELDS);
        for (const f of names) if (!(f in FIELDS)) throw new UsageError(`unknown field \`${f}\``);
        const rows = names.map((f) => [f, FIELDS[f].kind, FIELDS[f].title, FIELDS[f].doc]);
        io.stdout(table(["Name", "Type", "Title", "Description"], rows, undefined, [false, false, false, false]));
        return 0;
      }
      case "info": {
        for (const r of await rulesFor(rest)) {
          io.stdout(
            `UUID: ${String(r.uuid)}\n` +
              `  Watermark: ${String(r.watermark)}\n` +
              `  Priority: ${String(r.priority)}\n` +
              `  Predicates: ${formatValue("predicates", r.predicates)}\n` +
              `  Action: ${formatValue("action", r.action)}\n` +
              `  Reason trail: ${formatValue("reason_trail", r.reason_trail)}\n`,
          );
        }
        return 0;
      }
      default:
        throw new UsageError(`unknown filter command \`${command}\``);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`${e.message}\n\n${FILTER_USAGE}`);
      return 2;
    }
    if (e instanceof Failure) {
      io.stderr(`Failure: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
