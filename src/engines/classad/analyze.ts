/**
 * Match analysis: `condor_q -better-analyze`'s questions answered under the
 * pool policy. How the machines split (discarded by the policy, rejected by
 * the job, rejecting the job, matching); how many machines each conjunct of
 * the job's effective Requirements (Requirements && NEGOTIATOR_PE_JOB_EXPR)
 * matches, and the values its comparisons saw; which condition of the
 * machines' own side (Requirements && NEGOTIATOR_PE_RESOURCE_EXPR) turns the
 * job away; and what to change. Every evaluation is charged to the
 * decision's work budget like a decision's; a spent budget ends the analysis
 * with BudgetExceeded, since partial counts would mislead.
 */
import type { Decision } from "../common/decision.js";
import {
  bare,
  comparisonOf,
  jobAttrName,
  jobReferences,
  replaceConjunct,
  type Part,
} from "./analyze-parts.js";
import {
  blockerSuggestion,
  discardedSuggestion,
  modifySuggestion,
  proposeValues,
  withValue,
  type ModifyInput,
  type Suggestion,
} from "./analyze-suggest.js";
import { printedValue, summarize, type OperandValues } from "./analyze-values.js";
import { operandOf, Work, type ClauseWork, type Operand } from "./analyze-work.js";
import { ClassAd, literal } from "./classad.js";
import { compile } from "./compile.js";
import {
  discards,
  isTrue,
  jobId,
  pairSides,
  parseMatchRequest,
  stringAttr,
  type ParsedMatchRequest,
} from "./match.js";
import type { Compiled } from "./node.js";
import type { MatchPolicy } from "./policy.js";
import { EvalState, type EvalContext } from "./state.js";
import { unparseNode } from "./unparse.js";
import { UNDEF, type Value } from "./values.js";

export type { OperandValues } from "./analyze-values.js";
export type { Suggestion } from "./analyze-suggest.js";

/** One conjunct of the job's effective Requirements and the machines it matches. */
export interface AnalysisClause {
  index: number;
  origin: "Requirements" | "NEGOTIATOR_PE_JOB_EXPR";
  expr: string;
  /** Machines (of those the policy keeps) for which the conjunct is true. */
  matches: number;
  /** For a comparison: what each operand gave over those machines. */
  values?: OperandValues[];
}

/** Machines whose own side turns the job away, grouped by the first conjunct that is not true. */
export interface MachineSideGroup {
  origin: "Requirements" | "NEGOTIATOR_PE_RESOURCE_EXPR";
  expr: string;
  machines: number;
  /** The first few of them (Name, else the index in the request). */
  names: (string | number)[];
}

/** How the machines of the request split. */
export interface MachineCounts {
  total: number;
  discarded_by_policy: number;
  rejected_by_job: number;
  rejecting_job: number;
  matching: number;
}

/** The /v1/match/analyze answer body. */
export interface MatchAnalysis {
  job: { id: string; discarded: boolean };
  schedd?: { discarded: boolean };
  machines: MachineCounts;
  /** The job's effective Requirements, each part labelled with where it comes from. */
  requirements: { origin: string; expr: string }[];
  /** The job's attributes those expressions refer to, as written in the job. */
  job_attributes: { name: string; expr: string }[];
  clauses: AnalysisClause[];
  machine_side: MachineSideGroup[];
  suggestions: Suggestion[];
}

/** Names listed per machine-side group. */
const MAX_NAMES = 5;

/** Analyses one match request; throws ClassAdRequestError for a bad ad and BudgetExceeded past the budget. */
export function analyzeMatch(
  policy: MatchPolicy | null,
  request: { job: unknown; machines: readonly unknown[] | string; schedd?: unknown },
  ctx: EvalContext,
): Decision<MatchAnalysis> {
  const parsed = parseMatchRequest(request);
  if (!parsed.ok) throw parsed.error;
  return analyzeParsedMatch(policy, parsed.value, ctx);
}

/** Analyses already-read ads (see analyzeMatch). */
export function analyzeParsedMatch(
  policy: MatchPolicy | null,
  req: ParsedMatchRequest,
  ctx: EvalContext,
): Decision<MatchAnalysis> {
  const st = new EvalState(ctx);
  const work = new Work(st);
  const job = req.job;
  const own = job.get("requirements");
  const whole = own?.c ?? literal(UNDEF);
  const parts = [...work.parts("Requirements", whole)];
  const requirements = [
    { origin: "Requirements", expr: own === undefined ? "undefined" : unparseNode(whole.node) },
  ];
  if (policy?.job) {
    parts.push(...work.parts("NEGOTIATOR_PE_JOB_EXPR", policy.job));
    requirements.push({ origin: "NEGOTIATOR_PE_JOB_EXPR", expr: unparseNode(policy.job.node) });
  }
  const clauses: ClauseWork[] = parts.map((part) => {
    const cmp = comparisonOf(part.node);
    return {
      part,
      truth: [],
      matches: 0,
      operands: cmp === null ? null : [operandOf(cmp.a, work), operandOf(cmp.b, work)],
    };
  });

  const scheddOut = req.schedd !== null && discards(policy?.scheddOnly ?? null, req.schedd, st);
  const jobOut = !scheddOut && discards(policy?.jobOnly ?? null, job, st);
  const counts: MachineCounts = {
    total: req.machines.length,
    discarded_by_policy: 0,
    rejected_by_job: 0,
    rejecting_job: 0,
    matching: 0,
  };
  const passes: number[] = [];
  const accepts: boolean[] = [];
  const kept: ClassAd[] = [];
  const groups = new Map<string, MachineSideGroup>();
  const resourceParts = policy?.resource ? work.parts("NEGOTIATOR_PE_RESOURCE_EXPR", policy.resource) : [];

  for (let i = 0; i < req.machines.length; i++) {
    const m = req.machines[i];
    if (discards(policy?.startdOnly ?? null, m, st)) {
      counts.discarded_by_policy++;
      work.check();
      continue;
    }
    kept.push(m);
    let pass = 0;
    for (const cl of clauses) {
      const ok = isTrue(work.eval(cl.part.c, job, m));
      cl.truth.push(ok);
      if (ok) {
        cl.matches++;
        pass++;
      }
      if (cl.operands !== null)
        for (const o of cl.operands) if (o.c !== null) o.values.push(work.eval(o.c, job, m));
    }
    passes.push(pass);
    const sides = pairSides(policy, job, m, st);
    accepts.push(sides.machine);
    if (!sides.job) counts.rejected_by_job++;
    else if (!sides.machine) counts.rejecting_job++;
    else if (!jobOut && !scheddOut) counts.matching++;
    if (!sides.machine) noteMachineSide(groups, m, stringAttr(m, "name", st) ?? i, job, resourceParts, work);
    work.check();
  }
  work.check();

  const analysis: MatchAnalysis = {
    job: { id: jobId(job, st), discarded: jobOut },
    ...(req.schedd !== null ? { schedd: { discarded: scheddOut } } : {}),
    machines: counts,
    requirements,
    job_attributes: jobReferences([whole.node, ...(policy?.job ? [policy.job.node] : [])], job),
    clauses: clauses.map((cl, index) => ({
      index,
      origin: cl.part.origin as AnalysisClause["origin"],
      expr: cl.part.text,
      matches: cl.matches,
      ...(cl.operands !== null
        ? {
            values: cl.operands.map((o) =>
              o.fixed !== null ? { expr: o.text, value: printedValue(o.fixed) } : summarize(o.text, o.values),
            ),
          }
        : {}),
    })),
    machine_side: [...groups.values()].sort((a, b) => b.machines - a.machines),
    suggestions: [],
  };
  analysis.suggestions = suggest(analysis, clauses, {
    policy,
    job,
    whole,
    kept,
    passes,
    accepts,
    jobOut,
    scheddOut,
    missing: own === undefined,
    work,
  });
  const outcome = scheddOut
    ? "schedd_discarded"
    : jobOut
      ? "job_discarded"
      : counts.matching > 0
        ? "matched"
        : "no_match";
  return { verdict: analysis, cacheable: st.used === 0, outcome };
}

/** Counts a machine that turns the job away under the first conjunct of its side that is not true. */
function noteMachineSide(
  groups: Map<string, MachineSideGroup>,
  m: ClassAd,
  name: string | number,
  job: ClassAd,
  resourceParts: Part[],
  work: Work,
): void {
  const slot = m.get("requirements");
  let origin: MachineSideGroup["origin"] = "Requirements";
  let expr = "undefined";
  if (slot !== undefined) {
    const failing =
      work.parts("Requirements", slot.c).find((p) => !isTrue(work.eval(p.c, m, job))) ??
      resourceParts.find((p) => !isTrue(work.eval(p.c, m, job)));
    // every conjunct true yet the whole not: only a budget spent in between does that; name the whole
    origin = (failing?.origin ?? "Requirements") as MachineSideGroup["origin"];
    expr = failing?.text ?? unparseNode(slot.c.node);
  }
  const key = `${origin}\u0000${expr}`;
  const group = groups.get(key) ?? { origin, expr, machines: 0, names: [] };
  groups.set(key, group);
  group.machines++;
  if (group.names.length < MAX_NAMES) group.names.push(name);
}

interface SuggestContext {
  policy: MatchPolicy | null;
  job: ClassAd;
  /** The job's own Requirements. */
  whole: Compiled;
  /** The machines the policy keeps, and per machine: how many conjuncts hold, whether it accepts the job. */
  kept: ClassAd[];
  passes: number[];
  accepts: boolean[];
  jobOut: boolean;
  scheddOut: boolean;
  missing: boolean;
  work: Work;
}

/** The suggestions: the policy's discards first, then per clause its blocker and its modify suggestion. */
function suggest(analysis: MatchAnalysis, clauses: ClauseWork[], x: SuggestContext): Suggestion[] {
  const out: Suggestion[] = [];
  const text = (c: Compiled | null | undefined) => (c ? unparseNode(c.node) : "");
  if (x.scheddOut)
    out.push(discardedSuggestion("NEGOTIATOR_PE_SCHEDD_ONLY_EXPR", text(x.policy?.scheddOnly), "schedd"));
  if (x.jobOut) out.push(discardedSuggestion("NEGOTIATOR_PE_JOB_ONLY_EXPR", text(x.policy?.jobOnly), "job"));
  const considered = x.passes.length;
  clauses.forEach((cl, index) => {
    const missing = x.missing && index === 0;
    if (considered > 0 && cl.matches === 0)
      out.push(blockerSuggestion(index, cl.part.text, cl.part.origin, missing));
    if (x.jobOut || x.scheddOut || cl.operands === null || cl.matches === considered) return;
    const node = bare(cl.part.node);
    if (node.k !== "op") return;
    const values = analysis.clauses[index].values ?? [];
    const side = jobSide(cl.operands, values, x.job);
    if (side === null) return;
    const jobOperand = cl.operands[side];
    const target = cl.operands[1 - side].values;
    const candidates: number[] = [];
    for (let k = 0; k < considered; k++)
      if (!cl.truth[k] && x.passes[k] === clauses.length - 1 && x.accepts[k]) candidates.push(k);
    const input: ModifyInput = {
      clause: index,
      text: cl.part.text,
      node,
      jobSide: side,
      jobValue: jobOperand.fixed ?? jobOperand.values[0],
      attribute: jobOperand.fixed !== null ? null : jobAttrName(jobOperand.node, x.job),
      target,
      candidates,
    };
    const proposal = proposeValues(input);
    const variant = proposal === null ? null : jobVariant(x, cl.part, input);
    if (proposal === null || variant === null) return;
    // how many more machines match with the value put in: matched again, both sides, under the policy
    const gain = (value: Value) => ({
      value,
      more: matchingWith(variant(value), x) - analysis.machines.matching,
    });
    const s = modifySuggestion(input, gain(proposal.near), proposal.far === null ? null : gain(proposal.far));
    if (s !== null) out.push(s);
  });
  return out;
}

/**
 * The job with its side of a comparison set to a value: the attribute it
 * names set, or (a constant in the job's own Requirements) the Requirements
 * with that conjunct rewritten. Null for a constant of the policy's.
 */
function jobVariant(x: SuggestContext, part: Part, input: ModifyInput): ((value: Value) => ClassAd) | null {
  const job = x.job;
  const setSlot = (i: number, v: Compiled | Value) => {
    const slots = [...job.slots];
    slots[i] = v;
    return new ClassAd(job.layout, slots, job.parent);
  };
  if (input.attribute !== null) {
    const i = job.layout.slotOf(input.attribute.toLowerCase());
    return i < 0 ? null : (value) => setSlot(i, value);
  }
  const i = job.layout.slotOf("requirements");
  if (part.origin !== "Requirements" || i < 0) return null;
  return (value) => {
    const c = compile(replaceConjunct(x.whole.node, part.node, withValue(input, value)));
    x.work.charge(c.cost);
    return setSlot(i, c);
  };
}

/** How many of the kept machines match a variant of the job (both sides, under the policy). */
function matchingWith(job: ClassAd, x: SuggestContext): number {
  let n = 0;
  for (const m of x.kept) {
    const sides = pairSides(x.policy, job, m, x.work.st);
    if (sides.job && sides.machine) n++;
    x.work.check();
  }
  return n;
}

/**
 * Which operand is the job's side: a constant, or an attribute of the job
 * whose value was the same against every machine, facing an operand that is
 * neither (the machines' side). Null when neither or both are.
 */
function jobSide(operands: [Operand, Operand], values: OperandValues[], job: ClassAd): 0 | 1 | null {
  const named = (i: 0 | 1) => operands[i].fixed !== null || jobAttrName(operands[i].node, job) !== null;
  const fixed = (i: 0 | 1) =>
    operands[i].fixed !== null || (values[i]?.value !== undefined && operands[i].values.length > 0);
  if (named(0) && fixed(0) && !named(1)) return 0;
  if (named(1) && fixed(1) && !named(0)) return 1;
  return null;
}
