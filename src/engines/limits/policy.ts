/**
 * Loading a limits configuration: the schema check, then the load-time checks
 * of pScheduler in their order, producing the ready-to-decide policy (every
 * name resolved to an index, every evaluator compiled).
 */
import { closestName } from "../common/did-you-mean.js";
import type { PackedRanges } from "../common/cidr-ranges.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { applicationLines, groupLines } from "./applications.js";
import {
  compileIdentifier,
  type Identifier,
  type IdentifierEntry,
  type UrlSource,
  urlSourceOf,
} from "./identifiers.js";
import { readsClock, type DataError, type JqSpec, type ScriptError } from "./jq-bridge.js";
import { compileLimitType, type LimitEvaluator } from "./limit-types.js";
import { pyNumber, pyStr, pyTypeName } from "./python-text.js";
import { finish, jsonUnits, Pace, type Steps } from "../common/slices.js";
import { CONFIGURATION_SCHEMAS, firstErrorSteps, schemaErrorText } from "./schema.js";
import { compilePrioritizer, compileRewriter, type Prioritizer, type Rewriter } from "./scripts.js";
import { cloneJson } from "../common/json.js";

/** A load failure: pScheduler's message and where in the file it points. */
export interface LoadError {
  readonly message: string;
  /** A JSON pointer into the configuration. */
  readonly at: string;
  readonly code: string;
  /** For a jq script that does not compile: the character of the string at `at` the error points at. */
  readonly index?: number | null;
  /** The known name closest to a wrong one, when one is close. */
  readonly suggestion?: string;
}

/** Group requirement of classifiers and application groups. */
export type HowMany = "none" | "one" | "any" | "all";

/** A compiled limit. */
export interface Limit {
  readonly name: string;
  readonly invert: boolean;
  readonly evaluator: LimitEvaluator;
}

/** A compiled classifier: identifier indexes (repeats kept, they count twice). */
export interface Classifier {
  readonly name: string;
  readonly identifiers: readonly number[];
  readonly require: HowMany;
}

/** A compiled application group. */
export interface Group {
  readonly require: HowMany;
  readonly limits: readonly number[];
  readonly names: readonly string[];
  /**
   * Per limit, prepared at load: its diagnostic line when it passes (after its newline, as
   * DiagLines.addAfterNewline takes it), and the start of the one when it fails (without).
   */
  readonly passLines: readonly string[];
  readonly failPrefixes: readonly string[];
  /** By the number of its limits that passed: the group's closing line, after its newline. */
  readonly wantLines: readonly string[];
}

/** A compiled application. */
export interface Application {
  readonly description: string;
  /** Classifier index, or -1 when the application applies to everybody. */
  readonly classifier: number;
  readonly groups: readonly Group[];
  readonly stopOnFailure: boolean;
  readonly invert: boolean;
  /** Its diagnostic lines, made at load, each after its newline: the heading, and the closing line when it passes and when it fails. */
  readonly heading: string;
  readonly passedLine: string;
  readonly failedLine: string;
}

/** The ready-to-decide limits policy. */
export interface LimitsPolicy {
  readonly identifiers: readonly Identifier[];
  readonly classifiers: readonly Classifier[];
  readonly rewriter: Rewriter | null;
  readonly limits: readonly Limit[];
  readonly applications: readonly Application[];
  readonly prioritizer: Prioritizer | null;
  readonly urlSources: readonly UrlSource[];
  /** True when a decision-time jq script may read the clock (`now`): no verdict is then cacheable. */
  readonly readsClock: boolean;
  /** Each identifier's and each classifier's name as JSON text, written at load for the verdicts that list them. */
  readonly identifierNamesJson: readonly string[];
  readonly classifierNamesJson: readonly string[];
  /** The normalized configuration (comments removed, clones merged), as stored in the bundle. */
  readonly source: JsonObject;
}

/** Arbiter names the entry a message is about where pScheduler's text does not: `limit "x": <text>`. */
function named(kind: string, name: string, text: string): string {
  return `${kind} "${name}": ${text}`;
}

/** A schema error inside a named identifier, classifier or limit, named by it (pScheduler's text names only the index). */
function entryName(config: JsonObject, pointer: string, text: string): string {
  const m = /^\/(identifiers|classifiers|limits)\/(\d+)(?:\/|$)/.exec(pointer);
  if (m === null) return text;
  const list = config[m[1]];
  const entry = Array.isArray(list) ? list[Number(m[2])] : undefined;
  if (!isJsonObject(entry) || typeof entry.name !== "string") return text;
  return named(m[1].slice(0, -1), entry.name, text);
}

/** Who refers to an unknown name, for the message: `application 0 ("Defaults")`, at most three, then how many more. */
function referrers(who: readonly string[]): string {
  const shown = who.slice(0, 3).join(", ");
  return who.length > 3 ? `${shown} and ${who.length - 3} more` : shown;
}

/**
 * Arbiter's addition to pScheduler's text for unknown names: who refers to
 * each and, when a known name is close, the suggestion.
 */
function unknownNames(
  kind: string,
  unknown: ReadonlyMap<string, string[]>,
  known: Iterable<string>,
  near: string[],
): string {
  let out = "";
  for (const [name, who] of unknown) {
    const suggestion = closestName(name, known);
    if (suggestion !== undefined) near.push(suggestion);
    out += `.  ${kind} "${name}" is referred to by ${referrers(who)}${suggestion === undefined ? "" : ` (did you mean \`${suggestion}\`?)`}`;
  }
  return out;
}

/** A JSON pointer's reference token: `~` and `/` escaped. */
function token(key: string | number): string {
  return String(key).replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A script that did not compile, at the string holding it under `base`, named by `prefix`. */
function scriptFail(prefix: string, e: ScriptError, base: string, code: string): Result<never, LoadError> {
  return err({
    message: `${prefix}${e.message}`,
    at: [base, ...e.path.map(token)].join("/"),
    code,
    index: e.index,
  });
}

function fail(
  message: string,
  at: string,
  code = "limits_invalid",
  suggestion?: string,
): Result<never, LoadError> {
  return err(suggestion === undefined ? { message, at, code } : { message, at, code, suggestion });
}

/** A type's data check failing: a script error at its place, pScheduler's text named by the entry otherwise. */
function dataFail(
  kind: string,
  name: string,
  e: DataError,
  dataAt: string,
  code: string,
): Result<never, LoadError> {
  if (typeof e !== "string") return scriptFail(`${kind} "${name}": `, e, dataAt, code);
  return fail(named(kind, name, e), dataAt, code);
}

/** Chooses the schema version as pScheduler does (`%d` formatting of the value). */
function schemaVersion(config: JsonObject): Result<number, LoadError> {
  const s: Json | undefined = config.schema;
  if (s === undefined) return ok(1);
  if (typeof s === "boolean") return ok(s ? 1 : 0);
  if (typeof s !== "number")
    return fail(
      `%d format: a real number is required, not ${pyTypeName(s)}`,
      "/schema",
      "limits_invalid_schema",
    );
  return ok(Math.trunc(s));
}

/** Deep-merges clone data the way pScheduler does: objects merge, everything else replaces. */
function mergeData(base: Json, over: Json): Json {
  if (!isJsonObject(base) || !isJsonObject(over)) return cloneJson(over);
  const out: JsonObject = cloneJson(base);
  for (const [k, v] of Object.entries(over)) {
    out[k] = k in out && isJsonObject(out[k]) && isJsonObject(v) ? mergeData(out[k], v) : cloneJson(v);
  }
  return out;
}

function requireKey(entry: JsonObject, key: string, at: string): LoadError | null {
  return key in entry ? null : { message: `'${key}'`, at, code: "limits_invalid_limit" };
}

/** What compiling one entry (an identifier, a classifier, a limit, an application) counts toward a slice besides its size. */
const ENTRY_UNITS = 64;

/**
 * Work units of compiling one entry: ENTRY_UNITS and its size (jsonUnits: a
 * CIDR list's entries are read one by one), the size counted four times for a
 * jq entry (a jq compile costs more per character than any other reading here).
 */
function entryUnits(entry: Json): number {
  const units = jsonUnits(entry);
  return ENTRY_UNITS + (isJsonObject(entry) && entry.type === "jq" ? 4 * units : units);
}

/**
 * Validates and compiles a comment-free configuration into the decision-ready
 * policy; `packed` holds ip-cidr-list ranges prepared at compile time, by
 * identifier index, which are used instead of the identifier's CIDR text.
 */
export function buildPolicy(
  config: Json,
  packed: Readonly<Record<string, PackedRanges>> = {},
): Result<LimitsPolicy, LoadError> {
  return finish(buildPolicySteps(config, packed));
}

/**
 * {@link buildPolicy} as resumable work (common/slices.ts): the schema check
 * yields between the items of the configuration's lists, and the compile after
 * each identifier, classifier, limit (its jq program compiled) and
 * application once the entries' units ({@link entryUnits}) fill a slice. The
 * same result and the same first error as in one go.
 */
export function* buildPolicySteps(
  config: Json,
  packed: Readonly<Record<string, PackedRanges>> = {},
  pace: Pace = new Pace(),
): Steps<Result<LimitsPolicy, LoadError>> {
  if (!isJsonObject(config)) return fail("Invalid limit configuration: must be a JSON object", "");
  const version = schemaVersion(config);
  if (!version.ok) return version;
  const schema = CONFIGURATION_SCHEMAS[version.value];
  if (!schema) {
    return fail(
      `Unresolvable JSON pointer: 'local/LimitConfiguration_V${pyNumber(version.value)}'`,
      "/schema",
      "limits_invalid_schema",
    );
  }
  const se = yield* firstErrorSteps(schema, config, pace);
  if (se)
    return fail(
      entryName(config, se.pointer, `Invalid limit configuration: ${schemaErrorText(se)}`),
      se.pointer === "/" ? "" : se.pointer,
      "limits_invalid_schema",
    );

  // 1. Identifiers
  const identifiers: Identifier[] = [];
  const identIndex = new Map<string, number>();
  const urlSources: UrlSource[] = [];
  const idEntries = config.identifiers as unknown as IdentifierEntry[];
  for (let i = 0; i < idEntries.length; i++) {
    const entry = idEntries[i];
    const at = `/identifiers/${i}`;
    if (identIndex.has(entry.name))
      return fail(`Duplicate identifier '${entry.name}'`, at, "limits_duplicate_identifier");
    identIndex.set(entry.name, i);
    const c = compileIdentifier(entry, Object.hasOwn(packed, String(i)) ? packed[String(i)] : undefined);
    if (!c.ok) {
      if (typeof c.error === "string" && c.error.startsWith("Identifier '"))
        return fail(c.error, `${at}/type`, "limits_invalid_identifier");
      return dataFail("identifier", entry.name, c.error, `${at}/data`, "limits_invalid_identifier");
    }
    identifiers.push(c.value);
    if (entry.type === "ip-cidr-list-url") {
      const src = urlSourceOf(entry.data);
      if (src.ok) urlSources.push(src.value);
    }
    if (pace.spend(entryUnits(entry as unknown as Json))) yield;
  }

  // 2. Classifiers
  const classifiers: Classifier[] = [];
  const classIndex = new Map<string, number>();
  const clEntries = config.classifiers as unknown as {
    name: string;
    identifiers: string[];
    require?: HowMany;
  }[];
  for (let i = 0; i < clEntries.length; i++) {
    const entry = clEntries[i];
    if (classIndex.has(entry.name))
      return fail(`Duplicate classifier '${entry.name}'`, `/classifiers/${i}`, "limits_duplicate_classifier");
    const unknown = [...new Set(entry.identifiers.filter((n) => !identIndex.has(n)))];
    if (unknown.length > 0) {
      const near = unknown
        .map((n) => [n, closestName(n, identIndex.keys())] as const)
        .filter(([, c]) => c !== undefined);
      const hint =
        near.length === 0
          ? ""
          : ` (did you mean ${near.map(([n, c]) => (unknown.length === 1 ? `\`${c}\`` : `\`${c}\` for \`${n}\``)).join(", ")}?)`;
      const message = named("classifier", entry.name, `Unknown identifiers: ${unknown.join(", ")}${hint}`);
      return fail(message, `/classifiers/${i}/identifiers`, "limits_unknown_identifier", near[0]?.[1]);
    }
    classIndex.set(entry.name, i);
    classifiers.push({
      name: entry.name,
      identifiers: entry.identifiers.map((n) => identIndex.get(n) as number),
      require: entry.require ?? "any",
    });
    if (pace.spend(ENTRY_UNITS + entry.identifiers.length)) yield;
  }

  // 3. Rewriter
  let rewriter: Rewriter | null = null;
  if (config.rewrite !== undefined) {
    const r = compileRewriter(config.rewrite as JsonObject);
    if (!r.ok) return scriptFail("", r.error, "/rewrite", "limits_invalid_rewrite");
    rewriter = r.value;
  }

  // 4. Limits
  const limits: Limit[] = [];
  const limitIndex = new Map<string, number>();
  const normalizedLimits: Json[] = [];
  const rawLimits = config.limits as Json[];
  for (let i = 0; i < rawLimits.length; i++) {
    const at = `/limits/${i}`;
    const raw = rawLimits[i];
    if (!isJsonObject(raw))
      return fail("list indices must be integers or slices, not str", at, "limits_invalid_limit");
    const missingName = requireKey(raw, "name", at);
    if (missingName) return err(missingName);
    const name = pyStr(raw.name);
    if (limitIndex.has(name)) return fail(`Duplicate limit '${name}'`, at, "limits_duplicate_limit");
    let type: Json | undefined;
    let data: Json | undefined;
    if ("clone" in raw) {
      const sourceName = pyStr(raw.clone);
      const src = limitIndex.get(sourceName);
      if (src === undefined) {
        const near = closestName(sourceName, limitIndex.keys());
        const hint = near === undefined ? "" : ` (did you mean \`${near}\`?)`;
        return fail(
          `Limit '${name}': Unable to clone undefined limit '${sourceName}'${hint}`,
          `${at}/clone`,
          "limits_unknown_clone",
          near,
        );
      }
      const missing = requireKey(raw, "description", at) ?? requireKey(raw, "data", at);
      if (missing) return err({ ...missing, message: named("limit", name, missing.message) });
      const srcEntry = normalizedLimits[src] as JsonObject;
      type = srcEntry.type;
      data = mergeData(srcEntry.data, raw.data);
    } else {
      const missing = requireKey(raw, "type", at) ?? requireKey(raw, "data", at);
      if (missing) return err({ ...missing, message: named("limit", name, missing.message) });
      type = raw.type;
      data = raw.data;
    }
    const c = compileLimitType(pyStr(type), data);
    if (c === null)
      return fail(
        `Limit '${name}' has unsupported type '${pyStr(type)}'`,
        `${at}/type`,
        "limits_unknown_limit_type",
      );
    if (!c.ok) return dataFail("limit", name, c.error, `${at}/data`, "limits_invalid_limit");
    const invert = raw.invert === true;
    limitIndex.set(name, i);
    limits.push({ name, invert, evaluator: c.value });
    const norm: JsonObject = { name, description: raw.description ?? "", type, data };
    if (invert) norm.invert = true;
    normalizedLimits.push(norm);
    if (pace.spend(entryUnits(norm))) yield;
  }

  // 5. Applications
  const appEntries = config.applications as unknown as {
    description?: string;
    classifier?: string;
    apply: { require: HowMany; limits: string[] }[];
    "stop-on-failure"?: boolean;
    invert?: boolean;
  }[];
  const unknownClassifiers = new Map<string, string[]>();
  const unknownLimits = new Map<string, string[]>();
  const refer = (unknown: Map<string, string[]>, name: string, who: string): void => {
    const list = unknown.get(name);
    if (list === undefined) unknown.set(name, [who]);
    else if (list[list.length - 1] !== who) list.push(who);
  };
  for (let i = 0; i < appEntries.length; i++) {
    const a = appEntries[i];
    if (pace.spend(ENTRY_UNITS)) yield;
    const who = `application ${i}${a.description !== undefined ? ` ("${a.description}")` : ""}`;
    if (a.classifier !== undefined && !classIndex.has(a.classifier))
      refer(unknownClassifiers, a.classifier, who);
    for (const g of a.apply) for (const l of g.limits) if (!limitIndex.has(l)) refer(unknownLimits, l, who);
  }
  if (unknownClassifiers.size > 0 || unknownLimits.size > 0) {
    const parts: string[] = [];
    if (unknownClassifiers.size > 0)
      parts.push(`Unknown classifiers: ${[...unknownClassifiers.keys()].join(", ")}`);
    if (unknownLimits.size > 0) parts.push(`Unknown limits: ${[...unknownLimits.keys()].join(", ")}`);
    const near: string[] = [];
    const hints =
      unknownNames("classifier", unknownClassifiers, classIndex.keys(), near) +
      unknownNames("limit", unknownLimits, limitIndex.keys(), near);
    return fail(parts.join(".  ") + hints, "/applications", "limits_unknown_reference", near[0]);
  }
  const applications: Application[] = [];
  for (const a of appEntries) {
    const description = a.description ?? "(No description)";
    applications.push({
      description,
      classifier: a.classifier === undefined ? -1 : (classIndex.get(a.classifier) as number),
      groups: a.apply.map((g, j) => ({
        require: g.require,
        names: g.limits,
        limits: g.limits.map((l) => limitIndex.get(l) as number),
        ...groupLines(j, g.limits, g.require),
      })),
      stopOnFailure: a["stop-on-failure"] === true,
      invert: a.invert === true,
      ...applicationLines(description, a.invert === true),
    });
    if (pace.spend(ENTRY_UNITS + a.apply.reduce((n, g) => n + g.limits.length, 0))) yield;
  }

  // 6. Prioritizer
  let prioritizer: Prioritizer | null = null;
  if (config.priority !== undefined) {
    const p = compilePrioritizer(config.priority as JsonObject);
    if (!p.ok) return scriptFail("", p.error, "/priority", "limits_invalid_priority");
    prioritizer = p.value;
  }

  const source: JsonObject = { ...config, limits: normalizedLimits };
  const scripts: JqSpec[] = [
    ...idEntries.filter((e) => e.type === "jq").map((e) => e.data as unknown as JqSpec),
    ...(normalizedLimits as JsonObject[])
      .filter((l) => l.type === "jq")
      .map((l) => l.data as unknown as JqSpec),
    ...[config.rewrite, config.priority].filter((s) => s !== undefined).map((s) => s as unknown as JqSpec),
  ];
  const clock = scripts.some(readsClock);
  return ok({
    identifiers,
    classifiers,
    rewriter,
    limits,
    applications,
    prioritizer,
    urlSources,
    readsClock: clock,
    identifierNamesJson: identifiers.map((i) => JSON.stringify(i.name)),
    classifierNamesJson: classifiers.map((c) => JSON.stringify(c.name)),
    source,
  });
}
