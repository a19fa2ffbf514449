/**
 * Walking the applications: which limits apply to the classified requester,
 * group by group, with pScheduler's diagnostic lines.
 */
import { BudgetExceeded, currentBudget, enterBudget, type Budget } from "../common/budget.js";
import type { JsonObject } from "../common/json.js";
import type { LimitAnswer, LimitIo } from "./limit-types.js";
import type { Application, Group, HowMany, Limit } from "./policy.js";
import type { DiagLines } from "./diag-lines.js";

/** One limit's evaluation, kept for the trace. */
export interface LimitOutcome {
  readonly limit: string;
  readonly passed: boolean;
  readonly reasons: readonly string[];
}

/** Indents every line of a possibly multi-line text by two spaces. */
export function indent(text: string): string {
  return text.includes("\n")
    ? text
        .split("\n")
        .map((l) => `  ${l}`)
        .join("\n")
    : `  ${text}`;
}

function groupPasses(require: HowMany, passes: number, fails: number): boolean {
  switch (require) {
    case "none":
      return passes === 0;
    case "one":
      return passes === 1;
    case "any":
      return passes > 0;
    case "all":
      return fails === 0;
  }
}

/** A limit's answer after inversion. */
type Checked = { passed: boolean; reasons: string[] };

/** What the applications decided: the verdict (their lines are added to the caller's list). */
export interface ApplicationsOutcome {
  readonly passed: boolean;
}

/** Applies a limit's inversion to its answer; a raised error fails the limit. */
function finish(limit: Limit, r: LimitAnswer): Checked {
  if ("error" in r)
    return { passed: false, reasons: [`Limit ${limit.name} threw an exception:\n${r.error}`] };
  if (!limit.invert) return r;
  return r.passed ? { passed: false, reasons: ["Passed but inverted"] } : { passed: true, reasons: [] };
}

/**
 * Evaluates one limit with inversion and the schedule rule (asynchronously
 * only for url-fetch), charging the decision's work budget; a spent budget is
 * the exception pScheduler reports for a limit that throws.
 */
export function checkLimit(
  limit: Limit,
  task: JsonObject,
  checkSchedule: boolean,
  now: number,
  io: LimitIo,
  budget: Budget = currentBudget(),
): Checked | Promise<Checked> {
  if (!checkSchedule && limit.evaluator.checksSchedule) return { passed: true, reasons: [] };
  let r: LimitAnswer | Promise<LimitAnswer>;
  const previous = enterBudget(budget);
  try {
    r = limit.evaluator.evaluate(task, now, io);
  } catch (e) {
    if (!(e instanceof BudgetExceeded)) throw e;
    r = { error: e.message };
  } finally {
    enterBudget(previous);
  }
  return r instanceof Promise ? r.then((a) => finish(limit, a)) : finish(limit, r);
}

/** The fixed parts of group `j`'s limit lines (see Group), made once at load time. */
export function groupLines(
  j: number,
  names: readonly string[],
  require: HowMany,
): { passLines: string[]; failPrefixes: string[]; wantLines: string[] } {
  const prefix = `Group ${j + 1}: `;
  const total = names.length;
  // one closing line per count of passes: as many lines as the group has limits, plus one
  const wantLines: string[] = [];
  for (let passes = 0; passes <= total; passes++) wantLines.push(wantLine(prefix, require, passes, total));
  return {
    passLines: names.map((name) => indent(`${prefix}Limit '${name}' passed`)),
    failPrefixes: names.map((name) => `${prefix}Limit '${name}' failed: `),
    wantLines,
  };
}

/** A group's closing line, every one of its `total` limits having passed or failed. */
function wantLine(prefix: string, require: HowMany, passes: number, total: number): string {
  const fails = total - passes;
  const ok = groupPasses(require, passes, fails);
  return indent(
    `${prefix}Want ${require}, ${passes}/${total} passed, ${fails}/${total} failed: ${ok ? "PASS" : "FAIL"}`,
  );
}

/** An application's fixed lines, made once at load time: its heading and its closing line either way. */
export function applicationLines(
  description: string,
  invert: boolean,
): { heading: string; passedLine: string; failedLine: string } {
  const inverted = invert ? " (Inverted)" : "";
  return {
    heading: `Application: ${description}`,
    passedLine: indent(`Application PASSES${inverted}`),
    failedLine: indent(`Application FAILS${inverted}`),
  };
}

/**
 * Runs the applications for the classified requester; adds the application
 * block's lines to `lines` (the diagnostics, one empty line when none applied)
 * and returns the verdict. The answer is synchronous unless a limit answers
 * asynchronously (only url-fetch does), so a policy without url-fetch limits
 * pays for no promise.
 */
export function checkApplications(
  applications: readonly Application[],
  limits: readonly Limit[],
  classified: readonly boolean[],
  task: JsonObject,
  checkSchedule: boolean,
  now: number,
  io: LimitIo,
  trace: LimitOutcome[] | null,
  lines: DiagLines,
): ApplicationsOutcome | Promise<ApplicationsOutcome> {
  const walk: Walk = {
    applications,
    limits,
    classified,
    task,
    checkSchedule,
    now,
    io,
    trace,
    // called with the decision's budget current: each limit's evaluation is charged to it, across awaits
    budget: currentBudget(),
    lines,
    // the block's lines go on the caller's list; a walk that applied nothing adds one empty line
    start: lines.count,
  };
  return walkFrom(walk, 0);
}

const PASSED: ApplicationsOutcome = { passed: true };
const FAILED: ApplicationsOutcome = { passed: false };

/**
 * One walk through the applications. The walk is plain functions, one per level (applications,
 * groups, limits), each going on at once or after the promise of a limit that answers
 * asynchronously, rather than one generator, whose optimized compile cost V8 9–16 ms of the
 * Worker's CPU (docs/performance.md, wt/stall6). Every member is in the literal, so its hidden
 * class never changes.
 */
interface Walk {
  readonly applications: readonly Application[];
  readonly limits: readonly Limit[];
  readonly classified: readonly boolean[];
  readonly task: JsonObject;
  readonly checkSchedule: boolean;
  readonly now: number;
  readonly io: LimitIo;
  readonly trace: LimitOutcome[] | null;
  readonly budget: Budget;
  readonly lines: DiagLines;
  readonly start: number;
}

/** The applications in order from `from`. */
function walkFrom(w: Walk, from: number): ApplicationsOutcome | Promise<ApplicationsOutcome> {
  for (let a = from; a < w.applications.length; a++) {
    const app = w.applications[a];
    if (app.classifier >= 0 && !w.classified[app.classifier]) continue;
    w.lines.add(app.heading);
    const groupsPassed = groupsFrom(w, app, 0);
    if (groupsPassed instanceof Promise)
      return groupsPassed.then((ok) => applicationEnd(w, app, ok) ?? walkFrom(w, a + 1));
    const end = applicationEnd(w, app, groupsPassed);
    if (end !== undefined) return end;
  }
  if (w.lines.count === w.start) w.lines.add("");
  return FAILED;
}

/** An application's closing lines: the walk's outcome when it stops here, else undefined. */
function applicationEnd(w: Walk, app: Application, groupsPassed: boolean): ApplicationsOutcome | undefined {
  const appPassed = groupsPassed !== app.invert;
  w.lines.add(appPassed ? app.passedLine : app.failedLine);
  if (appPassed) {
    w.lines.add("Passed one application.  Stopping.");
    return PASSED;
  }
  if (app.stopOnFailure) {
    w.lines.add("Failed; stop forced");
    return FAILED;
  }
  return undefined;
}

/** Whether the application's groups from `from` on all pass (stopping at the first that fails). */
function groupsFrom(w: Walk, app: Application, from: number): boolean | Promise<boolean> {
  for (let g = from; g < app.groups.length; g++) {
    const group = app.groups[g];
    const passes = limitsFrom(w, group, 0, 0);
    if (passes instanceof Promise)
      return passes.then((p) => groupEnd(group, w.lines, p) && groupsFrom(w, app, g + 1));
    if (!groupEnd(group, w.lines, passes)) return false;
  }
  return true;
}

/** A group's closing line, every one of its limits having answered; whether it passes. */
function groupEnd(group: Group, lines: DiagLines, passes: number): boolean {
  lines.add(group.wantLines[passes]);
  return groupPasses(group.require, passes, group.limits.length - passes);
}

/** The group's limits from `from` on, `passes` of those before having passed: how many passed in all. */
function limitsFrom(w: Walk, group: Group, from: number, passes: number): number | Promise<number> {
  for (let j = from; j < group.limits.length; j++) {
    const limit = w.limits[group.limits[j]];
    const answer = checkLimit(limit, w.task, w.checkSchedule, w.now, w.io, w.budget);
    if (answer instanceof Promise) {
      const before = passes;
      return answer.then((r) => limitsFrom(w, group, j + 1, before + noteLimit(w, group, j, limit, r)));
    }
    passes += noteLimit(w, group, j, limit, answer);
  }
  return passes;
}

/** A limit's answer in the trace and the lines: 1 when it passed, else 0. */
function noteLimit(w: Walk, group: Group, j: number, limit: Limit, r: Checked): number {
  w.trace?.push({ limit: limit.name, passed: r.passed, reasons: r.reasons });
  if (r.passed) {
    w.lines.add(group.passLines[j]);
    return 1;
  }
  w.lines.add(indent(group.failPrefixes[j] + r.reasons.join("; ")));
  return 0;
}
