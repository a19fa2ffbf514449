import { analysisText, analyzeMatch, type MatchAnalysis } from "../engines/classad/index.js";
import { MatchRequest } from "../http/schemas/match.js";
import { option, parseArgs, UsageError } from "./args.js";
import { answerLines } from "./eval-command.js";
import type { PolicyEvaluator } from "./evaluator.js";
import type { Io } from "./io.js";

export const ANALYZE_USAGE = `usage: arbiter analyze [--policy FILE] [--format text|json]

Analyses match requests as condor_q -better-analyze does, under the pool
policy: reads JSON lines on stdin, each the body of POST /v1/match
({"job", "machines", "schedd"?}, as \`arbiter eval match\` reads them; a line
may also be {"policy": <pool.conf text>, "input": <request>}), and tells for
each how the machines split, how many machines each condition of the job's
Requirements (with NEGOTIATOR_PE_JOB_EXPR) matches and the values it saw,
which condition of the machines' own side turns the job away, and what to
change (docs/policies/pool.md, "Match analysis").
  --policy FILE    the pool policy (default: policies/pool.conf)
  --format text    (default) the report as text, one per request, separated
                   by a blank line
  --format json    one JSON line per request: POST /v1/match/analyze's answer
Exit status: 0; 1 an invalid --policy, or (text) a request that could not be
analysed (its error on stderr, the others still analysed); 2 usage.
`;

/** `arbiter analyze`: /v1/match requests in, /v1/match/analyze answers out. */
export const analyzeEvaluator: PolicyEvaluator<
  typeof MatchRequest,
  Parameters<typeof analyzeMatch>[0],
  MatchAnalysis
> = {
  engine: "match",
  schema: MatchRequest,
  decide: (policy, request, ctx) => analyzeMatch(policy, request, { now: ctx.now, random: Math.random }),
};

/** `arbiter analyze [--policy FILE] [--format text|json]`. */
export async function analyzeCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ["--policy", "--format"]);
  if (args.switches.has("--help")) return (io.stdout(ANALYZE_USAGE), 0);
  if (args.positional.length > 0 || args.switches.size > 0) throw new UsageError(ANALYZE_USAGE);
  const format = option(args, "--format") ?? "text";
  if (format !== "text" && format !== "json")
    throw new UsageError(`--format is \`text\` or \`json\`, not \`${format}\`\n\n${ANALYZE_USAGE}`);
  const lines = (await io.readStdin()).split("\n").filter((l) => l.trim() !== "");
  let failed = false;
  let n = 0;
  const status = await answerLines(analyzeEvaluator, option(args, "--policy"), lines, io, (answer) => {
    n++;
    if (format === "json") return io.stdout(JSON.stringify(answer) + "\n");
    const error = (answer as { error?: { code: string; message?: string } }).error;
    if (error !== undefined) {
      failed = true;
      return io.stderr(`arbiter analyze: request ${n}: ${error.code}: ${error.message ?? ""}\n`);
    }
    io.stdout((n > 1 ? "\n" : "") + analysisText(answer as unknown as MatchAnalysis));
  });
  return status !== 0 ? status : failed ? 1 : 0;
}
