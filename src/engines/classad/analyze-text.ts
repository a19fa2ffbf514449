/**
 * The text form of a match analysis, laid out as `condor_q -better-analyze`
 * lays out its report (the expression, the job's attributes, a table of
 * conditions and the machines each matches, a summary of how the machines
 * split, a table of suggestions), so that an HTCondor user finds each part
 * where they expect it. The wording is Arbiter's.
 */
import type { AnalysisClause, MatchAnalysis } from "./analyze.js";
import type { OperandValues } from "./analyze-values.js";

const INDENT = "    ";

/** `n` right-aligned in `width` columns. */
function pad(n: number | string, width: number): string {
  return String(n).padStart(width);
}

/** A list of printed values with how many machines gave each. */
function listed(o: OperandValues): string {
  const items = (o.values ?? []).map((v) => `${v.value} ×${v.machines}`);
  if ((o.distinct ?? 0) > items.length) items.push("…");
  return items.join(", ");
}

/** One operand's values in a line: `RequestMemory = 1024`, `TARGET.Memory: 512 .. 8192 (512 ×1, 8192 ×2)`. */
function operandText(o: OperandValues): string | null {
  if (o.value !== undefined) return o.value === o.expr ? null : `${o.expr} = ${o.value}`;
  if (o.values === undefined) return null;
  const range = o.min !== undefined && o.max !== undefined ? `${o.min} .. ${o.max} ` : "";
  return range === "" ? `${o.expr}: ${listed(o)}` : `${o.expr}: ${range}(${listed(o)})`;
}

/** The `[i]` step label of a clause, padded as the table wants it. */
function step(i: number, width: number): string {
  return `[${i}]`.padEnd(width);
}

function clauseLines(c: AnalysisClause): string[] {
  const origin = c.origin === "Requirements" ? "" : `   (${c.origin})`;
  const lines = [`${step(c.index, 5)}  ${pad(c.matches, 8)}  ${c.expr}${origin}`];
  const values = (c.values ?? []).map(operandText).filter((t): t is string => t !== null);
  if (values.length > 0) lines.push(`${" ".repeat(17)}${values.join("; ")}`);
  return lines;
}

function summaryLines(a: MatchAnalysis): string[] {
  const m = a.machines;
  const lines = [
    `Summary for job ${a.job.id} under the pool policy, of ${m.total} machine${m.total === 1 ? "" : "s"}:`,
  ];
  lines.push(
    `  ${pad(m.discarded_by_policy, 5)} are discarded by the pool policy (NEGOTIATOR_PE_STARTD_ONLY_EXPR)`,
  );
  lines.push(`  ${pad(m.rejected_by_job, 5)} are rejected by the job's Requirements`);
  lines.push(`  ${pad(m.rejecting_job, 5)} reject the job by their own Requirements`);
  lines.push(`  ${pad(m.matching, 5)} match the job and could run it`);
  return lines;
}

function warningLines(a: MatchAnalysis): string[] {
  const m = a.machines;
  const kept = m.total - m.discarded_by_policy;
  const out: string[] = [];
  if (a.schedd?.discarded)
    out.push(
      "The pool policy discards the job's schedd (NEGOTIATOR_PE_SCHEDD_ONLY_EXPR): no machine is matched with its jobs.",
    );
  else if (a.job.discarded)
    out.push(
      "The pool policy discards this job (NEGOTIATOR_PE_JOB_ONLY_EXPR): no machine is matched with it.",
    );
  if (m.total === 0) out.push("The request names no machine.");
  else if (kept === 0) out.push("The pool policy discards every machine (NEGOTIATOR_PE_STARTD_ONLY_EXPR).");
  else if (m.rejected_by_job === kept) out.push("No machine satisfies the job's Requirements.");
  else if (m.matching === 0 && m.rejecting_job > 0 && !a.job.discarded && !a.schedd?.discarded)
    out.push(
      "The job accepts some machines, but each of them rejects it by its own Requirements (see above).",
    );
  return out.length === 0 ? [] : ["", "Note:", ...out.map((t) => `   ${t}`)];
}

function machineSideLines(a: MatchAnalysis): string[] {
  if (a.machine_side.length === 0) return [];
  const lines = [
    "",
    "Machines that turn the job away, by the first condition of their own side that is not true:",
    "",
    "Machines  Condition",
    "--------  ---------",
  ];
  for (const g of a.machine_side) {
    const origin = g.origin === "Requirements" ? "" : `   (${g.origin})`;
    const more = g.machines > g.names.length ? ", …" : "";
    lines.push(`${pad(g.machines, 8)}  ${g.expr}${origin}   [${g.names.join(", ")}${more}]`);
  }
  return lines;
}

function suggestionLines(a: MatchAnalysis): string[] {
  if (a.suggestions.length === 0) return [];
  const lines = ["", "Suggestions:", ""];
  const general = a.suggestions.filter((s) => s.clause === undefined);
  for (const s of general) lines.push(`${INDENT}${s.message}`);
  // one line per condition, as better-analyze has it: a change that helps says more than REMOVE
  const modified = new Set(a.suggestions.filter((s) => s.kind === "modify").map((s) => s.clause));
  const perClause = a.suggestions.filter(
    (s) => s.clause !== undefined && !(s.kind === "blocker" && modified.has(s.clause)),
  );
  if (perClause.length === 0) return lines;
  if (general.length > 0) lines.push("");
  lines.push(`${INDENT}${"Condition".padEnd(34)}${"Machines Matched".padEnd(20)}Suggestion`);
  lines.push(`${INDENT}${"---------".padEnd(34)}${"----------------".padEnd(20)}----------`);
  for (const s of perClause) {
    const c = a.clauses[s.clause as number];
    const label = `[${c.index}]`.padEnd(4);
    const what = s.kind === "blocker" ? "REMOVE: no machine satisfies it" : s.message;
    if (c.expr.length < 34) lines.push(`${label}${c.expr.padEnd(34)}${String(c.matches).padEnd(20)}${what}`);
    else lines.push(`${label}${c.expr}`, `${" ".repeat(38)}${String(c.matches).padEnd(20)}${what}`);
  }
  return lines;
}

/** The analysis as text, for `arbiter analyze` and `?format=text`. */
export function analysisText(a: MatchAnalysis): string {
  const id = a.job.id;
  const lines: string[] = [`Job ${id} asks for (Requirements):`, "", INDENT + a.requirements[0].expr];
  for (const r of a.requirements.slice(1))
    lines.push("", `and the pool policy adds (${r.origin}):`, "", INDENT + r.expr);
  if (a.job_attributes.length > 0) {
    lines.push("", `Job ${id} defines these attributes that the expressions use:`, "");
    for (const attr of a.job_attributes) lines.push(`${INDENT}${attr.name} = ${attr.expr}`);
  }
  const kept = a.machines.total - a.machines.discarded_by_policy;
  lines.push(
    "",
    `Condition by condition, the machines each one matches (of ${kept} the pool policy keeps):`,
    "",
  );
  lines.push("        Machines", "Step    Matched  Condition", "-----  --------  ---------");
  for (const c of a.clauses) lines.push(...clauseLines(c));
  lines.push(...machineSideLines(a), "", ...summaryLines(a), ...warningLines(a), ...suggestionLines(a));
  return lines.join("\n") + "\n";
}
