import type { Decision } from "../common/decision.js";
import {
  INVALID_QUEUE_NAME,
  isQueueNameValid,
  normalisePartitionName,
  RECOVERY_NAME,
  RECOVERY_QUEUE,
} from "./names.js";
import { placeRecovery, placeRule, type PlaceContext } from "./rules.js";
import { Side } from "./filter.js";
import type {
  PlacementPolicy,
  PlacementRequest,
  PlaceVerdict,
  RuleGates,
  RuleRef,
  TraceStep,
} from "./types.js";
import { QueueView } from "./view.js";

/** The reason YuniKorn gives when no rule places an application. */
export const NO_RULE_MATCHED = "application rejected: no placement rule matched";

/** The explain trace of one placement. */
export interface PlacementTrace {
  partition: string;
  rules: TraceStep[];
  creation?: string;
}

const EMPTY: readonly string[] = [];

function placed(
  queue: string,
  create: boolean,
  rule: RuleRef,
  trace: PlacementTrace | undefined,
): Decision<PlaceVerdict> {
  const verdict: PlaceVerdict = { queue, create, rule, rejected: false };
  return trace === undefined
    ? { verdict, cacheable: true, outcome: "placed" }
    : { verdict, cacheable: true, outcome: "placed", trace };
}

function rejected(
  reason: string,
  error: string | undefined,
  rule: RuleRef | null,
  trace: PlacementTrace | undefined,
): Decision<PlaceVerdict> {
  const verdict: PlaceVerdict = { queue: null, create: false, rule, rejected: true, reason };
  if (error !== undefined) verdict.error = error;
  return trace === undefined
    ? { verdict, cacheable: true, outcome: "rejected" }
    : { verdict, cacheable: true, outcome: "rejected", trace };
}

/** The checks the scheduler makes before creating a queue (spec §7); the cause text or null. */
function creationProblem(
  view: QueueView,
  queue: string,
  user: string,
  groups: readonly string[],
): string | null {
  if (!queue.startsWith("root") || !queue.includes(".")) return `illegal queue name passed in: ${queue}`;
  const lower = queue.toLowerCase();
  const ancestor = view.deepestExisting(lower);
  const ancestorRaw = queue.slice(0, ancestor.length);
  if (!view.submitAllowed(ancestor, user, groups))
    return `submit access to queue ${ancestorRaw} denied during create of: ${queue}`;
  if (view.isLeaf(ancestor))
    return `creation of queue ${queue} failed parent is already a leaf: ${ancestorRaw}`;
  for (let start = ancestor.length + 1; start <= queue.length;) {
    const dot = queue.indexOf(".", start);
    const end = dot < 0 ? queue.length : dot;
    const level = queue.slice(start, end);
    if (!isQueueNameValid(level)) return INVALID_QUEUE_NAME;
    if (level === RECOVERY_NAME) return "dynamic queue cannot be root.@recovery@";
    start = end + 1;
  }
  return null;
}

/** The rules whose group list names one of the application's groups, or null when there are none. */
function groupHits(gates: RuleGates, groups: readonly string[]): Set<number> | null {
  if (gates.groups.size === 0) return null;
  let hits: Set<number> | null = null;
  for (const g of groups) {
    const rules = gates.groups.ruleSet(g);
    if (rules === undefined) continue;
    hits ??= new Set();
    for (const i of rules) hits.add(i);
  }
  return hits;
}

/** Whether one side of a gate could match `text`. */
function sideMayMatch(side: number, literal: string, text: string): boolean {
  return side === Side.Prefix ? text.startsWith(literal) : text.includes(literal);
}

/** Whether rule `i`'s filter could admit the application: its user side could match the user, or its group side a group. */
function mayAdmit(
  gates: RuleGates,
  i: number,
  user: string,
  groups: readonly string[],
  named: ReadonlySet<number> | undefined,
  grouped: Set<number> | null,
): boolean {
  const us = gates.userSide[i];
  if (
    us === Side.Names
      ? named !== undefined && named.has(i)
      : us !== Side.None && sideMayMatch(us, gates.userLiteral[i], user)
  )
    return true;
  const gs = gates.groupSide[i];
  if (gs === Side.None) return false;
  if (gs === Side.Names) return grouped !== null && grouped.has(i);
  const literal = gates.groupLiteral[i];
  for (const g of groups) if (sideMayMatch(gs, literal, g)) return true;
  return false;
}

/**
 * The gated rules that could admit the application, ascending and each once,
 * found through the gates' indexes (names, and the literals the user and
 * group texts hold) instead of reading every rule's gate; null when reading
 * every gate is cheaper (a small chain, a long text against many literal
 * lengths, many hits) or the bundle has no literal order. A rule is in the
 * list exactly when {@link mayAdmit} holds for it.
 */
export function admittedRules(gates: RuleGates, user: string, groups: readonly string[]): number[] | null {
  const userLiterals = gates.userLiterals;
  const groupLiterals = gates.groupLiterals;
  if (userLiterals === null || groupLiterals === null) return null;
  const rules = gates.gated.length;
  // each probe is a cut of the text and a binary search; reading every gate costs about one step a rule
  const step = 2 + Math.log2(rules + 1);
  // at least one name search per text: a short chain is read whole without counting the pieces
  let probes = 1 + groups.length;
  if (probes * step > rules) return null;
  probes += userLiterals.probes(user);
  for (const g of groups) probes += groupLiterals.probes(g);
  if (probes * step > rules) return null;
  const hits: number[] = [];
  gates.users.collect(user, hits);
  userLiterals.collect(user, hits);
  for (const g of groups) {
    gates.groups.collect(g, hits);
    groupLiterals.collect(g, hits);
  }
  if (hits.length * 8 > rules) return null;
  if (hits.length < 2) return hits;
  hits.sort((x, y) => x - y);
  let n = 1;
  for (let k = 1; k < hits.length; k++) if (hits[k] !== hits[n - 1]) hits[n++] = hits[k];
  hits.length = n;
  return hits;
}

/**
 * Decides which queue an application goes to: runs the partition's rule chain
 * (then recovery, then the opt-in default queue), applies the leaf, ACL and
 * draining checks, and says whether the scheduler must create the queue. A
 * pure function of the policy and the request, so its verdicts are cacheable.
 */
export function decidePlacement(
  policy: PlacementPolicy,
  request: PlacementRequest,
  ctx: { explain: boolean },
): Decision<PlaceVerdict> {
  const explain = ctx.explain;
  const appId = request.applicationId;
  const partitionName = normalisePartitionName(request.partition ?? "");
  const trace: PlacementTrace | undefined = explain ? { partition: partitionName, rules: [] } : undefined;
  const partition = policy.partitions.get(partitionName);
  if (partition === undefined) {
    const shown = request.partition ?? "default";
    return rejected(
      `partition ${shown} doesn't exist`,
      appId === undefined
        ? undefined
        : `Failed to add application ${appId} to partition ${shown}, partition doesn't exist`,
      null,
      trace,
    );
  }
  const view = new QueueView(partition.queues, request.existingQueues);
  const user = request.user;
  const groups = request.groups ?? EMPTY;
  const pc: PlaceContext = {
    user,
    groups,
    queue: request.queue ?? "",
    tags: request.tags,
    folded: null,
    view,
    explain,
    error: null,
    why: "",
  };
  const rules = partition.rules;
  const last = rules.length;

  let candidate: string | null = null;
  let ref: RuleRef | null = null;
  // unexplained decisions skip the rules whose filter cannot admit this application (see Partition.gates)
  const gates = explain ? null : partition.gates;
  // the rules to run: the ungated ones and those the indexes find (most decisions), else every rule whose gate admits
  const open = gates === null ? null : gates.open;
  const hits = gates === null || open === null ? null : admittedRules(gates, user, groups);
  const named = gates === null || hits !== null ? undefined : gates.users.ruleSet(user);
  const grouped = gates === null || hits !== null ? null : groupHits(gates, groups);
  let nextOpen = 0;
  let nextHit = 0;
  for (let i = 0; i <= last; i++) {
    if (hits !== null && open !== null) {
      // the next rule that is ungated or found; the recovery step when none is left
      const o = nextOpen < open.length ? open[nextOpen] : last;
      const h = nextHit < hits.length ? hits[nextHit] : last;
      i = o < h ? o : h;
      if (o === i && o < last) nextOpen++;
      if (h === i && h < last) nextHit++;
    } else if (
      gates !== null &&
      i < last &&
      gates.gated[i] === 1 &&
      !mayAdmit(gates, i, user, groups, named, grouped)
    )
      continue;
    pc.why = "";
    let name: string = i < last ? rules.at(i).kind : "recovery";
    let queue = i < last ? placeRule(rules.at(i), pc) : placeRecovery(pc);
    if (pc.error !== null) {
      trace?.rules.push({ index: i, rule: name, result: "error", why: pc.error });
      const cause = pc.error;
      return rejected(
        cause,
        appId === undefined ? undefined : `failed to place application ${appId}: ${cause}`,
        { index: i, name },
        trace,
      );
    }
    let fromRecovery = i === last && queue !== null;
    if (
      i === last &&
      queue === null &&
      partition.defaultQueue !== null &&
      view.exists(partition.defaultQueue)
    ) {
      trace?.rules.push({ index: i, rule: name, result: "skipped", why: pc.why });
      queue = partition.defaultQueue;
      name = "default";
      fromRecovery = false;
    }
    if (queue === null) {
      trace?.rules.push({ index: i, rule: name, result: "skipped", why: pc.why });
      continue;
    }
    const lower = queue.toLowerCase();
    if (!(fromRecovery && lower === RECOVERY_QUEUE)) {
      let why = "";
      if (view.exists(lower)) {
        if (!view.isLeaf(lower)) why = `queue ${lower} is not a leaf`;
        else if (!view.submitAllowed(lower, user, groups)) why = `submit access to queue ${lower} denied`;
        else if (view.isDraining(lower)) why = `queue ${lower} is draining`;
      } else {
        const ancestor = view.deepestExisting(lower);
        if (!view.submitAllowed(ancestor, user, groups)) why = `submit access to queue ${ancestor} denied`;
      }
      if (why !== "") {
        trace?.rules.push({ index: i, rule: name, result: "skipped", queue: lower, why });
        continue;
      }
    }
    trace?.rules.push({ index: i, rule: name, result: "placed", queue: lower });
    candidate = queue;
    ref = { index: i, name };
    break;
  }

  if (candidate === null || ref === null) {
    return rejected(
      NO_RULE_MATCHED,
      appId === undefined ? undefined : `failed to place application ${appId}: ${NO_RULE_MATCHED}`,
      null,
      trace,
    );
  }
  const lower = candidate.toLowerCase();
  if (!view.exists(lower)) {
    const problem = lower === RECOVERY_QUEUE ? null : creationProblem(view, candidate, user, groups);
    if (problem !== null) {
      if (trace !== undefined) trace.creation = problem;
      const error =
        appId === undefined
          ? undefined
          : `failed to create rule based queue ${candidate} for application ${appId}\n${problem}`;
      return rejected(problem, error, ref, trace);
    }
    return placed(lower, true, ref, trace);
  }
  if (!view.isLeaf(lower)) {
    const error =
      appId === undefined ? undefined : `failed to find queue ${candidate} for application ${appId}`;
    return rejected(`failed to find queue ${candidate}`, error, ref, trace);
  }
  return placed(lower, false, ref, trace);
}
