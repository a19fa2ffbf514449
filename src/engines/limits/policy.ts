/**
 * Loading a limits configuration: the schema check, then the load-time checks
 * of pScheduler in their order, producing the ready-to-decide policy (every
 * name resolved to an index, every evaluator compiled).
 */
import { didYouMean } from "../common/did-you-mean.js";
import type { PackedRanges } from "../common/cidr-ranges.js";
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { err, ok, type Result } from "../common/result.js";
import { groupLines } from "./applications.js";
import { compileIdentifier, type Identifier, type IdentifierEntry, type UrlSource, urlSourceOf } from "./identifiers.js";
import { readsClock, type JqSpec } from "./jq-bridge.js";
import { compileLimitType, type LimitEvaluator } from "./limit-types.js";
import { pyNumber, pyStr, pyTypeName } from "./python-text.js";
import { CONFIGURATION_SCHEMAS, firstError, schemaErrorText } from "./schema.js";
import { compilePrioritizer, compileRewriter, type Prioritizer, type Rewriter } from "./scripts.js";
import { cloneJson } from "./source.js";

/** A load failure: pScheduler's message and where in the file it points. */
export interface LoadError {
  readonly message: string;
  readonly at: string;
  readonly code: string;
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
  /** Per limit, prepared at load: its diagnostic line when it passes, and the start of the one when it fails. */
  readonly passLines: readonly string[];
  readonly failPrefixes: readonly string[];
}

/** A compiled application. */
export interface Application {
  readonly description: string;
  /** Classifier index, or -1 when the application applies to everybody. */
  readonly classifier: number;
  readonly groups: readonly Group[];
  readonly stopOnFailure: boolean;
  readonly invert: boolean;
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
  /** The normalized configuration (comments removed, clones merged), as stored in the bundle. */
  readonly source: JsonObject;
}

/**
 * Arbiter's addition to pScheduler's text for an unknown name, when a known
 * name is close: who refers to it and the suggestion ("" otherwise, leaving
 * pScheduler's own text exactly).
 */
function nameHint(kind: string, name: string, known: Iterable<string>, referrer: string): string {
  const hint = didYouMean(name, known);
  return hint === "" ? "" : `.  ${kind} '${name}' is referred to by ${referrer}${hint}`;
}

function fail(message: string, at: string, code = "limits_invalid"): Result<never, LoadError> {
  return err({ message, at, code });
}

/** Chooses the schema version as pScheduler does (`%d` formatting of the value). */
function schemaVersion(config: JsonObject): Result<number, LoadError> {
  const s: Json | undefined = config.schema;
  if (s === undefined) return ok(1);
  if (typeof s === "boolean") return ok(s ? 1 : 0);
  if (typeof s !== "number") return fail(`%d format: a real number is required, not ${pyTypeName(s)}`, "/schema", "limits_invalid_schema");
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

/**
 * Validates and compiles a comment-free configuration into the decision-ready
 * policy; `packed` holds ip-cidr-list ranges prepared at compile time, by
 * identifier index, which are used instead of the identifier's CIDR text.
 */
export function buildPolicy(config: Json, packed: Readonly<Record<string, PackedRanges>> = {}): Result<LimitsPolicy, LoadError> {
  if (!isJsonObject(config)) return fail("Invalid limit configuration: must be a JSON object", "");
  const version = schemaVersion(config);
  if (!version.ok) return version;
  const schema = CONFIGURATION_SCHEMAS[version.value];
  if (!schema) {
    return fail(`Unresolvable JSON pointer: 'local/LimitConfiguration_V${pyNumber(version.value)}'`, "/schema", "limits_invalid_schema");
  }
  const se = firstError(schema, config);
  if (se) return fail(`Invalid limit configuration: ${schemaErrorText(se)}`, se.pointer === "/" ? "" : se.pointer, "limits_invalid_schema");

  // 1. Identifiers
  const identifiers: Identifier[] = [];
  const identIndex = new Map<string, number>();
  const urlSources: UrlSource[] = [];
  const idEntries = config.identifiers as unknown as IdentifierEntry[];
  for (let i = 0; i < idEntries.length; i++) {
    const entry = idEntries[i];
    const at = `/identifiers/${i}`;
    if (identIndex.has(entry.name)) return fail(`Duplicate identifier '${entry.name}'`, at, "limits_duplicate_identifier");
    identIndex.set(entry.name, i);
    const c = compileIdentifier(entry, Object.hasOwn(packed, String(i)) ? packed[String(i)] : undefined);
    if (!c.ok) return fail(c.error, c.error.startsWith("Identifier '") ? `${at}/type` : `${at}/data`, "limits_invalid_identifier");
    identifiers.push(c.value);
    if (entry.type === "ip-cidr-list-url") {
      const src = urlSourceOf(entry.data);
      if (src.ok) urlSources.push(src.value);
    }
  }

  // 2. Classifiers
  const classifiers: Classifier[] = [];
  const classIndex = new Map<string, number>();
  const clEntries = config.classifiers as unknown as { name: string; identifiers: string[]; require?: HowMany }[];
  for (let i = 0; i < clEntries.length; i++) {
    const entry = clEntries[i];
    if (classIndex.has(entry.name)) return fail(`Duplicate classifier '${entry.name}'`, `/classifiers/${i}`, "limits_duplicate_classifier");
    const unknown = [...new Set(entry.identifiers.filter((n) => !identIndex.has(n)))];
    if (unknown.length > 0) {
      const hints = unknown.map((n) => nameHint("identifier", n, identIndex.keys(), `classifier '${entry.name}'`));
      return fail(`Unknown identifiers: ${unknown.join(", ")}${hints.join("")}`, `/classifiers/${i}/identifiers`, "limits_unknown_identifier");
    }
    classIndex.set(entry.name, i);
    classifiers.push({
      name: entry.name,
      identifiers: entry.identifiers.map((n) => identIndex.get(n) as number),
      require: entry.require ?? "any",
    });
  }

  // 3. Rewriter
  let rewriter: Rewriter | null = null;
  if (config.rewrite !== undefined) {
    const r = compileRewriter(config.rewrite as JsonObject);
    if (!r.ok) return fail(r.error, "/rewrite/script", "limits_invalid_rewrite");
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
    if (!isJsonObject(raw)) return fail("list indices must be integers or slices, not str", at, "limits_invalid_limit");
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
        const hint = didYouMean(sourceName, limitIndex.keys());
        return fail(`Limit '${name}': Unable to clone undefined limit '${sourceName}'${hint}`, `${at}/clone`, "limits_unknown_clone");
      }
      const missing = requireKey(raw, "description", at) ?? requireKey(raw, "data", at);
      if (missing) return err(missing);
      const srcEntry = normalizedLimits[src] as JsonObject;
      type = srcEntry.type;
      data = mergeData(srcEntry.data, raw.data);
    } else {
      const missing = requireKey(raw, "type", at) ?? requireKey(raw, "data", at);
      if (missing) return err(missing);
      type = raw.type;
      data = raw.data;
    }
    const c = compileLimitType(pyStr(type), data);
    if (c === null) return fail(`Limit '${name}' has unsupported type '${pyStr(type)}'`, `${at}/type`, "limits_unknown_limit_type");
    if (!c.ok) return fail(c.error, `${at}/data`, "limits_invalid_limit");
    const invert = raw.invert === true;
    limitIndex.set(name, i);
    limits.push({ name, invert, evaluator: c.value });
    const norm: JsonObject = { name, description: raw.description ?? "", type, data };
    if (invert) norm.invert = true;
    normalizedLimits.push(norm);
  }

  // 5. Applications
  const appEntries = config.applications as unknown as {
    description?: string;
    classifier?: string;
    apply: { require: HowMany; limits: string[] }[];
    "stop-on-failure"?: boolean;
    invert?: boolean;
  }[];
  const unknownClassifiers = new Set<string>();
  const unknownLimits = new Set<string>();
  const hints: string[] = [];
  for (let i = 0; i < appEntries.length; i++) {
    const a = appEntries[i];
    const who = `application ${i}${a.description !== undefined ? ` ('${a.description}')` : ""}`;
    if (a.classifier !== undefined && !classIndex.has(a.classifier)) {
      if (!unknownClassifiers.has(a.classifier)) hints.push(nameHint("classifier", a.classifier, classIndex.keys(), who));
      unknownClassifiers.add(a.classifier);
    }
    for (const g of a.apply)
      for (const l of g.limits)
        if (!limitIndex.has(l)) {
          if (!unknownLimits.has(l)) hints.push(nameHint("limit", l, limitIndex.keys(), who));
          unknownLimits.add(l);
        }
  }
  if (unknownClassifiers.size > 0 || unknownLimits.size > 0) {
    const parts: string[] = [];
    if (unknownClassifiers.size > 0) parts.push(`Unknown classifiers: ${[...unknownClassifiers].join(", ")}`);
    if (unknownLimits.size > 0) parts.push(`Unknown limits: ${[...unknownLimits].join(", ")}`);
    return fail(parts.join(".  ") + hints.join(""), "/applications", "limits_unknown_reference");
  }
  const applications: Application[] = appEntries.map((a) => ({
    description: a.description ?? "(No description)",
    classifier: a.classifier === undefined ? -1 : (classIndex.get(a.classifier) as number),
    groups: a.apply.map((g, j) => ({
      require: g.require,
      names: g.limits,
      limits: g.limits.map((l) => limitIndex.get(l) as number),
      ...groupLines(j, g.limits),
    })),
    stopOnFailure: a["stop-on-failure"] === true,
    invert: a.invert === true,
  }));

  // 6. Prioritizer
  let prioritizer: Prioritizer | null = null;
  if (config.priority !== undefined) {
    const p = compilePrioritizer(config.priority as JsonObject);
    if (!p.ok) return fail(p.error, "/priority/script", "limits_invalid_priority");
    prioritizer = p.value;
  }

  const source: JsonObject = { ...config, limits: normalizedLimits };
  const scripts: JqSpec[] = [
    ...idEntries.filter((e) => e.type === "jq").map((e) => e.data as unknown as JqSpec),
    ...(normalizedLimits as JsonObject[]).filter((l) => l.type === "jq").map((l) => l.data as unknown as JqSpec),
    ...[config.rewrite, config.priority].filter((s) => s !== undefined).map((s) => s as unknown as JqSpec),
  ];
  const clock = scripts.some(readsClock);
  return ok({ identifiers, classifiers, rewriter, limits, applications, prioritizer, urlSources, readsClock: clock, source });
}
