/**
 * One limits decision: identify, classify, rewrite, apply limits, prioritize,
 * and write pScheduler's diagnostic text line by line.
 */
import { BudgetExceeded, currentBudget, enterBudget, type Budget } from "../common/budget.js";
import { VERDICT_JSON, type Decision } from "../common/decision.js";
import { keepShape } from "../common/shapes.js";
import type { Json, JsonObject } from "../common/json.js";
import { commaList, DiagLines } from "./diag-lines.js";
import { isJsonObject } from "../common/json.js";
import { checkApplications, indent, type LimitOutcome } from "./applications.js";
import type { LimitsContext } from "./context.js";
import type { EvalState, IdentAnswer } from "./identifiers.js";
import type { Classifier, LimitsPolicy } from "./policy.js";
import { pyStr, pyTypeName } from "./python-text.js";

/** The /v1/limits/decide body, with `requester` already filled in by the route. */
export interface LimitsRequest {
  requester: string;
  server?: string;
  task: JsonObject;
  run?: { start: string; duration: string };
  rewrite?: boolean;
  prioritize?: boolean;
}

/** The limits verdict body. */
export interface LimitsVerdict {
  allowed: boolean;
  task: JsonObject | null;
  changes: string[];
  identifiers: string[];
  classifiers: string[];
  priority: number | null;
  diagnostics: string;
}

interface Trace {
  hints: JsonObject;
  identifiers: { name: string; identified: boolean; error?: string; note?: string }[];
  classifiers: string[];
  rewrite?: { changed: boolean; messages: string[] } | { error: string };
  limits: LimitOutcome[];
}

/** Whether a verdict may be cached and, when it used DNS answers, for how long at most (their shortest TTL). */
interface Cacheability {
  cacheable: boolean;
  maxAgeSeconds?: number;
}

const ALWAYS: Cacheability = { cacheable: true };
const NEVER: Cacheability = { cacheable: false };

/**
 * The decision, its members in the order `{ verdict, ...c, outcome, trace }` gives them, each
 * shape written as a literal: a literal's hidden class is held by the literal itself, where the
 * one a spread makes is reached only through V8's weak transitions, so it died at every full
 * collection between requests and took the optimized code that read decisions with it
 * (src/engines/common/shapes.ts; docs/performance.md, wt/stall2).
 */
function verdict(v: LimitsVerdict, c: Cacheability, trace: Trace | null): Decision<LimitsVerdict> {
  const outcome = v.allowed ? "allowed" : "denied";
  const cacheable = c.cacheable;
  const maxAgeSeconds = c.maxAgeSeconds;
  if (maxAgeSeconds === undefined)
    return trace ? { verdict: v, cacheable, outcome, trace } : { verdict: v, cacheable, outcome };
  return trace
    ? { verdict: v, cacheable, maxAgeSeconds, outcome, trace }
    : { verdict: v, cacheable, maxAgeSeconds, outcome };
}

/**
 * A limits verdict: {@link LimitsVerdict}'s members, in the answer's order, and a writer of its own
 * JSON (VERDICT_JSON: what JSON.stringify gives for it, which the route puts in the answer without
 * stringifying the verdict whole and cutting its braces off). The identifier and classifier lists
 * are written from the names' JSON made when the policy loaded, as the decision lists them; the
 * task, the changes and the diagnostics are stringified alone. Its writer's texts are kept in
 * private fields, which neither JSON.stringify, a spread nor `Object.keys` sees: the verdict's
 * members are the same as an object literal's. A verdict is never changed after its decision.
 */
class Verdict implements LimitsVerdict {
  readonly allowed: boolean;
  readonly task: JsonObject | null;
  readonly changes: string[];
  readonly identifiers: string[];
  readonly classifiers: string[];
  readonly priority: number | null;
  readonly diagnostics: string;
  /** The JSON of `identifiers` and of `classifiers` without their brackets, when the decision wrote them. */
  readonly #identifiersJson: string | undefined;
  readonly #classifiersJson: string | undefined;

  constructor(
    allowed: boolean,
    task: JsonObject | null,
    changes: string[],
    identifiers: string[],
    classifiers: string[],
    priority: number | null,
    diagnostics: string,
    identifiersJson?: string,
    classifiersJson?: string,
  ) {
    this.allowed = allowed;
    this.task = task;
    this.changes = changes;
    this.identifiers = identifiers;
    this.classifiers = classifiers;
    this.priority = priority;
    this.diagnostics = diagnostics;
    this.#identifiersJson = identifiersJson;
    this.#classifiersJson = classifiersJson;
  }

  [VERDICT_JSON](members = false): string {
    const text =
      `"allowed":${this.allowed ? "true" : "false"}` +
      `,"task":${this.task === null ? "null" : JSON.stringify(this.task)}` +
      `,"changes":${this.changes.length === 0 ? "[]" : JSON.stringify(this.changes)}` +
      `,"identifiers":${listJson(this.identifiers, this.#identifiersJson)}` +
      `,"classifiers":${listJson(this.classifiers, this.#classifiersJson)}` +
      // a finite number's JSON is its string; JSON.stringify writes any other as null
      `,"priority":${this.priority !== null && Number.isFinite(this.priority) ? String(this.priority) : "null"}` +
      `,"diagnostics":${JSON.stringify(this.diagnostics)}`;
    return members ? text : `{${text}}`;
  }
}

/** A list of names as JSON: from its members' JSON when written, else stringified. */
function listJson(list: readonly string[], members: string | undefined): string {
  if (list.length === 0) return "[]";
  return members === undefined ? JSON.stringify(list) : `[${members}]`;
}

// one instance kept for the isolate's life, so that a full collection between decisions does not take
// the class's map and with it the optimized code that reads verdicts (src/engines/common/shapes.ts)
keepShape(new Verdict(false, null, [], [], [], null, "", "", ""));

/** A denial: nothing identified, classified or changed unless given (their names' JSON with them). */
function denied(
  diagnostics: string,
  identifiers: string[] = [],
  identifiersJson = "",
  classifiers: string[] = [],
  classifiersJson = "",
  changes: string[] = [],
): LimitsVerdict {
  return new Verdict(
    false,
    null,
    changes,
    identifiers,
    classifiers,
    null,
    diagnostics,
    identifiersJson,
    classifiersJson,
  );
}

/** Python's `%d` of a number: truncation toward zero. */
function percentD(n: Json | undefined): string {
  if (typeof n !== "number")
    throw new TypeError(`%d format: a real number is required, not ${pyTypeName(n)}`);
  return String(Math.trunc(n));
}

/**
 * Whether the verdict may be cached: no list or URL fetched, every DNS lookup
 * answered with a TTL of a second or more, no run times, no clock-reading
 * script; then for at most the shortest TTL of the DNS answers it used.
 */
function isCacheable(state: EvalState, request: LimitsRequest, policy: LimitsPolicy): Cacheability {
  if (state.usedOutside || request.run !== undefined || policy.readsClock) return NEVER;
  if (state.ttlSeconds === Infinity) return ALWAYS;
  const seconds = Math.floor(state.ttlSeconds);
  return seconds >= 1 ? { cacheable: true, maxAgeSeconds: seconds } : NEVER;
}

/** Whether each classifier holds, given which identifiers identified the requester (a repeated identifier counts twice). */
export function classify(classifiers: readonly Classifier[], identified: readonly boolean[]): boolean[] {
  const out: boolean[] = [];
  for (const c of classifiers) {
    let count = 0;
    for (const id of c.identifiers) if (identified[id]) count++;
    out.push(
      c.require === "none"
        ? count === 0
        : c.require === "one"
          ? count === 1
          : c.require === "all"
            ? count === c.identifiers.length
            : count >= 1,
    );
  }
  return out;
}

/** A decision's steps, yielding each promise it must wait for (a DNS lookup, a URL fetch) and given its answer back. */
type Steps = Generator<Promise<unknown>, Decision<LimitsVerdict>, unknown>;

function* steps(policy: LimitsPolicy | null, request: LimitsRequest, ctx: LimitsContext): Steps {
  const hints: JsonObject = { requester: request.requester };
  if (request.server !== undefined) hints.server = request.server;
  const task: JsonObject = request.run ? { ...request.task, run_schedule: { ...request.run } } : request.task;
  if (!policy) {
    return verdict(new Verdict(true, null, [], [], [], null, "No limits were applied", "", ""), ALWAYS, null);
  }
  // the work budget is charged in the synchronous stretches between DNS awaits
  const budget: Budget = ctx.budget ?? currentBudget();
  const rewrite = request.rewrite !== false;
  const prioritize = request.prioritize === true;
  // `note` is in the literal, so that the state never changes hidden class (see `verdict`)
  const state: EvalState = { ctx, usedOutside: false, ttlSeconds: Infinity, fetches: 0, note: undefined };
  const trace: Trace | null = ctx.explain ? { hints, identifiers: [], classifiers: [], limits: [] } : null;
  const now = ctx.now / 1000;
  const diags = new DiagLines();

  // the hints in key order: requester, then server when given
  diags.add("Hints:");
  diags.addAfterNewline(`\n  requester: ${pyStr(hints.requester)}`);
  if (hints.server !== undefined) diags.addAfterNewline(`\n  server: ${pyStr(hints.server)}`);

  // Identification
  const identified: string[] = [];
  // the identified names' JSON, comma-separated, from the names' JSON written at load
  let identifiedJson = "";
  const identifiedFlags: boolean[] = [];
  const identErrors: string[] = [];
  for (let i = 0; i < policy.identifiers.length; i++) {
    const ident = policy.identifiers[i];
    state.note = undefined;
    let answer: IdentAnswer | Promise<IdentAnswer>;
    const previous = enterBudget(budget);
    try {
      answer = ident.evaluate(hints, state);
    } catch (e) {
      if (!(e instanceof BudgetExceeded)) throw e;
      answer = { error: e.message };
    } finally {
      enterBudget(previous);
    }
    if (answer instanceof Promise) answer = (yield answer) as IdentAnswer;
    let yes = false;
    if (typeof answer === "boolean") yes = answer !== ident.invert;
    else
      identErrors.push(
        `Identifier ${ident.name} threw an exception:\n${answer.error}\nPlease report this as a bug.`,
      );
    identifiedFlags.push(yes);
    if (yes) {
      identifiedJson =
        identified.length === 0
          ? policy.identifierNamesJson[i]
          : `${identifiedJson},${policy.identifierNamesJson[i]}`;
      identified.push(ident.name);
    }
    trace?.identifiers.push({
      name: ident.name,
      identified: yes,
      ...(typeof answer === "boolean" ? {} : { error: answer.error }),
      ...(state.note === undefined ? {} : { note: state.note }),
    });
  }
  if (identErrors.length > 0) {
    diags.add("Identifier diagnostics:");
    diags.addAll(identErrors);
  }
  if (identified.length === 0) {
    diags.add("Made no identifications.");
    return verdict(denied(diags.text), isCacheable(state, request, policy), trace);
  }
  diags.addAfterNewline(`\nIdentified as ${commaList(identified)}`);

  // Classification
  const classified = classify(policy.classifiers, identifiedFlags);
  const classifications: string[] = [];
  let classificationsJson = "";
  for (let i = 0; i < classified.length; i++)
    if (classified[i]) {
      classificationsJson =
        classifications.length === 0
          ? policy.classifierNamesJson[i]
          : `${classificationsJson},${policy.classifierNamesJson[i]}`;
      classifications.push(policy.classifiers[i].name);
    }
  if (trace) trace.classifiers = classifications;
  if (classifications.length === 0) {
    diags.add("Made no classifications.");
    return verdict(
      denied(diags.text, identified, identifiedJson),
      isCacheable(state, request, policy),
      trace,
    );
  }
  diags.addAfterNewline(`\nClassified as ${commaList(classifications)}`);

  const checkSchedule = "run_schedule" in task;
  let newTask: JsonObject | null = null;
  let limitTask = task;
  let changes: string[] = [];

  // Rewriting
  if (policy.rewriter && rewrite) {
    const rewriter = policy.rewriter;
    let r: ReturnType<typeof rewriter.run>;
    const outside = enterBudget(budget);
    try {
      r = rewriter.run(task, classifications, hints, now);
    } finally {
      enterBudget(outside);
    }
    if ("error" in r) {
      if (trace) trace.rewrite = { error: r.error };
      return verdict(
        denied(
          `Error while rewriting: ${r.error}`,
          identified,
          identifiedJson,
          classifications,
          classificationsJson,
        ),
        isCacheable(state, request, policy),
        trace,
      );
    }
    newTask = r.task;
    if (trace) trace.rewrite = { changed: r.changed, messages: r.messages };
    if (r.changed) {
      changes = r.messages;
      diags.add("Rewriter made changes:");
      if (r.messages.length > 0) diags.addAll(r.messages, indent);
      else diags.add("  (Not enumerated)");
      limitTask = r.task;
    }
  }

  // Applications
  // synchronous unless a limit answers asynchronously (url-fetch): no promise to wait for otherwise
  let checked: ReturnType<typeof checkApplications>;
  const outside = enterBudget(budget);
  try {
    checked = checkApplications(
      policy.applications,
      policy.limits,
      classified,
      limitTask,
      checkSchedule,
      now,
      { hints, state },
      trace ? trace.limits : null,
      diags,
    );
  } finally {
    enterBudget(outside);
  }
  const apps = checked instanceof Promise ? ((yield checked) as Awaited<typeof checked>) : checked;
  diags.addAfterNewline(apps.passed ? "\nProposal meets limits" : "\nProposal does not meet limits");

  // Priority
  let priority: number;
  if (prioritize && apps.passed && policy.prioritizer) {
    const prioritizer = policy.prioritizer;
    let p: ReturnType<typeof prioritizer.run>;
    const before = enterBudget(budget);
    try {
      p = prioritizer.run(task, classifications, now);
    } finally {
      enterBudget(before);
    }
    if ("error" in p)
      return verdict(
        denied(
          `Error determining priority: ${p.error}`,
          identified,
          identifiedJson,
          classifications,
          classificationsJson,
          changes,
        ),
        isCacheable(state, request, policy),
        trace,
      );
    if ("noResult" in p)
      return verdict(
        denied(
          "Prioritizer produced no result",
          identified,
          identifiedJson,
          classifications,
          classificationsJson,
          changes,
        ),
        isCacheable(state, request, policy),
        trace,
      );
    priority = p.priority;
    const requested = task.priority;
    const requestedText =
      requested === undefined || requested === null ? "" : ` ${percentD(requested)} requested,`;
    diags.add(`Priority${requestedText} set at ${percentD(priority)}${p.notes.length > 0 ? ":" : "."}`);
    diags.addAll(p.notes, indent);
  } else {
    priority = 0;
    diags.addAfterNewline("\nPriority set to default of 0");
  }

  return verdict(
    new Verdict(
      apps.passed,
      newTask,
      changes,
      identified,
      classifications,
      priority,
      diags.text,
      identifiedJson,
      classificationsJson,
    ),
    isCacheable(state, request, policy),
    trace,
  );
}

/**
 * Decides whether a task (or one run of it) may proceed under the limits
 * policy; a null policy means none is configured and everything passes.
 */
export async function decideLimits(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  ctx: LimitsContext,
): Promise<Decision<LimitsVerdict>> {
  return decideLimitsNow(policy, request, ctx);
}

/**
 * {@link decideLimits} without a promise when the decision waits for nothing (no DNS lookup, no
 * URL fetch: the usual decision, whose identifiers and limits all answer at once); else its
 * promise. A spent budget outside the stages that report it is thrown (or rejected) as there.
 */
export function decideLimitsNow(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  ctx: LimitsContext,
): Decision<LimitsVerdict> | Promise<Decision<LimitsVerdict>> {
  let g: Steps;
  let step: IteratorResult<Promise<unknown>, Decision<LimitsVerdict>>;
  try {
    g = steps(policy, request, ctx);
    step = g.next();
  } catch (e) {
    return failedDecision(e, request);
  }
  return step.done ? step.value : finishSteps(g, step, request);
}

/** The rest of a decision that waits: each promise's answer (or error) handed back to its steps. */
async function finishSteps(
  g: Steps,
  first: IteratorResult<Promise<unknown>, Decision<LimitsVerdict>>,
  request: LimitsRequest,
): Promise<Decision<LimitsVerdict>> {
  try {
    let step = first;
    while (!step.done) {
      let answer: unknown;
      try {
        answer = await step.value;
      } catch (e) {
        step = g.throw(e);
        continue;
      }
      step = g.next(answer);
    }
    return step.value;
  } catch (e) {
    return failedDecision(e, request);
  }
}

/**
 * Decides without waiting for anything, for a context with neither a DNS
 * resolver nor a URL fetcher (every lookup then answers at once as a failed
 * one, every fetch as an unreachable server): the semantic diff's decision.
 * A step that would still wait is an error.
 */
export function decideLimitsOffline(
  policy: LimitsPolicy | null,
  request: LimitsRequest,
  ctx: LimitsContext,
): Decision<LimitsVerdict> {
  try {
    const step = steps(policy, request, ctx).next();
    if (!step.done) {
      step.value.catch(() => undefined);
      throw new Error("a decision without a resolver or fetcher waited for an answer");
    }
    return step.value;
  } catch (e) {
    return failedDecision(e, request);
  }
}

/** A decision that threw: a spent budget is rethrown (the route's 422), anything else is pScheduler's "processor threw an exception". */
function failedDecision(e: unknown, request: LimitsRequest): Decision<LimitsVerdict> {
  // a budget spent outside the stages that report errors themselves is the route's 422
  if (e instanceof BudgetExceeded) throw e;
  const kind = e instanceof Error ? e.name : "Exception";
  const message = e instanceof Error ? e.message : String(e);
  const diagnostics = `Failed to process limits: processor threw an exception.\n\n${kind}: ${message}\n\nPlease report this as a bug.`;
  const task = isJsonObject(request.task) ? request.task : null;
  const v: LimitsVerdict = new Verdict(false, task, [], [], [], null, diagnostics, "", "");
  return { verdict: v, cacheable: false, outcome: "error" };
}
