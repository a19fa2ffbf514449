/**
 * The numeric settings of a host (criteria, limits, access) with their
 * defaults and bounds, as customs.h and the customs manual give them. One table
 * serves the policy's pool-wide defaults, every host report and the JSON Schema
 * of customs.json, so a bound is written once.
 */

/** A setting's accepted values: a number (an integer when `integer`) from `min` to `max`, or 0 when `orZero`. */
export interface Bound {
  readonly integer: boolean;
  readonly min: number;
  readonly max?: number;
  /** 0 is accepted too (it disables the setting). */
  readonly orZero?: boolean;
}

/** One setting: its default and its bound. */
export interface SettingSpec {
  readonly fallback: number;
  readonly bound: Bound;
  /** True for the availability criteria, whose errors read `invalid criterion`. */
  readonly criterion: boolean;
}

const int = (min: number, max?: number): Bound => ({ integer: true, min, max });

/** Every numeric setting a host may carry or a policy may default, by field name. */
export const SETTINGS = {
  maxLoad: { fallback: 0.5, bound: { integer: false, min: 0.25, orZero: true }, criterion: true },
  minSwapPct: { fallback: 25, bound: int(0, 40), criterion: true },
  maxJobs: { fallback: 2, bound: int(0), criterion: true },
  minIdleSeconds: { fallback: 900, bound: int(0, 3600), criterion: true },
  idleCrit: { fallback: 3, bound: int(0, 15), criterion: true },
  minFreeProcs: { fallback: 10, bound: int(0, 20), criterion: true },
  checkSeconds: { fallback: 10, bound: int(5), criterion: true },
  bias: { fallback: 0, bound: int(-1_000_000, 1_000_000), criterion: false },
  evictSeconds: { fallback: 120, bound: int(0), criterion: false },
  cpuSeconds: { fallback: 0, bound: { integer: true, min: 60, orZero: true }, criterion: false },
  memoryKb: { fallback: 0, bound: { integer: true, min: 1024, orZero: true }, criterion: false },
  nice: { fallback: 4, bound: int(-20, 20), criterion: false },
  npri: { fallback: 0, bound: { integer: true, min: 128, max: 255, orZero: true }, criterion: false },
  localJobs: { fallback: 0, bound: int(0), criterion: false },
  access: { fallback: 0, bound: int(0, 3), criterion: false },
} as const satisfies Record<string, SettingSpec>;

/** The name of a numeric setting. */
export type SettingName = keyof typeof SETTINGS;

/** The setting names, in a fixed order for loops. */
export const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];

/** Pool-wide defaults a policy may give for any host that omits a setting. */
export interface HostDefaults {
  readonly settings: Readonly<Record<SettingName, number>>;
  readonly clients: "ALL" | readonly string[];
  readonly allow: readonly string[];
  readonly deny: readonly string[];
  readonly sigxcpu: boolean;
}

/** The defaults of the spec, used when no policy says otherwise. */
export const BUILTIN_DEFAULTS: HostDefaults = {
  settings: Object.fromEntries(SETTING_NAMES.map((n) => [n, SETTINGS[n].fallback])) as Record<
    SettingName,
    number
  >,
  clients: "ALL",
  // customs' default: no entries beyond each host's own networks
  allow: [],
  deny: [],
  sigxcpu: false,
};

/** Whether a number is within a bound. */
export function withinBound(b: Bound, v: number): boolean {
  if (b.orZero === true && v === 0) return true;
  return (!b.integer || Number.isInteger(v)) && v >= b.min && (b.max === undefined || v <= b.max);
}

/** What a bound expects, in words: `an integer from 0 to 40`, `0 (disabled) or at least 0.25`. */
export function describeBound(b: Bound): string {
  const kind = b.integer ? "an integer " : "";
  const range = b.max === undefined ? `${kind}at least ${b.min}` : `${kind}from ${b.min} to ${b.max}`;
  if (b.orZero !== true) return range;
  return b.max === undefined ? `0 (disabled) or ${range}` : `0 or ${range}`;
}

/** Checks one setting, returning the message that names the field, or null when it is fine. */
export function checkSetting(name: SettingName, value: unknown): string | null {
  const spec: SettingSpec = SETTINGS[name];
  const word = spec.criterion ? "criterion" : "setting";
  if (typeof value !== "number" || !Number.isFinite(value))
    return `invalid ${word} ${name}: ${JSON.stringify(value)} (expected a number)`;
  return withinBound(spec.bound, value)
    ? null
    : `invalid ${word} ${name}: ${value} (expected ${describeBound(spec.bound)})`;
}
