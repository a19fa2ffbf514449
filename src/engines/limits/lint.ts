/**
 * Limits lint: identifiers, classifiers and limits nothing uses, applications
 * an earlier one always stops before, jq limits whose answer is constant, and
 * CIDR lists another list (or entry) covers entirely. Places are the
 * `line:column` of the entry in the file as written.
 */
import { BUDGET_EXCEEDED_MESSAGE, BudgetExceeded, Budget } from "../common/budget.js";
import { jsonPlaces } from "../common/json-places.js";
import { isJsonObject, type Json, type JsonObject } from "../common/json.js";
import { ENTRY_UNITS, finding, LintWork, type LintFinding } from "../common/lint.js";
import type { Steps } from "../common/slices.js";
import { compileJqText, scriptText, type JqSpec } from "./jq-bridge.js";
import { isConstantJq } from "./jq-constant.js";
import { lintCidrLists } from "./lint-cidr.js";

/** Work one constant jq limit may spend when it is run once to tell its answer. */
const CONSTANT_RUN_BUDGET = 100_000;

interface Named {
  readonly name: string;
}

function entries<T>(config: JsonObject, key: string): T[] {
  const v = config[key];
  return Array.isArray(v) ? (v as unknown as T[]) : [];
}

/** All the jq script texts of a configuration (rewrite, priority, jq identifiers and limits), for name searches. */
function scriptTexts(config: JsonObject): string[] {
  const out: string[] = [];
  const add = (spec: Json | undefined) => {
    if (isJsonObject(spec) && (typeof spec.script === "string" || Array.isArray(spec.script)))
      out.push(scriptText(spec as unknown as JqSpec));
  };
  add(config.rewrite);
  add(config.priority);
  for (const e of [...entries<JsonObject>(config, "identifiers"), ...entries<JsonObject>(config, "limits")])
    if (e.type === "jq") add(e.data);
  return out;
}

/**
 * The answer a constant jq limit gives every task, in pScheduler's terms, or
 * null when it cannot be told within the bound; the units its run spent are
 * charged to `work`.
 */
function constantAnswer(spec: JqSpec, work: LintWork): string | null {
  const c = compileJqText(scriptText(spec), (spec as unknown as JsonObject).args);
  if (!c.ok) return null;
  const budget = new Budget(CONSTANT_RUN_BUDGET);
  try {
    const r = budget.run(() => c.value.first({}, 0));
    if (r.kind === "value" && r.value === true) return "it passes every task";
    if (r.kind === "value" && typeof r.value === "string") return `it fails every task with "${r.value}"`;
    if (r.kind === "value" && r.value === false) return "it fails every task";
    if (r.kind === "error" && r.message === BUDGET_EXCEEDED_MESSAGE) return null;
    if (r.kind === "error") return `it fails every task ("Failed to process task: ${r.message}")`;
    return "its answer is the same for every task";
  } catch (e) {
    if (e instanceof BudgetExceeded) return null;
    throw e;
  } finally {
    work.charge(Math.min(budget.used, CONSTANT_RUN_BUDGET));
  }
}

/** Limits that pass or fail whatever the task (pass-fail, or inverted pass-fail), by name. */
function fixedLimits(limits: readonly JsonObject[]): Map<string, boolean> {
  const out = new Map<string, boolean>();
  for (const l of limits) {
    if (l.type !== "pass-fail" || !isJsonObject(l.data) || typeof l.data.pass !== "boolean") continue;
    out.set(String(l.name), l.data.pass !== (l.invert === true));
  }
  return out;
}

type HowMany = "none" | "one" | "any" | "all";

/** Whether an application surely passes (true), surely fails (false) or may do either (null). */
function applicationOutcome(app: JsonObject, fixed: ReadonlyMap<string, boolean>): boolean | null {
  const groups = Array.isArray(app.apply) ? (app.apply as JsonObject[]) : [];
  let all = true;
  for (const g of groups) {
    const names = Array.isArray(g.limits) ? (g.limits as string[]) : [];
    if (!names.every((n) => fixed.has(n))) return null;
    const passes = names.filter((n) => fixed.get(n) === true).length;
    const fails = names.length - passes;
    const require = (g.require ?? "all") as HowMany;
    const ok =
      require === "none"
        ? passes === 0
        : require === "one"
          ? passes === 1
          : require === "any"
            ? passes > 0
            : fails === 0;
    if (!ok) {
      all = false;
      break;
    }
  }
  return all !== (app.invert === true);
}

/** Whether a classifier holds for every requester: it requires any of its identifiers and one is `always`. */
function classifiesEverybody(
  name: string | undefined,
  classifiers: ReadonlyMap<unknown, JsonObject>,
  alwaysIds: ReadonlySet<string>,
): boolean {
  if (name === undefined) return true;
  const c = classifiers.get(name);
  if (c === undefined || !Array.isArray(c.identifiers)) return false;
  const require = c.require ?? "any";
  const ids = c.identifiers as string[];
  if (require === "any") return ids.some((i) => alwaysIds.has(i));
  if (require === "all") return ids.length > 0 && ids.every((i) => alwaysIds.has(i));
  return false;
}

/**
 * Lints a limits configuration (`config`: the comment-free, clone-merged form
 * the engine compiled; `source`: its text), as resumable work: it yields when
 * its counted work fills a slice.
 */
export function* lintLimits(source: string, config: JsonObject, work = new LintWork()): Steps<LintFinding[]> {
  const out: LintFinding[] = [];
  const places = jsonPlaces(source);
  yield;
  const identifiers = entries<JsonObject & Named>(config, "identifiers");
  const classifiers = entries<JsonObject & Named>(config, "classifiers");
  const limits = entries<JsonObject & Named>(config, "limits");
  const applications = entries<JsonObject>(config, "applications");
  const scripts = scriptTexts(config);
  const scriptChars = scripts.reduce((n, s) => n + s.length, 0);
  // a name search reads every script: charged, and taken as found once the bound is spent
  const named = (name: string) =>
    !work.charge(scriptChars) || scripts.some((s) => s.includes(JSON.stringify(name)));

  const usedIds = new Set(
    classifiers.flatMap((c) => (Array.isArray(c.identifiers) ? (c.identifiers as string[]) : [])),
  );
  for (let i = 0; i < identifiers.length; i++) {
    const e = identifiers[i];
    if (work.due(ENTRY_UNITS)) yield;
    if (!usedIds.has(e.name))
      out.push(
        finding(
          "limits_unused_identifier",
          "info",
          `identifier '${e.name}' is defined but no classifier uses it`,
          places.place(`/identifiers/${i}`),
        ),
      );
  }
  const usedClassifiers = new Set(
    applications.map((a) => a.classifier).filter((c): c is string => typeof c === "string"),
  );
  for (let i = 0; i < classifiers.length; i++) {
    const c = classifiers[i];
    if (work.due(ENTRY_UNITS)) yield;
    if (!usedClassifiers.has(c.name) && !named(c.name))
      out.push(
        finding(
          "limits_unused_classifier",
          "info",
          `classifier '${c.name}' is defined but no application uses it and no script names it`,
          places.place(`/classifiers/${i}`),
        ),
      );
  }
  const usedLimits = new Set(
    applications.flatMap((a) =>
      (Array.isArray(a.apply) ? (a.apply as JsonObject[]) : []).flatMap((g) =>
        Array.isArray(g.limits) ? (g.limits as string[]) : [],
      ),
    ),
  );
  const cloned = cloneSources(source);
  yield;
  for (let i = 0; i < limits.length; i++) {
    const l = limits[i];
    // a jq limit's script is parsed to tell whether it reads the task: a few entries' worth
    if (work.due(4 * ENTRY_UNITS)) yield;
    if (!usedLimits.has(l.name) && !cloned.has(l.name))
      out.push(
        finding(
          "limits_unused_limit",
          "info",
          `limit '${l.name}' is defined but no application applies it`,
          places.place(`/limits/${i}`),
        ),
      );
    if (
      l.type === "jq" &&
      isJsonObject(l.data) &&
      work.charge(scriptText(l.data as unknown as JqSpec).length)
    ) {
      const spec = l.data as unknown as JqSpec;
      const args = isJsonObject(l.data.args) ? Object.keys(l.data.args) : [];
      if (isConstantJq(scriptText(spec), args)) {
        const answer = constantAnswer(spec, work);
        out.push(
          finding(
            "limits_constant_jq",
            "warning",
            `limit '${l.name}': the jq script never reads the task${answer === null ? "" : `, so ${answer}`}`,
            places.place(`/limits/${i}/data/script`),
          ),
        );
      }
    }
  }

  // an application that applies to everybody and always stops the walk hides the ones after it
  const fixed = fixedLimits(limits);
  const alwaysIds = new Set(identifiers.filter((e) => e.type === "always").map((e) => e.name));
  const classifierByName = new Map<unknown, JsonObject>();
  for (const c of classifiers) if (!classifierByName.has(c.name)) classifierByName.set(c.name, c);
  let stopper: { index: number; why: string } | null = null;
  for (let i = 0; i < applications.length; i++) {
    const a = applications[i];
    if (work.due(ENTRY_UNITS)) yield;
    const label = `application ${i}${typeof a.description === "string" ? ` ('${a.description}')` : ""}`;
    if (stopper !== null) {
      out.push(
        finding(
          "limits_unreachable_application",
          "warning",
          `${label} is never reached: application ${stopper.index} ${stopper.why}`,
          places.place(`/applications/${i}`),
        ),
      );
      continue;
    }
    if (
      !classifiesEverybody(
        typeof a.classifier === "string" ? a.classifier : undefined,
        classifierByName,
        alwaysIds,
      )
    )
      continue;
    const outcome = applicationOutcome(a, fixed);
    const who =
      a.classifier === undefined
        ? "applies to every requester"
        : `applies to every requester (classifier '${String(a.classifier)}' always identifies)`;
    if (outcome === true)
      stopper = { index: i, why: `${who} and always passes ("Passed one application.  Stopping.")` };
    else if (a["stop-on-failure"] === true)
      stopper = {
        index: i,
        why: `${who} and has stop-on-failure, so it stops the walk whether it passes or fails`,
      };
  }

  out.push(...(yield* lintCidrLists(identifiers, places, work)));
  return out;
}

/** The names other limits clone (a limit only cloned is a template, not unused). */
function cloneSources(source: string): Set<string> {
  const out = new Set<string>();
  for (const m of source.matchAll(/"clone"\s*:\s*("(?:[^"\\]|\\.)*")/g)) {
    try {
      out.add(JSON.parse(m[1]) as string);
    } catch {
      // not a name: nothing to record
    }
  }
  return out;
}
