/**
 * The task values the limits diff tries: each test type a `test-type` or
 * `test` limit names (and those jq scripts compare `.test.type` with) plus a
 * fresh one, and per task path the boundary values: a `test` limit's range
 * bounds ± 1 (SI numbers as numbers, ISO 8601 durations ± 1 s), its string
 * match's witnesses, booleans, listed integers and one past them, IP versions;
 * what jq limits, the rewrite and the priority script compare the task with;
 * the requested priority around 0.
 */
import { countBoundary } from "../common/diff-requests.js";
import { parseIsoDuration } from "../common/iso8601.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { jsonUnits, type Pace, type Steps } from "../common/slices.js";
import { parseSiNumber } from "../common/si-number.js";
import type { StringMatchSpec } from "../common/string-match.js";
import { addPathValue, harvestJq, isoSeconds, type PathValues } from "./diff-jq-literals.js";
import { FRESH, matchWitnesses } from "./diff-requesters.js";
import type { JqSpec } from "./jq-bridge.js";

/** What the task side found in both configurations. */
export interface TaskValues {
  types: Set<string>;
  /** Values per task path (the test type's path excluded). */
  paths: PathValues;
  /** Scripts (jq limits, rewrite, priority) whose literals were searched. */
  scripts: number;
  /** url-fetch limits (their server's answer is not known offline). */
  urlFetches: number;
  /** Whether a script or limit may read the hints (the rewrite's `hint`, a url-fetch limit). */
  hintsRead: boolean;
  hasPriority: boolean;
  /** Which paths matter for which test types: a script that compares `.test.type` with literals for those (and a fresh type), a `test` limit for its test, otherwise (null) for every type. */
  groups: { types: Set<string> | null; paths: Set<string> }[];
  /** What each script (by its JSON text) was found to compare, so a script both files hold is parsed once. */
  harvested: Map<string, PathValues>;
}

const TYPE_PATH = "test\u0000type";
/** Paths that hold other paths' values: not varied as a whole. */
const CONTAINERS = new Set(["", "test", "test\u0000spec"]);

function numberEdges(n: number | null, add: (v: Json) => void): void {
  if (n === null) return;
  for (const d of [-1, 0, 1]) add(n + d);
}

function durationEdges(text: Json, add: (v: Json) => void): void {
  const d = parseIsoDuration(text);
  if (!d.ok) return;
  const s = d.value / 1e6;
  for (const x of [s - 1, s, s + 1]) {
    const t = isoSeconds(x);
    if (t !== null) add(t);
  }
}

/** The values one `test` limit constraint tells apart. */
function constraintValues(c: JsonObject, add: (v: Json) => void, b: Record<string, number>): void {
  if (isJsonObject(c.range)) {
    const { lower, upper } = c.range;
    const durations =
      typeof lower === "string" && typeof upper === "string" && /^P/.test(lower) && /^P/.test(upper);
    for (const bound of [lower, upper]) {
      if (durations) durationEdges(bound, add);
      else if (typeof bound === "number" || typeof bound === "string") numberEdges(parseSiNumber(bound), add);
    }
    countBoundary(b, "threshold ±1", 2);
    return;
  }
  if (Array.isArray(c.enumeration) || c.match === 4 || c.match === 6) {
    add(4);
    add(6);
    countBoundary(b, "enumeration value", 2);
    return;
  }
  if (typeof c.match === "boolean") {
    add(true);
    add(false);
    countBoundary(b, "enumeration value", 2);
    return;
  }
  if (Array.isArray(c.match)) {
    const ints = c.match.filter((x): x is number => typeof x === "number");
    for (const x of ints) add(x);
    if (ints.length > 0) add(Math.max(...ints) + 1);
    countBoundary(b, "enumeration value", ints.length + 1);
    return;
  }
  if (isJsonObject(c.match)) {
    const w = matchWitnesses(c.match as unknown as StringMatchSpec);
    for (const s of w) add(s);
    countBoundary(b, "match witness", w.length);
  }
}

function isSpec(v: Json | undefined): v is JsonObject {
  return (
    isJsonObject(v ?? null) &&
    (typeof (v as JsonObject).script === "string" || Array.isArray((v as JsonObject).script))
  );
}

/** Adds one configuration's test types, task path values and script counts to `into`, a slice of limits at a time (common/slices.ts). */
export function* collectTasks(
  config: JsonObject,
  into: TaskValues,
  b: Record<string, number>,
  pace: Pace,
): Steps<void> {
  const harvest = (spec: Json | undefined): void => {
    if (!isSpec(spec)) return;
    into.scripts++;
    const text = JSON.stringify(spec);
    let found = into.harvested.get(text);
    if (found === undefined) {
      into.harvested.set(text, (found = new Map()));
      harvestJq(spec as unknown as JqSpec, found);
    }
    const named = found.get(TYPE_PATH)?.values.filter((v): v is string => typeof v === "string") ?? [];
    into.groups.push({
      types: named.length > 0 ? new Set([...named, FRESH]) : null,
      paths: new Set(found.keys()),
    });
    for (const { path, values } of found.values()) for (const v of values) addPathValue(into.paths, path, v);
  };
  for (const l of Array.isArray(config.limits) ? config.limits : []) {
    // a jq limit's script is parsed for its literals: its size, four times, as the compile counts it
    if (pace.spend(64 + (isJsonObject(l) && l.type === "jq" ? 4 : 1) * jsonUnits(l))) yield;
    if (!isJsonObject(l) || !isJsonObject(l.data)) continue;
    const data = l.data;
    if (l.type === "test-type" && Array.isArray(data.types)) {
      for (const t of data.types) if (typeof t === "string") into.types.add(t);
    } else if (l.type === "test" && typeof data.test === "string") {
      into.types.add(data.test);
      if (!isJsonObject(data.limit)) continue;
      const group = { types: new Set([data.test]), paths: new Set<string>() };
      into.groups.push(group);
      for (const [param, c] of Object.entries(data.limit)) {
        if (!isJsonObject(c)) continue;
        const path = ["test", "spec", param];
        group.paths.add(path.join("\u0000"));
        constraintValues(c, (v) => addPathValue(into.paths, path, v), b);
      }
    } else if (l.type === "jq") harvest(data);
    else if (l.type === "url-fetch") {
      into.urlFetches++;
      into.hintsRead = true;
    }
  }
  if (isSpec(config.rewrite)) {
    harvest(config.rewrite);
    if (JSON.stringify(config.rewrite.script).includes("hint")) into.hintsRead = true;
  }
  if (isSpec(config.priority)) {
    harvest(config.priority);
    into.hasPriority = true;
  }
}

/** A fresh, empty TaskValues. */
export function emptyTaskValues(): TaskValues {
  return {
    types: new Set(),
    paths: new Map(),
    scripts: 0,
    urlFetches: 0,
    hintsRead: false,
    hasPriority: false,
    groups: [],
    harvested: new Map(),
  };
}

/** One path to vary, with its values and absence (undefined). */
export interface Dim {
  key: string;
  path: readonly string[];
  values: (Json | undefined)[];
}

/**
 * The task dimensions to vary: each path with its values, a fresh one where
 * it takes strings other than durations, and absence; `forType` picks the
 * ones that matter for a test type (see TaskValues.groups). The requested
 * priority is apart (`priorities`), tried on bare tasks only.
 */
export function taskDimensions(
  tv: TaskValues,
  b: Record<string, number>,
): { forType(type: string): Dim[]; priorities: number[] } {
  for (const v of tv.paths.get(TYPE_PATH)?.values ?? []) if (typeof v === "string") tv.types.add(v);
  tv.types.add(FRESH);
  countBoundary(b, "test type", tv.types.size);
  const priorities = new Set<number>(tv.hasPriority ? [-1, 0, 1] : []);
  const dims: Dim[] = [];
  for (const [key, { path, values }] of tv.paths) {
    if (key === "priority") {
      if (tv.hasPriority) for (const v of values) if (typeof v === "number") priorities.add(v);
      continue;
    }
    if (
      key === TYPE_PATH ||
      CONTAINERS.has(key) ||
      path[0] === "run_schedule" ||
      path.some((k) => k.startsWith("__"))
    )
      continue;
    const out: (Json | undefined)[] = values.filter((v) => v !== null);
    if (out.some((v) => typeof v === "string" && !/^P/.test(v)) && !out.includes(FRESH)) out.push(FRESH);
    out.push(undefined);
    dims.push({ key, path, values: out });
    countBoundary(b, "task path", 1);
  }
  countBoundary(b, "requested priority", priorities.size);
  const forType = (type: string): Dim[] => {
    const keys = new Set<string>();
    for (const g of tv.groups)
      if (g.types === null || g.types.has(type)) for (const k of g.paths) keys.add(k);
    return dims.filter((d) => keys.has(d.key));
  };
  return { forType, priorities: [...priorities] };
}

/** Sets `value` at `path` in a task (intermediate objects made); false when a value is in the way. */
export function setPath(task: JsonObject, path: readonly string[], value: Json): boolean {
  let o: JsonObject = task;
  for (let i = 0; i < path.length - 1; i++) {
    const next = o[path[i]];
    if (next === undefined) o = o[path[i]] = {};
    else if (isJsonObject(next)) o = next;
    else return false;
  }
  o[path[path.length - 1]] = value;
  return true;
}
