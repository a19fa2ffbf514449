/**
 * The numeric settings of a host (criteria, limits, access) with their
 * defaults and bounds, as customs.h and the customs manual give them. One table
 * serves the policy's pool-wide defaults and every host report, so a bound is
 * written once.
 */

/** A bound check: null when the value is acceptable, else what is expected. */
type Check = (v: number) => string | null;

const integer = (lo: number, hi = Infinity): Check => (v) =>
  Number.isInteger(v) && v >= lo && v <= hi ? null : hi === Infinity ? `an integer at least ${lo}` : `an integer from ${lo} to ${hi}`;

const zeroOrAtLeast = (min: number, int: boolean): Check => (v) =>
  (int ? Number.isInteger(v) : true) && (v === 0 || v >= min) ? null : `0 (disabled) or ${int ? "an integer " : ""}at least ${min}`;

/** One setting: its default and its bound. */
export interface SettingSpec {
  readonly fallback: number;
  readonly check: Check;
  /** True for the availability criteria, whose errors read `invalid criterion`. */
  readonly criterion: boolean;
}

/** Every numeric setting a host may carry or a policy may default, by field name. */
export const SETTINGS = {
  maxLoad: { fallback: 0.5, check: zeroOrAtLeast(0.25, false), criterion: true },
  minSwapPct: { fallback: 25, check: integer(0, 40), criterion: true },
  maxJobs: { fallback: 2, check: integer(0), criterion: true },
  minIdleSeconds: { fallback: 900, check: integer(0, 3600), criterion: true },
  idleCrit: { fallback: 3, check: integer(0, 15), criterion: true },
  minFreeProcs: { fallback: 10, check: integer(0, 20), criterion: true },
  checkSeconds: { fallback: 10, check: integer(5), criterion: true },
  bias: { fallback: 0, check: integer(-1_000_000, 1_000_000), criterion: false },
  evictSeconds: { fallback: 120, check: integer(0), criterion: false },
  cpuSeconds: { fallback: 0, check: zeroOrAtLeast(60, true), criterion: false },
  memoryKb: { fallback: 0, check: zeroOrAtLeast(1024, true), criterion: false },
  nice: { fallback: 4, check: integer(-20, 20), criterion: false },
  npri: { fallback: 0, check: (v) => (v === 0 || (Number.isInteger(v) && v >= 128 && v <= 255) ? null : "0 or an integer from 128 to 255"), criterion: false },
  localJobs: { fallback: 0, check: integer(0), criterion: false },
  access: { fallback: 0, check: integer(0, 3), criterion: false },
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
  settings: Object.fromEntries(SETTING_NAMES.map((n) => [n, SETTINGS[n].fallback])) as Record<SettingName, number>,
  clients: "ALL",
  // customs' default: no entries beyond each host's own networks
  allow: [],
  deny: [],
  sigxcpu: false,
};

/** Checks one setting, returning the message that names the field, or null when it is fine. */
export function checkSetting(name: SettingName, value: unknown): string | null {
  const spec: SettingSpec = SETTINGS[name];
  const word = spec.criterion ? "criterion" : "setting";
  if (typeof value !== "number" || !Number.isFinite(value)) return `invalid ${word} ${name}: ${JSON.stringify(value)} (expected a number)`;
  const problem = spec.check(value);
  return problem === null ? null : `invalid ${word} ${name}: ${value} (expected ${problem})`;
}
