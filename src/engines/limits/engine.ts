/**
 * The limits engine as the bundle sees it: compile (validate, normalize to
 * plain JSON) and load (build the decision-ready policy), plus the
 * `pscheduler validate-limits` form and the list sources for the refresh job.
 */
import type { EngineDefinition } from "../common/engine.js";
import type { PackedRanges } from "../common/cidr-ranges.js";
import { isJsonObject, type JsonObject } from "../common/json.js";
import { locatePointer, type TextPlace } from "../common/json-locate.js";
import { err, ok, policyError, type PolicyError, type Result } from "../common/result.js";
import type { UrlSource } from "./identifiers.js";
import { finish, type Steps } from "../common/slices.js";
import { buildPolicy, buildPolicySteps, type LimitsPolicy } from "./policy.js";
import { parseLimitsTextSteps } from "./source.js";

export type { UrlSource } from "./identifiers.js";

/**
 * Parses and checks a limits text, returning the first load error as
 * pScheduler reports it. A jq script that does not compile is reported at the
 * file's `line:column` of the character the jq error points at, wherever the
 * script is written (a string with escapes, a line of an array script).
 */
export function loadLimitsText(text: string): Result<LimitsPolicy, PolicyError> {
  return finish(loadLimitsTextSteps(text));
}

/**
 * {@link loadLimitsText} as resumable work (common/slices.ts): the text is
 * read in one piece (JSON.parse), then the configuration is checked and
 * compiled entry by entry, yielding between slices (policy.ts).
 */
export function* loadLimitsTextSteps(text: string): Steps<Result<LimitsPolicy, PolicyError>> {
  const parsed = yield* parseLimitsTextSteps(text);
  if (!parsed.ok) return err(parsed.error);
  yield;
  const built = yield* buildPolicySteps(parsed.value);
  if (built.ok) return ok(built.value);
  const e = built.error;
  let at = e.at;
  if (e.index !== undefined) {
    const place = locatePointer(text, e.at, e.index ?? undefined);
    if (place !== null) at = `${place.line}:${place.column}`;
  }
  return err(policyError(e.code, e.message, at, e.suggestion));
}

/** The outcome of `pscheduler validate-limits`: the pointer and message, and the command's text. */
export type LimitsValidation =
  | { valid: true; text: string }
  | {
      valid: false;
      pointer: string;
      message: string;
      text: string;
      /** Where in the file the error is, when Arbiter can say so beyond pScheduler's text (not for JSON syntax errors, whose text places them). */
      place: TextPlace | null;
    };

/** Validates a limits file as `pscheduler validate-limits` does, without DNS lookups or list fetches. */
export function validateLimitsText(text: string): LimitsValidation {
  const r = loadLimitsText(text);
  if (r.ok) return { valid: true, text: "Limit configuration is valid." };
  const e = r.error;
  const lc = /^(\d+):(\d+)$/.exec(e.at);
  const place =
    e.code === "limits_invalid_json" || e.at === ""
      ? null
      : lc !== null
        ? { line: Number(lc[1]), column: Number(lc[2]) }
        : locatePointer(text, e.at);
  return {
    valid: false,
    pointer: e.at,
    message: e.message,
    text: `Limit configuration is invalid:\n${e.message}`,
    place,
  };
}

/** The ip-cidr-list-url sources of a loaded policy, so the scheduled job knows what to fetch. */
export function urlSources(policy: LimitsPolicy): UrlSource[] {
  return [...policy.urlSources];
}

/**
 * What the bundle stores: the normalized configuration, with each ip-cidr-list's
 * CIDR text replaced by its prepared ranges (keyed by identifier index), so an
 * isolate loads a large list without reading a single CIDR.
 */
export interface LimitsCompiled {
  readonly config: JsonObject;
  readonly cidr_ranges: Record<string, PackedRanges>;
}

/** Splits a built policy into the stored form (see LimitsCompiled). */
export function compiledForm(policy: LimitsPolicy): LimitsCompiled {
  const cidr_ranges: Record<string, PackedRanges> = {};
  const source = policy.source;
  const identifiers = (source.identifiers as JsonObject[]).map((entry, i) => {
    const ranges = policy.identifiers[i].ranges;
    if (ranges === undefined) return entry;
    cidr_ranges[String(i)] = ranges.pack();
    return { ...entry, data: { ...(entry.data as JsonObject), cidrs: [] } };
  });
  return { config: { ...source, identifiers }, cidr_ranges };
}

/** The engine's compile as resumable work: the stored form of what {@link loadLimitsTextSteps} built. */
function* compileLimitsSteps(source: string): Steps<Result<LimitsCompiled, PolicyError[]>> {
  const r = yield* loadLimitsTextSteps(source);
  if (!r.ok) return err([r.error]);
  yield;
  return ok(compiledForm(r.value));
}

/** Whether stored data has the LimitsCompiled shape (bundles made before it hold the bare configuration). */
function isCompiledForm(data: JsonObject): boolean {
  return Object.keys(data).length === 2 && isJsonObject(data.config) && isJsonObject(data.cidr_ranges);
}

/** The engine definition the bundle registers under `limits`. */
export const limitsEngine: EngineDefinition<LimitsCompiled | JsonObject, LimitsPolicy> = {
  name: "limits",
  file: "limits.json",
  format: "pscheduler-limits",
  compile(source: string): Result<LimitsCompiled, PolicyError[]> {
    return finish(compileLimitsSteps(source));
  },
  compileSteps: compileLimitsSteps,
  load(data: LimitsCompiled | JsonObject): LimitsPolicy {
    const stored = data as JsonObject;
    const built = isCompiledForm(stored)
      ? buildPolicy(stored.config, stored.cidr_ranges as unknown as Record<string, PackedRanges>)
      : buildPolicy(stored);
    if (!built.ok) throw new Error(`limits policy data failed to load: ${built.error.message}`);
    return built.value;
  },
};
