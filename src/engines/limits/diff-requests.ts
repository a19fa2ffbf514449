/**
 * Limits' diff requests: requester classes × tasks, plus runs. Requesters come
 * from the identifiers (diff-requesters.ts: CIDR range edges, hint witnesses,
 * local and fresh addresses), one per class of classifiers the two policies
 * put them in; tasks from the limits and scripts (diff-tasks.ts: test types,
 * range bounds ± 1, witnesses, script literals), every combination of a test
 * type's path values when they are few, else every pair of them; runs from
 * the schedule limits (diff-runs.ts). Tasks are open JSON and jq scripts
 * cannot be enumerated, so the answer is never exhaustive: limits can only be
 * searched, never proven equivalent.
 */
import { countBoundary, MAX_DIFF_REQUESTS, product, type DiffRequests } from "../common/diff-requests.js";
import type { Json, JsonObject } from "../common/json.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import type { LimitsRequest } from "./decide.js";
import { hintClassesSteps } from "./diff-requesters.js";
import { collectRuns, type Run } from "./diff-runs.js";
import { collectTasks, emptyTaskValues, setPath, taskDimensions, type Dim } from "./diff-tasks.js";
import { loadForDiff } from "./diff-context.js";
import type { LimitsCompiled } from "./engine.js";

/** A test type's path values are combined in full up to this many tasks; beyond, every pair of paths is. */
const MAX_FULL_PRODUCT = 256;

function taskOf(type: string, settings: readonly (readonly [Dim, Json | undefined])[]): JsonObject | null {
  const task: JsonObject = { test: { type, spec: {} } };
  for (const [d, v] of settings)
    if (v !== undefined && !setPath(task, d.path, structuredClone(v))) return null;
  return task;
}

/** The task variations of one test type: the full product of the dimensions when small, else every pair. */
function tasksFor(type: string, dims: readonly Dim[]): { tasks: JsonObject[]; full: boolean } {
  const size = dims.reduce((n, d) => n * d.values.length, 1);
  const tasks: JsonObject[] = [];
  const seen = new Set<string>();
  const push = (t: JsonObject | null): void => {
    if (t === null) return;
    const key = JSON.stringify(t);
    if (seen.has(key)) return;
    seen.add(key);
    tasks.push(t);
  };
  if (size <= MAX_FULL_PRODUCT) {
    const made = product(
      dims.map((d) => d.values),
      MAX_FULL_PRODUCT,
      (vs) =>
        taskOf(
          type,
          dims.map((d, i) => [d, vs[i]] as const),
        ),
    );
    made.out.forEach(push);
    return { tasks, full: true };
  }
  push(taskOf(type, []));
  for (let i = 0; i < dims.length; i++)
    for (let j = i + 1; j < dims.length; j++)
      for (const a of dims[i].values)
        for (const b of dims[j].values) push(taskOf(type, [[dims[i], a] as const, [dims[j], b] as const]));
  return { tasks, full: false };
}

/** The limits requests that reach the boundaries either compiled policy draws. */
export function limitsDiffRequests(a: LimitsCompiled, b: LimitsCompiled): DiffRequests<LimitsRequest> {
  return finish(limitsDiffRequestsSteps(a, b));
}

/**
 * {@link limitsDiffRequests} as resumable work (common/slices.ts): the
 * requester classes, each hint set classified under both policies, yield
 * once a slice of identifiers was evaluated; the tasks and requests between
 * pieces of that size.
 */
export function* limitsDiffRequestsSteps(
  a: LimitsCompiled,
  b: LimitsCompiled,
): Steps<DiffRequests<LimitsRequest>> {
  const pace = new Pace();
  const configs = [a.config, b.config] as const;
  const policies = [loadForDiff(a), loadForDiff(b)] as const;
  const boundaries: Record<string, number> = {};
  const why: string[] = [
    "limits is searched, never proven: a task is open JSON and a jq script's answers cannot be enumerated",
  ];
  const tv = emptyTaskValues();
  yield* collectTasks(configs[0], tv, boundaries, pace);
  yield* collectTasks(configs[1], tv, boundaries, pace);
  const dims = taskDimensions(tv, boundaries);
  const runs = new Map<string, Run>();
  const scheduleLimits = collectRuns(configs[0], runs) + collectRuns(configs[1], runs);
  countBoundary(boundaries, "run window", runs.size);
  if (tv.scripts > 0) {
    countBoundary(boundaries, "jq script", tv.scripts);
    why.push(
      `${tv.scripts} jq script(s) (limits, rewrite, priority): only the literals they compare the task with are tried`,
    );
  }
  if (tv.urlFetches > 0)
    why.push("a url-fetch limit: no server is asked offline, so it fails as for an unreachable server");
  if (scheduleLimits > 0)
    why.push(
      "schedule limits: their runs are tried with each test type's bare task only, and as one- or two-second runs",
    );
  const hints = yield* hintClassesSteps(configs, policies, tv.hintsRead, boundaries, pace);
  why.push(...hints.why);

  const tasks: JsonObject[] = [];
  const bare: JsonObject[] = [];
  let full = true;
  for (const type of tv.types) {
    const made = tasksFor(type, dims.forType(type));
    if (pace.spend(64 * (1 + made.tasks.length))) yield;
    tasks.push(...made.tasks);
    full &&= made.full;
    bare.push({ test: { type, spec: {} } });
    for (const p of dims.priorities) tasks.push({ test: { type, spec: {} }, priority: p });
  }
  if (!full)
    why.push(
      `a test type's path values make more than ${MAX_FULL_PRODUCT} combinations: every pair of paths is tried, not every combination`,
    );

  const prioritize = tv.hasPriority;
  const requests: LimitsRequest[] = [];
  const make = (h: JsonObject, task: JsonObject, run?: Run): LimitsRequest => {
    const r: LimitsRequest = { ...(h as { requester: string; server?: string }), task };
    if (run !== undefined) r.run = run;
    if (prioritize) r.prioritize = true;
    return r;
  };
  let complete = true;
  outer: for (const h of hints.hints) {
    for (const task of tasks) {
      if (requests.length >= MAX_DIFF_REQUESTS) {
        complete = false;
        break outer;
      }
      requests.push(make(h, task));
      if (pace.spend(64)) yield;
    }
    for (const run of runs.values())
      for (const task of bare) {
        if (requests.length >= MAX_DIFF_REQUESTS) {
          complete = false;
          break outer;
        }
        requests.push(make(h, task, run));
      }
  }
  if (!complete) why.push(`the combinations exceed ${MAX_DIFF_REQUESTS} requests`);
  return { requests, boundaries, exhaustive: false, why };
}
