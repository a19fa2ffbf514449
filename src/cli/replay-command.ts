import { readFileSync } from "node:fs";
import {
  DECISION_KINDS,
  engineOfKind,
  pairOf,
  reportText,
  Tally,
  type DecisionKind,
  type View,
} from "../bundle/compare/index.js";
import { LoadedBundle } from "../bundle/index.js";
import { isJsonObject } from "../engines/common/json.js";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { Io } from "./io.js";
import { compileFolder, errorLine, fileOf, readPolicyDir } from "./policy-files.js";
import { decideUnder, type Decided } from "./replay-decide.js";
import { progressBar } from "./progress.js";

export const REPLAY_USAGE = `usage: arbiter replay --policy DIR [--format text|json] LOG.jsonl
       arbiter replay --policy DIR --against DIR [--engine KIND] [--format text|json] REQUESTS.jsonl

Re-decides requests under the policies of DIR (a policies folder) and prints the
report GET /v1/candidate/report gives for a candidate on live traffic: decisions
compared, agreed, differing, per engine and outcome pair with examples.

With a log: LOG.jsonl holds decision log lines captured with
DECISION_LOG_REQUESTS=masked or full (docs/operations.md); each line's request is
decided again at the line's time under DIR and compared with the verdict the line
records. Lines without a captured request, customs allocations and job decisions
(they depend on state a log does not hold) are counted as skipped.

With --against OLD: both folders decide every request of REQUESTS.jsonl, OLD in
the active policy's place. A line is {"kind": KIND, "request": {...}} (decision
log lines are such lines), or a bare request body when --engine names its kind.
Kinds: limits, placement, match, ads-check (POST /v1/ads/check), jobfilter (an
\`arbiter eval jobfilter\` line, carrying its queue).

A file of "-" is read from stdin. Progress shows on stderr when stdout is a
terminal. Exit status: 0 (differences are the report, not an error), 1 a policy
folder does not compile or the file cannot be read, 2 usage.
`;

/** A policy folder compiled and loaded, or the lines saying why not. */
async function loadFolder(
  dir: string,
): Promise<{ ok: true; bundle: LoadedBundle } | { ok: false; errors: string[] }> {
  const folder = readPolicyDir(dir);
  if (folder.errors.length > 0) return { ok: false, errors: folder.errors };
  const compiled = await compileFolder(folder);
  if (!compiled.ok)
    return { ok: false, errors: compiled.error.map((e) => errorLine(fileOf(folder, e.engine), e)) };
  return { ok: true, bundle: new LoadedBundle(compiled.value) };
}

/** The kind a line's decision is: its `kind`, or its `engine` (a match request with an `ad` is an ad check), or --engine. */
function kindOf(
  line: Record<string, unknown>,
  request: unknown,
  fallback: string | undefined,
): DecisionKind | undefined {
  let named =
    typeof line.kind === "string" ? line.kind : typeof line.engine === "string" ? line.engine : fallback;
  if (named === "match" && isJsonObject(request) && "ad" in request && !("machines" in request))
    named = "ads-check";
  return (DECISION_KINDS as readonly string[]).includes(named ?? "") ? (named as DecisionKind) : undefined;
}

/** Why a log line is not replayed, or undefined when it is. */
function logSkip(line: Record<string, unknown>, kind: DecisionKind | undefined): string | undefined {
  if (typeof line.decision_id !== "string") return "not a decision line";
  if (line.kind === "customs" || line.engine === "customs")
    return "customs allocations depend on the host pool's state";
  if (line.request_omitted !== undefined) return "the request was too large to capture";
  if (line.request === undefined) return "no captured request (DECISION_LOG_REQUESTS was off)";
  if (kind === undefined) return `unknown kind \`${String(line.kind ?? line.engine)}\``;
  if (kind === "jobfilter")
    return "job decisions depend on the queue's running jobs, which a log does not hold";
  if (!isJsonObject(line.verdict)) return "no verdict recorded beside the request";
  return undefined;
}

/** `arbiter replay`: a candidate policy folder against a decision log, or two folders against a request file. */
export async function replayCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--policy", "--against", "--engine", "--format"]);
  if (args.switches.has("--help") || args.switches.has("-h")) return (io.stdout(REPLAY_USAGE), 0);
  const policyDir = option(args, "--policy");
  const againstDir = option(args, "--against");
  const format = option(args, "--format") ?? "text";
  const engine = option(args, "--engine");
  refuseUnknownSwitches(args, [], REPLAY_USAGE);
  if (policyDir === undefined || args.positional.length !== 1) throw new UsageError(REPLAY_USAGE);
  if (format !== "text" && format !== "json")
    throw new UsageError(`--format: \`${format}\` is not text or json\n\n${REPLAY_USAGE}`);
  if (engine !== undefined && againstDir === undefined)
    throw new UsageError(`--engine applies to --against request files only\n\n${REPLAY_USAGE}`);
  if (engine !== undefined && !(DECISION_KINDS as readonly string[]).includes(engine)) {
    throw new UsageError(
      `--engine: \`${engine}\` is not a kind (${DECISION_KINDS.join(", ")})\n\n${REPLAY_USAGE}`,
    );
  }

  const loaded: LoadedBundle[] = [];
  for (const dir of againstDir === undefined ? [policyDir] : [policyDir, againstDir]) {
    const folder = await loadFolder(dir);
    if (!folder.ok) {
      io.stderr(
        folder.errors.map((e) => `${e}\n`).join("") +
          `arbiter replay: the policies in ${dir} do not compile\n`,
      );
      return 1;
    }
    loaded.push(folder.bundle);
  }
  const [candidate, old] = loaded;

  const file = args.positional[0];
  let text: string;
  try {
    text = file === "-" ? await io.readStdin() : readFileSync(file, "utf8");
  } catch (e) {
    io.stderr(`arbiter replay: cannot read ${file}: ${(e as Error).message}\n`);
    return 1;
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const tally = new Tally();
  const skipped = new Map<string, number>();
  const skip = (why: string) => skipped.set(why, (skipped.get(why) ?? 0) + 1);
  let since: number | undefined;
  const progress = io.isTty ? progressBar(io, lines.length) : undefined;

  for (let i = 0; i < lines.length; i++) {
    progress?.at(i);
    let line: unknown;
    try {
      line = JSON.parse(lines[i]);
    } catch {
      skip("not JSON");
      continue;
    }
    if (!isJsonObject(line)) {
      skip("not a JSON object");
      continue;
    }
    const wrapped = "request" in line || "decision_id" in line;
    const request = wrapped ? line.request : line;
    const kind = kindOf(wrapped ? line : {}, request, engine);
    const at = typeof line.ts === "string" && !Number.isNaN(Date.parse(line.ts)) ? line.ts : undefined;
    const now = at === undefined ? Date.now() : Date.parse(at);

    let active: Decided;
    if (old === undefined) {
      const why = logSkip(line, kind);
      if (why !== undefined) {
        skip(why);
        continue;
      }
      active = { ok: true, view: line.verdict as View };
    } else if (kind === undefined) {
      skip(
        wrapped ? `unknown kind \`${String(line.kind ?? line.engine)}\`` : "a bare request needs --engine",
      );
      continue;
    } else {
      active = await decideUnder(old, kind, request, now);
    }
    const decided = kind === undefined ? undefined : await decideUnder(candidate, kind, request, now);
    if (!active.ok || decided === undefined || !decided.ok) {
      skip(!active.ok ? active.skip : decided?.ok === false ? decided.skip : "no kind");
      continue;
    }
    const pair = pairOf(active.view, decided.view);
    const example = { at: at ?? `line ${i + 1}`, request, active: active.view, candidate: decided.view };
    tally.add(engineOfKind(kind!), pair, pair === null ? [] : [example]);
    if (at !== undefined) since = Math.min(since ?? now, now);
  }
  progress?.done();

  const report = tally.report(since === undefined ? null : new Date(since).toISOString());
  const skippedObject = Object.fromEntries(skipped);
  if (format === "json") {
    const replay = {
      policy: policyDir,
      ...(againstDir === undefined ? { log: file } : { against: againstDir, requests: file }),
      lines: lines.length,
      skipped: skippedObject,
    };
    io.stdout(JSON.stringify({ ...report, replay }, null, 2) + "\n");
  } else {
    io.stdout(reportText(report));
    const total = [...skipped.values()].reduce((a, b) => a + b, 0);
    if (total > 0)
      io.stdout(
        `\n${total} of ${lines.length} lines skipped:\n` +
          [...skipped].map(([why, n]) => `  ${n}  ${why}\n`).join(""),
      );
  }
  return 0;
}
