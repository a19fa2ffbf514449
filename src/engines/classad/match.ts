/**
 * Matchmaking under the pool-wide policy: discards by the *_ONLY
 * expressions, effective Requirements ANDed with the policy, symmetric
 * matching, job ranks, the best pick and the audit log (spec §9-§12).
 */
import { BUDGET_EXCEEDED, BUDGET_EXCEEDED_MESSAGE, currentBudget } from "../common/budget.js";
import type { Decision } from "../common/decision.js";
import { isoTime } from "../common/iso-time.js";
import { readAd, readOneAd, splitAds } from "./ad-input.js";
import { aheadAt, aheadBegin, aheadEnd } from "./char-codes.js";
import type { ClassAd } from "./classad.js";
import { AttrSite, evalAttr, evalCompiled } from "./evaluate.js";
import type { Compiled } from "./node.js";
import type { PlanSite } from "./match-plan.js";
import { BEST_MESSAGE, bestVerdict, BestHeap, MAX_BEST } from "./match-best.js";
import {
  chunkedColumnVerdict,
  columnVerdict,
  DISCARDED,
  MATCHED as MATCH_FLAG,
  REJECTED_JOB,
  REJECTED_RESOURCE,
  type MatchVerdict,
} from "./match-verdict.js";
import type { MatchPolicy } from "./policy.js";
import { EvalState, type EvalContext } from "./state.js";
import { unparseValue } from "./unparse.js";
import {
  andDecidedBy,
  andRest,
  andThen,
  andValues,
  isTrue,
  JOB_RANK,
  JOB_REQUIREMENTS,
  MACHINE_REQUIREMENTS,
  POLICY_JOB,
  POLICY_JOB_ONLY,
  POLICY_RESOURCE,
  POLICY_SCHEDD_ONLY,
  POLICY_STARTD_ONLY,
  rankOf,
} from "./match-values.js";
import { UNDEF, type Value } from "./values.js";

export { isTrue } from "./match-values.js";

/** The clock and random source a decision may use, and whether to build the trace. */
export interface MatchContext extends EvalContext {
  readonly explain?: boolean;
}

/** A bad ad in a request: which field (`job`, `machines[3]`, `schedd`, `ad`) and why. */
export class ClassAdRequestError extends Error {
  readonly code = "invalid_request";
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`\`${field}\`: ${detail}`);
  }
}

export type { MachineVerdict, MatchVerdict } from "./match-verdict.js";

/** The three ads of a match request once read, and how many of the best matches to list (all, when absent). */
export interface ParsedMatchRequest {
  job: ClassAd;
  schedd: ClassAd | null;
  machines: ClassAd[];
  best?: number;
}

/**
 * Reads every ad of a match request; the first bad one is reported with its field.
 * `machines` may also be one text of many ads (`condor_status -l` or `-json` output),
 * and the job or schedd a `-json` array of one ad.
 */
export function parseMatchRequest(request: {
  job: unknown;
  machines: readonly unknown[] | string;
  schedd?: unknown;
  best?: unknown;
}): { ok: true; value: ParsedMatchRequest } | { ok: false; error: ClassAdRequestError } {
  const best = request.best;
  if (
    best !== undefined &&
    !(typeof best === "number" && Number.isInteger(best) && best >= 1 && best <= MAX_BEST)
  )
    return { ok: false, error: new ClassAdRequestError("best", BEST_MESSAGE) };
  // the ads' texts encoded for the readers in few calls (char-codes.ts, aheadBegin); machines given as
  // one text are split after the job and schedd are read (their errors come first, as before)
  const listed = typeof request.machines === "string" ? null : request.machines;
  aheadBegin(request.job, request.schedd, listed ?? []);
  try {
    return readMatchAds(request, best, listed);
  } finally {
    aheadEnd();
  }
}

/** {@link parseMatchRequest}'s reading, its texts `job`, `schedd`, `given[0]`, … numbered 0, 1, 2, … for aheadAt. */
function readMatchAds(
  request: { job: unknown; machines: readonly unknown[] | string; schedd?: unknown },
  best: number | undefined,
  listed: readonly unknown[] | null,
): { ok: true; value: ParsedMatchRequest } | { ok: false; error: ClassAdRequestError } {
  aheadAt(0);
  const job = readOneAd(request.job);
  if (!job.ok)
    return { ok: false, error: new ClassAdRequestError("job", `${job.error.message} at ${job.error.at}`) };
  let schedd: ClassAd | null = null;
  if (request.schedd !== undefined) {
    aheadAt(1);
    const s = readOneAd(request.schedd);
    if (!s.ok)
      return { ok: false, error: new ClassAdRequestError("schedd", `${s.error.message} at ${s.error.at}`) };
    schedd = s.ad;
  }
  let given = listed;
  if (given === null) {
    const split = splitAds(request.machines as string);
    if (!split.ok) return { ok: false, error: new ClassAdRequestError("machines", split.message) };
    given = split.ads;
    aheadBegin(undefined, undefined, given);
  }
  const machines: ClassAd[] = [];
  for (let i = 0; i < given.length; i++) {
    aheadAt(i + 2);
    const m = readAd(given[i]);
    if (!m.ok)
      return {
        ok: false,
        error: new ClassAdRequestError(`machines[${i}]`, `${m.error.message} at ${m.error.at}`),
      };
    machines.push(m.ad);
  }
  return {
    ok: true,
    value: best === undefined ? { job: job.ad, schedd, machines } : { job: job.ad, schedd, machines, best },
  };
}

/** Whether an *_ONLY expression discards an ad (evaluated with MY = the ad, no TARGET). */
export function discards(expr: Compiled | null, ad: ClassAd, st: EvalState): boolean {
  return expr !== null && isTrue(evalCompiled(expr, ad, null, st));
}

/** {@link discards} for NEGOTIATOR_PE_STARTD_ONLY_EXPR, evaluated once per machine: through a plan per machine layout. */
function startdDiscards(expr: Compiled, ad: ClassAd, st: EvalState): boolean {
  return isTrue(POLICY_STARTD_ONLY.evalIn(expr, ad, null, st));
}

/**
 * {@link discards} for the job's and the schedd's *_ONLY expression, once per request: through a
 * plan per ad layout (ads of one kind read in successive requests share a layout).
 */
function siteDiscards(site: PlanSite, expr: Compiled | null, ad: ClassAd, st: EvalState): boolean {
  return expr !== null && isTrue(site.evalIn(expr, ad, null, st));
}

/** Each machine's Name in the full verdict, its slot looked up once per layout. */
const MACHINE_NAME = new AttrSite("name");

/**
 * Reads a machine's first slot, at the top of its turn in a decide's loop, before its evaluations read
 * the slots they need: a load by the same code at the same place in every machine's slot store (likely
 * why it helps, not measured: the processor's prefetcher can follow such a load from one machine to the
 * next, and not the evaluations' own reads, by shared code in each plan's order). In the scale series
 * best-1's 100,000-machine decide went from 28.5–30.7 ms to 21.2–21.7 ms with it; the full verdict, which
 * reads each machine's `Name` first, was not faster with it (docs/performance.md, wt/decide9). Answers
 * whether that slot is missing (an ad with no attributes), counted so that the read is kept; see
 * {@link slotReads}.
 */
function firstSlotMissing(m: ClassAd): number {
  return m.at(0) === undefined ? 1 : 0;
}

/** How many machines of the last decide had no first slot ({@link firstSlotMissing}: the count keeps its reads). */
let emptyMachines = 0;

/** The count {@link firstSlotMissing} keeps, for tests. */
export function slotReads(): number {
  return emptyMachines;
}

/** A string attribute's value, or null. */
export function stringAttr(ad: ClassAd, lc: string, st: EvalState): string | null {
  const v = evalAttr(ad, lc, null, st);
  return typeof v === "string" ? v : null;
}

/** The job's id attributes, their slots looked up once per job layout (a request's job is of the last one's). */
const GLOBAL_JOB_ID = new AttrSite("globaljobid");
const CLUSTER_ID = new AttrSite("clusterid");
const PROC_ID = new AttrSite("procid");

/** The job's id in the audit log: GlobalJobId, else ClusterId.ProcId, else `#0`. */
export function jobId(ad: ClassAd, st: EvalState): string {
  const g = GLOBAL_JOB_ID.eval(ad, null, st);
  if (typeof g === "string") return g;
  const c = CLUSTER_ID.eval(ad, null, st);
  const p = PROC_ID.eval(ad, null, st);
  if ((typeof c === "number" || typeof c === "bigint") && (typeof p === "number" || typeof p === "bigint"))
    return `${c}.${p}`;
  return "#0";
}

interface PairResult {
  match: boolean;
  /** Set when the original Requirements match but the policy rejects the pair. */
  policyReject: "NEGOTIATOR_PE_RESOURCE_EXPR" | "NEGOTIATOR_PE_JOB_EXPR" | null;
  trace?: Record<string, string>;
}

const NO_REJECT: PairResult = { match: false, policyReject: null };
const MATCHED: PairResult = { match: true, policyReject: null };
const REJECTED_BY_RESOURCE: PairResult = { match: false, policyReject: "NEGOTIATOR_PE_RESOURCE_EXPR" };
const REJECTED_BY_JOB: PairResult = { match: false, policyReject: "NEGOTIATOR_PE_JOB_EXPR" };

/** Evaluates one job/machine pair with the effective Requirements. */
function matchPair(
  policy: MatchPolicy | null,
  job: ClassAd,
  machine: ClassAd,
  st: EvalState,
  explain: boolean,
): PairResult {
  const mReq = MACHINE_REQUIREMENTS.eval(machine, job, st);
  const jReq = JOB_REQUIREMENTS.eval(job, machine, st);
  if (!explain && (policy === null || (policy.resource === null && policy.job === null))) {
    // no policy expression joins the Requirements: a shared, allocation-free answer
    // both exactly true (every match): what andValues and isTrue give, without their calls (each compares a
    // value of any kind with UNDEFINED and ERROR through V8's generic StrictEqual, about 60 instructions a machine)
    if (mReq === true && jReq === true) return MATCHED;
    return isTrue(andValues(mReq, jReq)) ? MATCHED : NO_REJECT;
  }
  // each policy expression is evaluated only when its side's Requirements leave the AND open (no closure per pair)
  let resV: Value = true;
  let jobV: Value = true;
  const resource = policy?.resource ?? null;
  const jobExpr = policy?.job ?? null;
  let mEff = mReq;
  if (resource !== null)
    mEff = andDecidedBy(mReq) ?? andRest(mReq, (resV = POLICY_RESOURCE.evalIn(resource, machine, job, st)));
  let jEff = jReq;
  if (jobExpr !== null)
    jEff = andDecidedBy(jReq) ?? andRest(jReq, (jobV = POLICY_JOB.evalIn(jobExpr, job, machine, st)));
  const match = isTrue(andValues(mEff, jEff));
  let policyReject: PairResult["policyReject"] = null;
  if (!match && isTrue(andValues(mReq, jReq))) {
    if (resource !== null && !isTrue(resV)) policyReject = "NEGOTIATOR_PE_RESOURCE_EXPR";
    else if (jobExpr !== null && !isTrue(jobV)) policyReject = "NEGOTIATOR_PE_JOB_EXPR";
  }
  if (!explain)
    return match
      ? MATCHED
      : policyReject === null
        ? NO_REJECT
        : policyReject === "NEGOTIATOR_PE_RESOURCE_EXPR"
          ? REJECTED_BY_RESOURCE
          : REJECTED_BY_JOB;
  const show = unparseValue;
  return {
    match,
    policyReject,
    trace: {
      machine_requirements: show(mReq),
      job_requirements: show(jReq),
      resource_expr: show(resV),
      job_expr: show(jobV),
    },
  };
}

/**
 * Whether each side's effective Requirements (the policy's pair expression
 * ANDed in) accepts the other, both evaluated: the match analysis counts
 * machines by the side that says no, where matching stops at the first.
 */
export function pairSides(
  policy: MatchPolicy | null,
  job: ClassAd,
  machine: ClassAd,
  st: EvalState,
): { job: boolean; machine: boolean } {
  const mReq = evalAttr(machine, "requirements", job, st);
  const jReq = evalAttr(job, "requirements", machine, st);
  const resource = policy?.resource ?? null;
  const jobExpr = policy?.job ?? null;
  const mEff = resource === null ? mReq : andThen(mReq, () => evalCompiled(resource, machine, job, st));
  const jEff = jobExpr === null ? jReq : andThen(jReq, () => evalCompiled(jobExpr, job, machine, st));
  return { job: isTrue(jEff), machine: isTrue(mEff) };
}

/** Matches one job against machines under the pool policy; throws ClassAdRequestError for a bad ad. */
export function decideMatch(
  policy: MatchPolicy | null,
  request: { job: unknown; machines: readonly unknown[] | string; schedd?: unknown; best?: unknown },
  ctx: MatchContext,
): Decision<MatchVerdict> {
  const parsed = parseMatchRequest(request);
  if (!parsed.ok) throw parsed.error;
  return decideParsedMatch(policy, parsed.value, ctx);
}

/**
 * Matches already-read ads (the value-returning path: read them with parseMatchRequest first).
 * Per machine the decision keeps only its name, its flag bits and its rank; the verdict's machine
 * lines and log are written from them when read (match-verdict.ts).
 */
export function decideParsedMatch(
  policy: MatchPolicy | null,
  req: ParsedMatchRequest,
  ctx: MatchContext,
): Decision<MatchVerdict> {
  const st = new EvalState(ctx);
  const ts = isoTime(ctx.now);
  const explain = ctx.explain === true;
  const head: string[] = [];
  const trace: Record<string, unknown>[] = [];

  let scheddOut = false;
  let schedd: { discarded: boolean } | undefined;
  if (req.schedd !== null) {
    scheddOut = siteDiscards(POLICY_SCHEDD_ONLY, policy?.scheddOnly ?? null, req.schedd, st);
    schedd = { discarded: scheddOut };
    if (scheddOut)
      head.push(
        `${ts} Rejected schedd=${stringAttr(req.schedd, "name", st) ?? "#0"} reason=NEGOTIATOR_PE_SCHEDD_ONLY_EXPR`,
      );
  }
  const jid = jobId(req.job, st);
  const jobOut = !scheddOut && siteDiscards(POLICY_JOB_ONLY, policy?.jobOnly ?? null, req.job, st);
  if (jobOut) head.push(`${ts} Rejected job=${jid} reason=NEGOTIATOR_PE_JOB_ONLY_EXPR`);

  if (req.best !== undefined)
    return decideBest(policy, req, st, { ts, jid, head, schedd, scheddOut, jobOut, explain, trace });
  const s: MatchStart = { ts, jid, head, schedd, scheddOut, jobOut, explain, trace };
  const n = req.machines.length;
  if (n >= LARGE_COLUMN) return decideLarge(policy, req, st, s);
  const names = new Array<string | null>(n);
  const flags = new Array<number>(n);
  const ranks = new Array<number>(n);
  // the best match is kept as the loop goes; the matches are put in rank order only when the log is written
  const at: BestSoFar = { best: -1, rank: NaN };
  matchRange(policy, req, st, s, 0, n, names, flags, ranks, at);
  // a spent work budget made the evaluations after it ERROR: the log says so, as the outcome does
  st.flushWork();
  const spent = currentBudget().exhausted();
  const verdict = columnVerdict({
    ts,
    jid,
    job: { discarded: jobOut },
    schedd,
    names,
    flags,
    ranks,
    best: at.best,
    head,
    tail: spent ? `${ts} ${BUDGET_EXCEEDED_MESSAGE}` : null,
  });
  return finish(policy, st, verdict, spent, s);
}

/** The best match so far of a full decide: its index (-1 before the first match) and its rank. */
interface BestSoFar {
  best: number;
  rank: number;
}

/**
 * Matches machines `from` to `to` (excluded) of a full decide, writing each one's name, flag bits and
 * rank at its index less `from` and keeping the best match in `at`.
 */
function matchRange(
  policy: MatchPolicy | null,
  req: ParsedMatchRequest,
  st: EvalState,
  s: MatchStart,
  from: number,
  to: number,
  names: (string | null)[],
  flags: number[],
  ranks: number[],
  at: BestSoFar,
): void {
  const { machines, job } = req;
  const skip = s.scheddOut || s.jobOut;
  const startdOnly = policy?.startdOnly ?? null;
  let best = at.best;
  let bestRank = at.rank;
  for (let i = from; i < to; i++) {
    const m = machines[i];
    const k = i - from;
    const name = MACHINE_NAME.eval(m, null, st);
    const shown = typeof name === "string" ? name : null;
    names[k] = shown;
    if (startdOnly !== null && startdDiscards(startdOnly, m, st)) {
      flags[k] = DISCARDED;
      ranks[k] = 0;
      continue;
    }
    if (skip) {
      flags[k] = 0;
      ranks[k] = 0;
      continue;
    }
    const pair = matchPair(policy, job, m, st, s.explain);
    if (pair.trace) s.trace.push({ machine: shown ?? i, ...pair.trace, match: pair.match });
    let f =
      pair.policyReject === null
        ? 0
        : pair.policyReject === "NEGOTIATOR_PE_RESOURCE_EXPR"
          ? REJECTED_RESOURCE
          : REJECTED_JOB;
    const r = rankOf(JOB_RANK.eval(job, m, st));
    ranks[k] = r;
    if (pair.match) {
      f |= MATCH_FLAG;
      // rank descending, ties to the first in the request, NaN last
      if (best < 0 || r > bestRank || (bestRank !== bestRank && r === r)) {
        best = i;
        bestRank = r;
      }
    }
    flags[k] = f;
  }
  at.best = best;
  at.rank = bestRank;
}

/**
 * From this many machines the full verdict's columns are kept in chunks of {@link COLUMN_CHUNK} entries.
 * One column of a large pool as a single array (plain, or typed) is allocated outside V8's young space —
 * a plain array's store passes V8's largest regular object (128 KiB, 16,384 eight-byte entries) and goes
 * to the large-object space, a typed array's store is malloc'd — and either way it takes fresh pages from
 * the system on every decide: at 100,000 machines the names, flags and ranks columns (wt/decide11 made the
 * last two typed) took 417 minor page faults a decide. Chunks of 8,192 entries (64 KiB stores) are
 * allocated in the young space like any small object (docs/performance.md, wt/decide12). Below it the
 * columns are single plain arrays.
 */
const LARGE_COLUMN = 16_000;
/** A large pool's column chunk: 8,192 entries, a 64 KiB store (a regular object). */
const COLUMN_CHUNK = 8_192;

/** A full decide of {@link LARGE_COLUMN} machines or more: the same, its columns in chunks. */
function decideLarge(
  policy: MatchPolicy | null,
  req: ParsedMatchRequest,
  st: EvalState,
  s: MatchStart,
): Decision<MatchVerdict> {
  const n = req.machines.length;
  const names: (string | null)[][] = [];
  const flags: number[][] = [];
  const ranks: number[][] = [];
  const at: BestSoFar = { best: -1, rank: NaN };
  for (let from = 0; from < n; from += COLUMN_CHUNK) {
    const to = Math.min(n, from + COLUMN_CHUNK);
    const nameChunk = new Array<string | null>(to - from);
    const flagChunk = new Array<number>(to - from);
    const rankChunk = new Array<number>(to - from);
    matchRange(policy, req, st, s, from, to, nameChunk, flagChunk, rankChunk, at);
    names.push(nameChunk);
    flags.push(flagChunk);
    ranks.push(rankChunk);
  }
  st.flushWork();
  const spent = currentBudget().exhausted();
  const verdict = chunkedColumnVerdict({
    ts: s.ts,
    jid: s.jid,
    job: { discarded: s.jobOut },
    schedd: s.schedd,
    n,
    chunk: COLUMN_CHUNK,
    names,
    flags,
    ranks,
    best: at.best,
    head: s.head,
    tail: spent ? `${s.ts} ${BUDGET_EXCEEDED_MESSAGE}` : null,
  });
  return finish(policy, st, verdict, spent, s);
}

/** What decideParsedMatch settled before the machines: the log's clock and job id, its first lines, the discards. */
interface MatchStart {
  ts: string;
  jid: string;
  head: string[];
  schedd: { discarded: boolean } | undefined;
  scheddOut: boolean;
  jobOut: boolean;
  explain: boolean;
  trace: Record<string, unknown>[];
}

/**
 * The best-N match: per machine only its evaluations (STARTD_ONLY, the pair,
 * the job's Rank for a match) and a counter; the matches go through a heap of
 * `req.best`, and only the listed machines' names are read, at the end.
 */
function decideBest(
  policy: MatchPolicy | null,
  req: ParsedMatchRequest,
  st: EvalState,
  s: MatchStart,
): Decision<MatchVerdict> {
  const { machines, job } = req;
  const n = machines.length;
  const heap = new BestHeap(Math.min(req.best as number, n));
  const startdOnly = policy?.startdOnly ?? null;
  const skip = s.scheddOut || s.jobOut;
  let discarded = 0;
  let matched = 0;
  let byResource = 0;
  let byJob = 0;
  let empty = 0;
  for (let i = 0; i < n; i++) {
    const m = machines[i];
    empty += firstSlotMissing(m);
    if (startdOnly !== null && startdDiscards(startdOnly, m, st)) {
      discarded++;
      continue;
    }
    if (skip) continue;
    const pair = matchPair(policy, job, m, st, s.explain);
    if (pair.trace)
      s.trace.push({ machine: stringAttr(m, "name", st) ?? i, ...pair.trace, match: pair.match });
    if (pair.match) {
      matched++;
      heap.offer(i, rankOf(JOB_RANK.eval(job, m, st)));
    } else if (pair.policyReject === "NEGOTIATOR_PE_RESOURCE_EXPR") byResource++;
    else if (pair.policyReject === "NEGOTIATOR_PE_JOB_EXPR") byJob++;
  }
  emptyMachines = empty;
  const best = heap.ordered();
  const names = best.idx.map((i) => stringAttr(machines[i], "name", st) ?? i);
  st.flushWork();
  const spent = currentBudget().exhausted();
  const counts = {
    machines: n,
    matched,
    discarded,
    rejected_by_resource_expr: byResource,
    rejected_by_job_expr: byJob,
    unmatched: n - matched - discarded - byResource - byJob,
  };
  const verdict = bestVerdict({
    ts: s.ts,
    jid: s.jid,
    job: { discarded: s.jobOut },
    schedd: s.schedd,
    names,
    ranks: best.rank,
    counts,
    head: s.head,
    tail: spent ? `${s.ts} ${BUDGET_EXCEEDED_MESSAGE}` : null,
  });
  return finish(policy, st, verdict, spent, s);
}

/** The decision around a verdict: its outcome, whether it may be cached, and the trace when asked for. */
function finish(
  policy: MatchPolicy | null,
  st: EvalState,
  verdict: MatchVerdict,
  spent: boolean,
  s: MatchStart,
): Decision<MatchVerdict> {
  const outcome = spent
    ? BUDGET_EXCEEDED
    : s.scheddOut
      ? "schedd_discarded"
      : s.jobOut
        ? "job_discarded"
        : verdict.best === null
          ? "no_match"
          : "matched";
  const decision: Decision<MatchVerdict> = { verdict, cacheable: st.used === 0, outcome };
  return s.explain ? { ...decision, trace: { pairs: s.trace, policy: policy?.texts ?? {} } } : decision;
}

/** The /v1/ads/check verdict body. */
export interface AdCheckVerdict {
  discarded: boolean;
}

const KIND_EXPR = { schedd: "scheddOnly", startd: "startdOnly", job: "jobOnly" } as const;

/** Would the policy discard this schedd, startd or job ad; throws ClassAdRequestError for a bad ad. */
export function decideAdCheck(
  policy: MatchPolicy | null,
  request: { kind: "schedd" | "startd" | "job"; ad: unknown },
  ctx: MatchContext,
): Decision<AdCheckVerdict> {
  const r = readAd(request.ad);
  if (!r.ok) throw new ClassAdRequestError("ad", `${r.error.message} at ${r.error.at}`);
  const st = new EvalState(ctx);
  const expr = policy?.[KIND_EXPR[request.kind]] ?? null;
  const value = expr === null ? UNDEF : evalCompiled(expr, r.ad, null, st);
  const discarded = isTrue(value);
  st.flushWork();
  const outcome = currentBudget().exhausted() ? BUDGET_EXCEEDED : discarded ? "discarded" : "kept";
  const decision: Decision<AdCheckVerdict> = { verdict: { discarded }, cacheable: st.used === 0, outcome };
  if (ctx.explain !== true) return decision;
  return { ...decision, trace: { expression: policyText(policy, request.kind), value: unparseValue(value) } };
}

function policyText(policy: MatchPolicy | null, kind: "schedd" | "startd" | "job"): string | null {
  const key =
    kind === "schedd"
      ? "NEGOTIATOR_PE_SCHEDD_ONLY_EXPR"
      : kind === "startd"
        ? "NEGOTIATOR_PE_STARTD_ONLY_EXPR"
        : "NEGOTIATOR_PE_JOB_ONLY_EXPR";
  return policy?.texts[key] ?? null;
}

/** Whether a job and a machine match symmetrically (no policy), reusing the caller's state. */
export function symmetricMatch(job: ClassAd, machine: ClassAd, st: EvalState): boolean {
  const mReq = evalAttr(machine, "requirements", job, st);
  if (mReq === false) return false;
  return isTrue(andThen(mReq, () => evalAttr(job, "requirements", machine, st)));
}

/** Symmetric match and both ranks of one job/machine pair, for `arbiter eval classad`. */
export function matchOne(
  job: ClassAd,
  machine: ClassAd,
  ctx: EvalContext,
): { symmetric: boolean; jobRank: Value; machineRank: Value } {
  const st = new EvalState(ctx);
  const pair = matchPair(null, job, machine, st, false);
  return {
    symmetric: pair.match,
    jobRank: evalAttr(job, "rank", machine, st),
    machineRank: evalAttr(machine, "rank", job, st),
  };
}
