import { evaluateRequest, matchOne, printValue, readAd } from "../engines/classad/index.js";

/** The clock and dice of the CLI: real ones (engines never read them themselves). */
function cliContext() {
  return { now: Date.now(), random: Math.random };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(message: string): object {
  return { error: { code: "invalid_request", message } };
}

/**
 * One line of `arbiter eval classad`, so expressions and matches can be tried
 * from a shell exactly as the engine evaluates them:
 * `{"expr", "my"?, "target"?}` -> `{type, value}`;
 * `{"match": true, "job", "machine"}` -> `{symmetric_match, job_rank, machine_rank}`.
 */
export function evalClassadLine(line: unknown): object {
  if (!isRecord(line)) return invalid("a line is a JSON object");
  if (line.match === true) {
    const job = readAd(line.job);
    if (!job.ok) return invalid(`\`job\`: ${job.error.message} at ${job.error.at}`);
    const machine = readAd(line.machine);
    if (!machine.ok) return invalid(`\`machine\`: ${machine.error.message} at ${machine.error.at}`);
    const r = matchOne(job.ad, machine.ad, cliContext());
    return {
      symmetric_match: r.symmetric,
      job_rank: printValue(r.jobRank),
      machine_rank: printValue(r.machineRank),
    };
  }
  if (typeof line.expr !== "string")
    return invalid("`expr` must be a string (or give `match: true` with `job` and `machine`)");
  const { type, value } = evaluateRequest(
    { expr: line.expr, my: line.my, target: line.target },
    cliContext(),
  );
  return { type, value };
}
