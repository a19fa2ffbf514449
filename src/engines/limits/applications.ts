/**
 * Walking the applications: which limits apply to the classified requester,
 * group by group, with pScheduler's diagnostic lines.
 */
import { BudgetExceeded, currentBudget, enterBudget, type Budget } from "../common/budget.js";
import type { JsonObject } from "../common/json.js";
import type { LimitAnswer, LimitIo } from "./limit-types.js";
import type { Application, HowMany, Limit } from "./policy.js";
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
    passLines: names.map((name) => `\n${indent(`${prefix}Limit '${name}' passed`)}`),
    failPrefixes: names.map((name) => `${prefix}Limit '${name}' failed: `),
    wantLines,
  };
}

/** A group's closing line, every one of its `total` limits having passed or failed, after its newline. */
function wantLine(prefix: string, require: HowMany, passes: number, total: number): string {
  const fails = total - passes;
  const ok = groupPasses(require, passes, fails);
  return `\n${indent(
    `${prefix}Want ${require}, ${passes}/${total} passed, ${fails}/${total} failed: ${ok ? "PASS" : "FAIL"}`,
  )}`;
}

/** An application's fixed lines, made once at load time: its heading and its closing line either way, each after its newline. */
export function applicationLines(
  description: string,
  invert: boolean,
): { heading: string; passedLine: string; failedLine: string } {
  const inverted = invert ? " (Inverted)" : "";
  return {
    heading: `\nApplication: ${description}`,
    passedLine: `\n${indent(`Application PASSES${inverted}`)}`,
    failedLine: `\n${indent(`Application FAILS${inverted}`)}`,
  };
}

/**
 * Runs the applications for the classified requester; adds the application
 * block's lines to `lines` (the diagnostics, one empty line when none applied)
 * and returns the verdict. The answer is synchronous unless a limit answers
 * asynchronously (only url-fetch does), so a policy without url-fetch limits
 * pays for no promise, and the walk allocates nothing of its own: it is a plain
 * function that, at a limit's promise, returns that promise's continuation from
 * where it stood (a generator here cost every decision its object, its frame of
 * some forty slots and two iterator results, about 0.5 KB; issue 31 goal 7).
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
  // called with the decision's budget current: each limit's evaluation is charged to it, across awaits
  const budget = currentBudget();
  return walkFrom(
    applications,
    limits,
    classified,
    task,
    checkSchedule,
    now,
    io,
    trace,
    budget,
    lines,
    lines.count,
    0,
    0,
    0,
    0,
    0,
    null,
  );
}

/** The rest of a walk once the promise of application `a`'s group `g`'s limit `j` answers (see {@link walkFrom}). */
function resumeAfter(
  got: Promise<Checked>,
  applications: readonly Application[],
  limits: readonly Limit[],
  classified: readonly boolean[],
  task: JsonObject,
  checkSchedule: boolean,
  now: number,
  io: LimitIo,
  trace: LimitOutcome[] | null,
  budget: Budget,
  lines: DiagLines,
  start: number,
  a: number,
  g: number,
  j: number,
  passes: number,
  fails: number,
): Promise<ApplicationsOutcome> {
  return got.then((answer) =>
    walkFrom(
      applications,
      limits,
      classified,
      task,
      checkSchedule,
      now,
      io,
      trace,
      budget,
      lines,
      start,
      a,
      g,
      j,
      passes,
      fails,
      answer,
    ),
  );
}

const PASSED: ApplicationsOutcome = { passed: true };
const FAILED: ApplicationsOutcome = { passed: false };

/**
 * The applications in order from application `a0`'s group `g0`'s limit `j0`, that group having
 * `passes0` passes and `fails0` failures so far (all zero for the walk's start); `answer` is that
 * limit's answer when the walk resumes after its promise, else null. The groups before `g0` of
 * application `a0` all passed (a failing group ends its application), and its heading is on
 * `lines` already when resuming. `start` is `lines.count` when the walk began. At a limit that
 * answers with a promise, returns the promise of the rest of the walk.
 */
function walkFrom(
  applications: readonly Application[],
  limits: readonly Limit[],
  classified: readonly boolean[],
  task: JsonObject,
  checkSchedule: boolean,
  now: number,
  io: LimitIo,
  trace: LimitOutcome[] | null,
  budget: Budget,
  lines: DiagLines,
  start: number,
  a0: number,
  g0: number,
  j0: number,
  passes0: number,
  fails0: number,
  answer: Checked | null,
): ApplicationsOutcome | Promise<ApplicationsOutcome> {
  let passed = false;
  for (let a = a0; a < applications.length; a++) {
    const app = applications[a];
    const resuming = answer !== null;
    if (!resuming) {
      if (app.classifier >= 0 && !classified[app.classifier]) continue;
      lines.addAfterNewline(app.heading);
    }
    let g = resuming ? g0 : 0;
    let groupsFailed = app.groups.length - g;
    for (; g < app.groups.length; g++) {
      const group = app.groups[g];
      let passes = 0;
      let fails = 0;
      let j = 0;
      if (answer !== null) {
        passes = passes0;
        fails = fails0;
        j = j0;
      }
      for (; j < group.limits.length; j++) {
        const limit = limits[group.limits[j]];
        let r: Checked;
        if (answer !== null) {
          r = answer;
          answer = null;
        } else {
          const got = checkLimit(limit, task, checkSchedule, now, io, budget);
          if (got instanceof Promise)
            // the continuation is made in a function of its own: a closure here would have every
            // call of this one allocate a context for the arguments it captures
            return resumeAfter(
              got,
              applications,
              limits,
              classified,
              task,
              checkSchedule,
              now,
              io,
              trace,
              budget,
              lines,
              start,
              a,
              g,
              j,
              passes,
              fails,
            );
          r = got;
        }
        trace?.push({ limit: limit.name, passed: r.passed, reasons: r.reasons });
        if (r.passed) {
          passes++;
          lines.addAfterNewline(group.passLines[j]);
        } else {
          fails++;
          lines.add(indent(group.failPrefixes[j] + r.reasons.join("; ")));
        }
      }
      const ok = groupPasses(group.require, passes, fails);
      lines.addAfterNewline(group.wantLines[passes]);
      if (!ok) break;
      groupsFailed--;
    }
    const appPassed = (groupsFailed === 0) !== app.invert;
    lines.addAfterNewline(appPassed ? app.passedLine : app.failedLine);
    if (appPassed) {
      lines.addAfterNewline("\nPassed one application.  Stopping.");
      passed = true;
      break;
    }
    if (app.stopOnFailure) {
      lines.addAfterNewline("\nFailed; stop forced");
      break;
    }
  }
  if (lines.count === start) lines.add("");
  return passed ? PASSED : FAILED;
}
