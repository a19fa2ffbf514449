import { parseJsonTextSteps } from "../common/json-syntax.js";
import { describeJsonShape, POLICY_JSON_LIMITS, shapePointer } from "../common/json-shape.js";
import { isJsonObject } from "../common/json.js";
import { policyError, type PolicyError, type Result } from "../common/result.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import { lazily } from "../common/lazy.js";
import { buildAccessList, invalidAddressError } from "./acl.js";
import { customsShapes, NETWORK_NUMBER, POOL_NUMBERS } from "./policy-file.js";
import {
  BUILTIN_DEFAULTS,
  checkSetting,
  withinBound,
  type HostDefaults,
  type SettingName,
} from "./settings.js";

/** The compiled customs policy: plain JSON, as stored in the bundle. */
export interface CustomsPolicyData {
  readonly defaults: HostDefaults;
  /** Per network number, the defaults merged over the pool-wide ones. */
  readonly networks: Readonly<Record<string, HostDefaults>>;
  /** A host silent for longer than downFactor × checkSeconds is down. */
  readonly downFactor: number;
  /** Seconds between the termination signal and SIGKILL. */
  readonly killDelaySeconds: number;
  /** Lease of an allocation permit: it lapses if never finished within this time. */
  readonly permitSeconds: number;
}

/** The loaded policy: the data plus the lookup of a network's defaults. */
export interface CustomsPolicy extends CustomsPolicyData {
  defaultsFor(net: number): HostDefaults;
}

/** The policy of a fresh checkout with no `customs.json`: the spec's defaults. */
export const DEFAULT_POLICY_DATA: CustomsPolicyData = {
  defaults: BUILTIN_DEFAULTS,
  networks: {},
  downFactor: POOL_NUMBERS.downFactor.fallback,
  killDelaySeconds: POOL_NUMBERS.killDelaySeconds.fallback,
  permitSeconds: POOL_NUMBERS.permitSeconds.fallback,
};

/** customs.json's keys, made on the first compile (the shapes with them: an isolate that compiles nothing builds neither). */
const keys = lazily(() => {
  const { CustomsPolicyFile, HostDefaultsFile } = customsShapes();
  return {
    top: new Set(Object.keys(CustomsPolicyFile.shape)),
    defaults: new Set(Object.keys(HostDefaultsFile.shape)),
  };
});

function readDefaults(raw: unknown, base: HostDefaults, at: string, errors: PolicyError[]): HostDefaults {
  if (!isJsonObject(raw)) {
    errors.push(policyError("customs_invalid_defaults", "defaults must be a JSON object", at));
    return base;
  }
  const settings = { ...base.settings } as Record<SettingName, number>;
  let { clients, allow, deny, sigxcpu } = base;
  for (const [key, v] of Object.entries(raw)) {
    const here = `${at}/${key}`;
    if (!keys().defaults.has(key))
      errors.push(policyError("customs_unknown_field", `unknown field ${key}`, here));
    else if (key === "$comment") continue;
    else if (key === "clients") {
      if (v === "ALL") clients = "ALL";
      else if (Array.isArray(v) && v.every((s) => typeof s === "string")) clients = v as string[];
      else
        errors.push(
          policyError(
            "customs_invalid_field",
            'invalid field clients: expected "ALL" or a list of host names',
            here,
          ),
        );
    } else if (key === "allow" || key === "deny") {
      if (!Array.isArray(v) || !v.every((s) => typeof s === "string")) {
        errors.push(
          policyError(
            "customs_invalid_field",
            `invalid field ${key}: expected a list of addresses or networks`,
            here,
          ),
        );
      } else if (key === "allow") allow = v as string[];
      else deny = v as string[];
    } else if (key === "sigxcpu") {
      if (typeof v === "boolean") sigxcpu = v;
      else
        errors.push(
          policyError("customs_invalid_field", "invalid field sigxcpu: expected true or false", here),
        );
    } else {
      const problem = checkSetting(key as SettingName, v);
      if (problem) errors.push(policyError("customs_invalid_criterion", problem, here));
      else settings[key as SettingName] = v as number;
    }
  }
  const acl = buildAccessList(allow, deny);
  if (!acl.ok) {
    errors.push(invalidAddressError(acl.field, acl.text, `${at}/${acl.field}/${acl.index}`, "network"));
  }
  return { settings, clients, allow, deny, sigxcpu };
}

function readNumber(
  raw: Record<string, unknown>,
  key: keyof typeof POOL_NUMBERS,
  errors: PolicyError[],
): number {
  const v = raw[key];
  const { fallback, bound } = POOL_NUMBERS[key];
  if (v === undefined) return fallback;
  if (typeof v === "number" && Number.isFinite(v) && withinBound(bound, v)) return v;
  errors.push(
    policyError(
      "customs_invalid_field",
      `invalid field ${key}: ${JSON.stringify(v)} (expected ${bound.integer ? "an integer" : "a number"} at least ${bound.min})`,
      `/${key}`,
    ),
  );
  return fallback;
}

/** Validates the text of `customs.json` and merges every network's defaults, so loading does no checking. */
export function compileCustomsPolicy(source: string): Result<CustomsPolicyData, PolicyError[]> {
  return finish(compileCustomsPolicySteps(source));
}

/** What reading one network's defaults counts toward a slice: a base, and per list entry (each address is read). */
function defaultsUnits(raw: unknown): number {
  let units = 64;
  if (isJsonObject(raw))
    for (const key of ["clients", "allow", "deny"]) {
      const v = raw[key];
      if (Array.isArray(v)) units += 16 * v.length;
    }
  return units;
}

/**
 * {@link compileCustomsPolicy} as resumable work (common/slices.ts): the text
 * is read in one piece (JSON.parse), then the networks' defaults are checked
 * and their access lists built one network at a time, yielding between slices.
 */
export function* compileCustomsPolicySteps(source: string): Steps<Result<CustomsPolicyData, PolicyError[]>> {
  const pace = new Pace();
  const parsed = yield* parseJsonTextSteps(source, POLICY_JSON_LIMITS);
  if (!parsed.ok && "error" in parsed) {
    const e = parsed.error;
    return {
      ok: false,
      error: [policyError("customs_invalid_json", `not valid JSON: ${e.message}`, `${e.line}:${e.column}`)],
    };
  }
  if (!parsed.ok)
    return {
      ok: false,
      error: [
        policyError(
          "customs_too_deep",
          describeJsonShape(parsed.shape, "customs.json"),
          shapePointer(parsed.shape.path),
        ),
      ],
    };
  const raw = parsed.value;
  if (!isJsonObject(raw))
    return {
      ok: false,
      error: [policyError("customs_invalid_policy", "the policy must be a JSON object", "")],
    };
  yield;
  const errors: PolicyError[] = [];
  for (const key of Object.keys(raw))
    if (!keys().top.has(key))
      errors.push(policyError("customs_unknown_field", `unknown field ${key}`, `/${key}`));
  const defaults =
    raw.defaults === undefined
      ? BUILTIN_DEFAULTS
      : readDefaults(raw.defaults, BUILTIN_DEFAULTS, "/defaults", errors);
  const networks: Record<string, HostDefaults> = {};
  if (raw.networks !== undefined) {
    if (!isJsonObject(raw.networks))
      errors.push(
        policyError(
          "customs_invalid_field",
          "invalid field networks: expected an object keyed by network number",
          "/networks",
        ),
      );
    else {
      for (const [net, over] of Object.entries(raw.networks)) {
        if (!NETWORK_NUMBER.test(net))
          errors.push(
            policyError("customs_invalid_network", `invalid network number \`${net}\``, `/networks/${net}`),
          );
        else networks[net] = readDefaults(over, defaults, `/networks/${net}`, errors);
        if (pace.spend(defaultsUnits(over))) yield;
      }
    }
  }
  const data: CustomsPolicyData = {
    defaults,
    networks,
    downFactor: readNumber(raw, "downFactor", errors),
    killDelaySeconds: readNumber(raw, "killDelaySeconds", errors),
    permitSeconds: readNumber(raw, "permitSeconds", errors),
  };
  return errors.length > 0 ? { ok: false, error: errors } : { ok: true, value: data };
}

/** Rebuilds the ready policy from its stored data, once per isolate and revision. */
export function loadCustomsPolicy(data: CustomsPolicyData): CustomsPolicy {
  return { ...data, defaultsFor: (net: number) => data.networks[String(net)] ?? data.defaults };
}
