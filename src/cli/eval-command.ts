import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ENGINES } from "../bundle/index.js";
import { isJsonObject } from "../engines/common/json.js";
import { option, parseArgs, refuseUnknownSwitches, UsageError } from "./args.js";
import type { LineEvaluator, PolicyEvaluator } from "./evaluator.js";
import { answerRequest, preparePolicy, type PolicyOutcome } from "./eval-answer.js";
import type { Io } from "./io.js";
import { readPolicyDir } from "./policy-files.js";

export const EVAL_USAGE = `usage: arbiter eval ENGINE [--policy FILE]

Reads JSON lines on stdin and writes one JSON line per input line, in order.
What a line is depends on ENGINE:
  limits     the body of POST /v1/limits/decide; answers its verdict (with
             decision_id, revision, cacheable) as the API does
  placement  the body of POST /v1/place; answers as the API does
  match      the body of POST /v1/match ({"job", "machines"}); answers as the API does
  jobfilter  {"job": {...}, "queue"?: {"running"?: [jobs], "queued"?: [jobs]},
             "filters"?: [rules]}: one job against the filter rules (a line's
             own filters replace the policy's). Not an HTTP body: the service
             keeps the queue itself. Answers {decision_id, revision, cacheable,
             action, rule}
  customs    {"hosts": [...], "request": {...}, "now"?, "last"?}: one host
             selection from policies/customs.json; answers {"host", "ratings"}
  jq         {"program": "...", "input"?: JSON, "args"?: {...}}: answers
             {"outputs", "printed", "error"?}
  classad    {"expr", "my"?, "target"?}: answers {"type", "value"};
             {"match": true, "job", "machine"}: answers {"symmetric_match",
             "job_rank", "machine_rank"}
For limits, placement, match, jobfilter and customs a line may also be
{"policy": <source text or JSON object>, "input": <line as above>}, carrying
its own policy; an invalid one answers {"error": {"code": "policy_invalid",
...}} for that line and the run goes on. A line that is not JSON answers
{"error": {"code": "invalid_json", ...}}; a request the engine refuses,
{"error": {"code": "invalid_request", ...}}.
--policy FILE (limits, placement, match, jobfilter) names the policy; without
it the engine's file in policies/ is used (limits.json or limits.conf, ...).
Exit status: 0 (per-line errors are answers), 1 invalid --policy, 2 usage.
`;

type Loaded = { kind: "policy"; evaluator: PolicyEvaluator } | { kind: "line"; evaluator: LineEvaluator };

async function loadEvaluator(name: string): Promise<Loaded | undefined> {
  switch (name) {
    case "limits":
      return {
        kind: "policy",
        evaluator: (await import("./eval-limits.js")).limitsEvaluator as PolicyEvaluator,
      };
    case "placement":
      return {
        kind: "policy",
        evaluator: (await import("./eval-placement.js")).placementEvaluator as PolicyEvaluator,
      };
    case "match":
      return {
        kind: "policy",
        evaluator: (await import("./eval-match.js")).matchEvaluator as PolicyEvaluator,
      };
    case "customs":
      return asLoaded((await import("./eval-customs.js")).customsEvaluator);
    case "jobfilter":
      return asLoaded((await import("./eval-jobfilter.js")).jobfilterEvaluator);
    case "jq":
      return { kind: "line", evaluator: (await import("./eval-jq.js")).jqLineEvaluator };
    case "classad":
      return {
        kind: "line",
        evaluator: { evaluateLine: (await import("./eval-classad.js")).evalClassadLine },
      };
    default:
      return undefined;
  }
}

function asLoaded(e: LineEvaluator | PolicyEvaluator): Loaded {
  return "evaluateLine" in e ? { kind: "line", evaluator: e } : { kind: "policy", evaluator: e };
}

const defaultPolicyDir = fileURLToPath(new URL("../../policies/", import.meta.url));

/** `arbiter eval`: the engines over JSON lines, speaking the API's JSON. */
export async function evalCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--policy"]);
  if (args.switches.has("--help")) return (io.stdout(EVAL_USAGE), 0);
  refuseUnknownSwitches(args, [], EVAL_USAGE);
  if (args.positional.length !== 1) throw new UsageError(EVAL_USAGE);
  const loaded = await loadEvaluator(args.positional[0]);
  if (!loaded) throw new UsageError(`unknown engine \`${args.positional[0]}\`\n\n${EVAL_USAGE}`);
  const lines = (await io.readStdin()).split("\n").filter((l) => l.trim() !== "");

  if (loaded.kind === "line") {
    if (args.values.has("--policy"))
      throw new UsageError(`--policy does not apply to \`${args.positional[0]}\`\n\n${EVAL_USAGE}`);
    const read = loaded.evaluator.parseLine?.bind(loaded.evaluator);
    const write = loaded.evaluator.stringify?.bind(loaded.evaluator) ?? JSON.stringify;
    for (const line of lines) {
      const parsed = parseLine(line, read);
      io.stdout(write(parsed.ok ? await loaded.evaluator.evaluateLine(parsed.value) : parsed.error) + "\n");
    }
    return 0;
  }

  const evaluator = loaded.evaluator;
  const write = evaluator.stringify?.bind(evaluator) ?? JSON.stringify;
  return answerLines(evaluator, option(args, "--policy"), lines, io, (answer) =>
    io.stdout(write(answer) + "\n"),
  );
}

/**
 * Answers each request line under a policy evaluator, as `arbiter eval` does:
 * the policy from `--policy` (or the engine's file in policies/), a line's own
 * `{"policy", "input"}` taking its own; `emit` gets each answer in order (a
 * verdict, or an `{"error": …}` object). 1 when the policy file is invalid.
 */
export async function answerLines(
  evaluator: PolicyEvaluator,
  policyOption: string | undefined,
  lines: readonly string[],
  io: Io,
  emit: (answer: object) => void,
): Promise<number> {
  const engine = ENGINES[evaluator.engine];
  const policyFile =
    policyOption ?? readPolicyDir(defaultPolicyDir).files[evaluator.engine] ?? defaultPolicyDir + engine.file;
  const base = await preparePolicy(evaluator.engine, readFileSync(policyFile, "utf8"));
  if (!base.ok) {
    io.stderr(`${policyFile}: ${JSON.stringify(base.error)}\n`);
    return 1;
  }
  const perLine = new Map<string, PolicyOutcome>();
  const read = evaluator.parseLine?.bind(evaluator);
  const write = evaluator.stringify?.bind(evaluator) ?? JSON.stringify;
  for (const line of lines) {
    const parsed = parseLine(line, read);
    if (!parsed.ok) {
      emit(parsed.error);
      continue;
    }
    let ready = base.ready;
    let input: unknown = parsed.value;
    if (isJsonObject(parsed.value) && "policy" in parsed.value && "input" in parsed.value) {
      const p = parsed.value.policy;
      const text = typeof p === "string" ? p : write(p as object);
      const outcome = perLine.get(text) ?? (await preparePolicy(evaluator.engine, text));
      perLine.set(text, outcome);
      if (!outcome.ok) {
        emit(outcome.error);
        continue;
      }
      ready = outcome.ready;
      input = parsed.value.input;
    }
    emit(await answerRequest(evaluator, ready, input, Date.now()));
  }
  return 0;
}

function parseLine(
  line: string,
  read: (text: string) => unknown = JSON.parse,
): { ok: true; value: unknown } | { ok: false; error: object } {
  try {
    return { ok: true, value: read(line) };
  } catch (e) {
    return {
      ok: false,
      error: {
        error: { code: "invalid_json", message: `the line is not valid JSON: ${(e as Error).message}` },
      },
    };
  }
}
