/**
 * What the full /v1/match answer implies for the same request asked with
 * `"best": n`: its first n `Matched` log lines, their machines' lines, and the
 * machines counted by what their lines and log lines say. Tests compare the
 * best-N answer with this rather than with hard-coded figures.
 */

/** A machine line of the answer. */
export interface Line {
  name: string | number;
  discarded: boolean;
  match: boolean;
  rank: number | null;
}

/** The parts of a match answer (either form) the comparison reads. */
export interface MatchAnswer {
  job: { discarded: boolean };
  schedd?: { discarded: boolean };
  machines: Line[];
  best: string | number | null;
  counts?: Record<string, number>;
  log: string[];
}

const MATCHED = / Matched job=/;
const MACHINE_REJECT = / Rejected (job=.* )?machine=/;

/** The machine a `Matched` line names, among the matched lines not yet taken. */
function lineOf(logLine: string, candidates: Line[], taken: Set<Line>): Line {
  for (const m of candidates) {
    if (taken.has(m)) continue;
    const shown = typeof m.name === "string" ? m.name : `#${m.name}`;
    if (logLine.includes(`machine=${shown} rank=`)) {
      taken.add(m);
      return m;
    }
  }
  throw new Error(`no matched machine for log line ${logLine}`);
}

/** The best-N answer the full answer implies. */
export function impliedBest(full: MatchAnswer, n: number): MatchAnswer {
  const matchedLines = full.log.filter((l) => MATCHED.test(l));
  const listedLog = matchedLines.slice(0, n);
  const matchedMachines = full.machines.filter((m) => m.match);
  const taken = new Set<Line>();
  const machines = listedLog.map((l) => lineOf(l, matchedMachines, taken));
  const count = (re: RegExp) => full.log.filter((l) => MACHINE_REJECT.test(l) && re.test(l)).length;
  const counts = {
    machines: full.machines.length,
    matched: matchedMachines.length,
    discarded: full.machines.filter((m) => m.discarded).length,
    rejected_by_resource_expr: count(/reason=NEGOTIATOR_PE_RESOURCE_EXPR$/),
    rejected_by_job_expr: count(/reason=NEGOTIATOR_PE_JOB_EXPR$/),
    unmatched: 0,
  };
  counts.unmatched =
    counts.machines -
    counts.matched -
    counts.discarded -
    counts.rejected_by_resource_expr -
    counts.rejected_by_job_expr;
  const listed = new Set(listedLog);
  const log = full.log.filter((l) => !MACHINE_REJECT.test(l) && (!MATCHED.test(l) || listed.has(l)));
  const out: MatchAnswer = { job: full.job, machines, best: full.best, counts, log };
  if (full.schedd !== undefined) out.schedd = full.schedd;
  return out;
}
