import { didYouMean } from "../engines/common/did-you-mean.js";
import { readFileSync } from "node:fs";
import {
  ApiFailure,
  apiTarget,
  callApi,
  reportingApiFailure,
  table,
  tableOrJson,
  type ApiTarget,
} from "./api-client.js";
import { option, parseArgs, UsageError, type ParsedArgs } from "./args.js";
import type { Io } from "./io.js";
import { diffFindingsText } from "./candidate-diff-text.js";
import type { DiffFindings } from "../bundle/compare/diff-findings.js";

const COMMON_HELP = `Common options: --url URL (default $ARBITER_URL or http://127.0.0.1:8787), --format table|json;
the admin token is read from $ARBITER_TOKEN.
`;

export const HISTORY_USAGE = `usage: arbiter history [--limit N] [--format table|json] [--url URL]

Lists the changes of the active policy revision (publishes, promotions,
rollbacks), newest first, from GET /v1/policies/history; the service keeps the
last 100.
${COMMON_HELP}`;

export const ROLLBACK_USAGE = `usage: arbiter rollback REVISION [--if-match REVISION] [--note TEXT] [--url URL]

Makes REVISION (a revision the history keeps, or a unique prefix of one) active
again through POST /v1/policies/rollback. --if-match makes it conditional on the
active revision; --note is kept in the history record.
${COMMON_HELP}`;

export const CANDIDATE_USAGE = `usage: arbiter candidate stage ENGINE FILE [--if-match REVISION] [--note TEXT]
       arbiter candidate show|report [--format table|json]
       arbiter candidate promote [--if-match REVISION] [--note TEXT]
       arbiter candidate drop

Stages a policy source as the candidate (shadow-evaluated on live traffic, not
active), shows it and its shadow report, promotes it, or drops it, over the API.
The report also lists what the semantic diff found when the candidate was
staged: the pairs it would differ on, and how many live decisions showed each
(\`none yet\`: would differ on these requests, none seen yet).
${COMMON_HELP}`;

const VALUED = ["--url", "--format", "--limit", "--if-match", "--note"];

interface HistoryLine {
  sequence: number;
  revision: string;
  previous: string;
  action: string;
  engines: { engine: string }[];
  at: string;
  role: string;
  note?: string;
}

/** The first 12 characters of a revision, as the tables print it. */
const short = (revision: string) => revision.slice(0, 12);

function changeHeaders(args: ParsedArgs): Record<string, string> {
  const headers: Record<string, string> = {};
  const ifMatch = option(args, "--if-match");
  if (ifMatch !== undefined) headers["if-match"] = `"${ifMatch}"`;
  const note = option(args, "--note");
  if (note !== undefined) headers["x-arbiter-change-note"] = note;
  return headers;
}

async function historyRecords(target: ApiTarget, limit: number): Promise<HistoryLine[]> {
  return (
    (await callApi(target, "GET", `/v1/policies/history?limit=${limit}`)).value as { history: HistoryLine[] }
  ).history;
}

/** `arbiter history`: the kept policy changes, newest first. */
export async function historyCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, VALUED);
  if (args.switches.has("--help")) return (io.stdout(HISTORY_USAGE), 0);
  const fmt = tableOrJson(args);
  const limit = option(args, "--limit") ?? "20";
  const target = apiTarget(args, io);
  return reportingApiFailure(io, async () => {
    const records = await historyRecords(target, Number.isInteger(Number(limit)) ? Number(limit) : NaN);
    if (fmt === "json") return io.stdout(JSON.stringify(records, null, 2) + "\n");
    const rows = records.map((r) => [
      String(r.sequence),
      short(r.revision),
      short(r.previous),
      r.action,
      r.engines.map((e) => e.engine).join(",") || "-",
      r.at,
      r.role,
      r.note ?? "",
    ]);
    io.stdout(table(["Seq", "Revision", "Previous", "Action", "Engines", "At", "Role", "Note"], rows));
  });
}

/** Finds the one kept revision a prefix names; a full revision passes unchanged. */
async function resolveRevision(target: ApiTarget, given: string): Promise<string> {
  if (given.length >= 64) return given;
  const names = new Set<string>();
  for (const r of await historyRecords(target, 100))
    for (const v of [r.revision, r.previous]) if (v.startsWith(given)) names.add(v);
  if (names.size === 1) return [...names][0];
  throw new ApiFailure(
    0,
    names.size === 0
      ? `no kept revision starts with \`${given}\``
      : `\`${given}\` names ${names.size} kept revisions: give more of it`,
  );
}

/** `arbiter rollback REVISION`: makes a kept revision active again. */
export async function rollbackCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, VALUED);
  if (args.switches.has("--help")) return (io.stdout(ROLLBACK_USAGE), 0);
  if (args.positional.length !== 1) throw new UsageError(ROLLBACK_USAGE);
  const target = apiTarget(args, io);
  return reportingApiFailure(io, async () => {
    const revision = await resolveRevision(target, args.positional[0]);
    const { value } = await callApi(
      target,
      "POST",
      "/v1/policies/rollback",
      { json: { revision } },
      changeHeaders(args),
    );
    const answer = value as { revision: string; previous: string };
    if (tableOrJson(args) === "json") return io.stdout(JSON.stringify(answer) + "\n");
    io.stdout(`active revision ${answer.revision} (was ${answer.previous})\n`);
  });
}

/** `arbiter candidate …`: stage, show, report, promote, drop. */
export async function candidateCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, VALUED);
  const [verb, ...rest] = args.positional;
  if (args.switches.has("--help") || verb === undefined)
    return (io.stdout(CANDIDATE_USAGE), verb === undefined && !args.switches.has("--help") ? 2 : 0);
  const target = apiTarget(args, io);
  const fmt = tableOrJson(args);
  const print = (value: unknown, text: () => string) =>
    io.stdout(fmt === "json" ? JSON.stringify(value, null, 2) + "\n" : text());
  return reportingApiFailure(io, async () => {
    switch (verb) {
      case "stage": {
        if (rest.length !== 2) throw new UsageError(CANDIDATE_USAGE);
        const [engine, file] = rest;
        let source: string;
        try {
          source = readFileSync(file, "utf8");
        } catch (e) {
          throw new ApiFailure(0, `cannot read ${file}: ${(e as Error).message}`);
        }
        const { value } = await callApi(
          target,
          "PUT",
          `/v1/policies/${encodeURIComponent(engine)}?stage=candidate`,
          { text: source },
          changeHeaders(args),
        );
        const c = value as { revision: string; staged: string[]; based_on: string };
        return print(
          value,
          () => `staged ${c.staged.join(",")} as candidate ${c.revision} (based on ${c.based_on})\n`,
        );
      }
      case "show": {
        const { value } = await callApi(target, "GET", "/v1/candidate");
        const c = value as { revision: string; staged: string[]; staged_at: string; based_on: string };
        return print(value, () =>
          table(
            ["Revision", "Staged", "Staged at", "Based on"],
            [[short(c.revision), c.staged.join(","), c.staged_at, short(c.based_on)]],
          ),
        );
      }
      case "report": {
        const { value } = await callApi(target, "GET", "/v1/candidate/report");
        const r = value as {
          compared: number;
          agreed: number;
          differing: number;
          engines: Record<string, { pairs: { pair: string; count: number }[] }>;
          diff?: DiffFindings;
        };
        return print(value, () => {
          const rows = Object.entries(r.engines).flatMap(([engine, e]) =>
            e.pairs.map((p) => [engine, p.pair, String(p.count)]),
          );
          return (
            `compared ${r.compared}, agreed ${r.agreed}, differing ${r.differing}\n` +
            (rows.length > 0 ? table(["Engine", "Pair", "Count"], rows) : "") +
            diffFindingsText(r.diff)
          );
        });
      }
      case "promote": {
        const { value } = await callApi(
          target,
          "POST",
          "/v1/candidate/promote",
          undefined,
          changeHeaders(args),
        );
        const p = value as { revision: string; previous: string };
        return print(value, () => `active revision ${p.revision} (was ${p.previous})\n`);
      }
      case "drop": {
        const { value } = await callApi(target, "DELETE", "/v1/candidate");
        return print(value, () => `dropped candidate ${(value as { revision: string }).revision}\n`);
      }
      default:
        throw new UsageError(
          `arbiter candidate: unknown verb \`${verb}\`${didYouMean(verb, ["stage", "show", "report", "promote", "drop"])}\n\n${CANDIDATE_USAGE}`,
        );
    }
  });
}
