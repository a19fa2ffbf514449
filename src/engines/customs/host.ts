import { formatAddress, parseNetworkPadded, type IpNetwork } from "../common/cidr.js";
import { isJsonObject } from "../common/json.js";
import { invalidAddressError, parseAclAddress } from "./acl.js";
import { policyError, type PolicyError } from "../common/result.js";
import { SETTING_NAMES, checkSetting, type HostDefaults, type SettingName } from "./settings.js";
import type { Host, IdleTimes } from "./types.js";

const STATUS_FIELDS = [
  "name",
  "address",
  "net",
  "arch",
  "attrs",
  "load",
  "swapFreePct",
  "jobs",
  "idleSeconds",
  "idle",
  "freeProcs",
];
const OTHER_FIELDS = ["users", "shells", "clients", "networks", "allow", "deny", "sigxcpu", "reportedAt"];
const KNOWN = new Set<string>([...STATUS_FIELDS, ...OTHER_FIELDS, ...SETTING_NAMES]);
const IDLE_BITS = new Set(["1", "2", "4", "8"]);

/** Collects errors while reading one object, so every bad field is reported at once. */
class Reader {
  readonly errors: PolicyError[] = [];
  constructor(
    readonly obj: Record<string, unknown>,
    readonly at: string,
  ) {}

  fail(field: string, message: string, code = "customs_invalid_field"): undefined {
    this.errors.push(policyError(code, message, `${this.at}/${field}`));
    return undefined;
  }

  string(field: string): string | undefined {
    const v = this.obj[field];
    return typeof v === "string" && v.length > 0
      ? v
      : this.fail(field, `invalid field ${field}: expected a non-empty string`);
  }

  number(field: string, min: number, max: number, integer: boolean, fallback?: number): number | undefined {
    const v = this.obj[field];
    if (v === undefined && fallback !== undefined) return fallback;
    if (v === undefined) return this.fail(field, `missing field ${field}`);
    if (
      typeof v !== "number" ||
      !Number.isFinite(v) ||
      v < min ||
      v > max ||
      (integer && !Number.isInteger(v))
    ) {
      const range = max === Infinity ? `at least ${min}` : `from ${min} to ${max}`;
      return this.fail(
        field,
        `invalid field ${field}: ${JSON.stringify(v)} (expected ${integer ? "an integer" : "a number"} ${range})`,
      );
    }
    return v;
  }

  strings(field: string, fallback: readonly string[]): readonly string[] | undefined {
    const v = this.obj[field];
    if (v === undefined) return fallback;
    if (!Array.isArray(v) || !v.every((s) => typeof s === "string"))
      return this.fail(field, `invalid field ${field}: expected a list of strings`);
    return v as string[];
  }
}

/**
 * Validates one host object as the agent reports it and fills every omitted
 * setting from the pool defaults; errors name the field (`invalid criterion
 * maxLoad: 0.1 …`) and point at it under `at`.
 */
export function normalizeHost(
  raw: unknown,
  defaults: HostDefaults,
  at = "",
): { ok: true; value: Host } | { ok: false; error: PolicyError[] } {
  if (!isJsonObject(raw))
    return { ok: false, error: [policyError("customs_invalid_host", "a host must be a JSON object", at)] };
  const r = new Reader(raw, at);
  for (const key of Object.keys(raw))
    if (!KNOWN.has(key)) r.fail(key, `unknown field ${key}`, "customs_unknown_field");
  const settings = {} as Record<SettingName, number>;
  for (const name of SETTING_NAMES) {
    const v = raw[name];
    if (v === undefined) settings[name] = defaults.settings[name];
    else {
      const problem = checkSetting(name, v);
      if (problem) r.fail(name, problem, "customs_invalid_criterion");
      else settings[name] = v as number;
    }
  }
  const name = r.string("name");
  const address = r.string("address");
  const net = r.number("net", 0, 2 ** 31, true, 0);
  const arch = r.number("arch", 0, 2 ** 31, true, 0);
  const attrs = r.strings("attrs", []);
  const load = r.number("load", 0, 1e6, false);
  const swapFreePct = r.number("swapFreePct", 0, 100, false);
  const jobs = r.number("jobs", 0, 1e6, true);
  const idleSeconds = raw.idleSeconds === undefined ? undefined : r.number("idleSeconds", 0, Infinity, false);
  const idle = readIdle(r);
  if (raw.idleSeconds !== undefined && raw.idle !== undefined)
    r.fail("idle", "give either idleSeconds or idle, not both");
  const freeProcs = raw.freeProcs === undefined ? undefined : r.number("freeProcs", 0, Infinity, true);
  const users = readUsers(r);
  const shells = raw.shells === undefined ? undefined : r.strings("shells", []);
  const clients = readClients(r, defaults.clients);
  const hostAddress = address === undefined ? null : parseAclAddress(address);
  if (address !== undefined && hostAddress === null) {
    r.errors.push(invalidAddressError("address", address, `${at}/address`, "address"));
  }
  const networks = readNetworks(r, "networks", hostAddress === null ? [] : [localNetwork(hostAddress)]);
  // the access list is additive, as customs(8) has it: the host's networks, the
  // pool's allow entries and the host's own; then the pool's and the host's denies
  const ownAllow = readNetworks(r, "allow", []);
  const ownDeny = readNetworks(r, "deny", []);
  // without entries of its own a host shares the defaults' arrays, whose lists are then built once (acl.ts)
  const allow =
    ownAllow === undefined
      ? undefined
      : ownAllow.length === 0
        ? defaults.allow
        : [...defaults.allow, ...ownAllow];
  const deny =
    ownDeny === undefined ? undefined : ownDeny.length === 0 ? defaults.deny : [...defaults.deny, ...ownDeny];
  const sigxcpu = raw.sigxcpu === undefined ? defaults.sigxcpu : raw.sigxcpu;
  if (typeof sigxcpu !== "boolean") r.fail("sigxcpu", "invalid field sigxcpu: expected true or false");
  const reportedAt = raw.reportedAt === undefined ? undefined : r.number("reportedAt", 0, Infinity, false);
  if (r.errors.length > 0) return { ok: false, error: r.errors };
  // One literal with every field in a fixed order (absent optionals as undefined):
  // a stable object shape, and far cheaper than spreading conditional parts.
  const host: Host = {
    name: name!,
    address: address!,
    net: net!,
    arch: arch!,
    attrs: attrs!,
    load: load!,
    swapFreePct: swapFreePct!,
    jobs: jobs!,
    idleSeconds,
    idle,
    freeProcs,
    maxLoad: settings.maxLoad,
    minSwapPct: settings.minSwapPct,
    maxJobs: settings.maxJobs,
    minIdleSeconds: settings.minIdleSeconds,
    idleCrit: settings.idleCrit,
    minFreeProcs: settings.minFreeProcs,
    bias: settings.bias,
    evictSeconds: settings.evictSeconds,
    cpuSeconds: settings.cpuSeconds,
    memoryKb: settings.memoryKb,
    nice: settings.nice,
    npri: settings.npri,
    localJobs: settings.localJobs,
    access: settings.access as Host["access"],
    users,
    shells,
    checkSeconds: settings.checkSeconds,
    clients: clients!,
    networks: networks!,
    allow: allow!,
    deny: deny!,
    sigxcpu: sigxcpu as boolean,
    reportedAt,
  };
  return { ok: true, value: host };
}

/**
 * The network a host is taken to be attached to when it reports none: its
 * address's /24 for IPv4 (the usual size of a LAN segment, where customs would
 * read the interface's netmask) and its /64 for IPv6 (the standard subnet size).
 */
export function localNetworkOf(address: string): string {
  const a = parseAclAddress(address);
  if (a === null) throw new Error(`localNetworkOf: \`${address}\` is not an address`);
  return localNetwork(a);
}

const V6_HOST_64 = (1n << 64n) - 1n;

/** {@link localNetworkOf} of an address already read: masked to its /24 or /64 without reading the text again. */
function localNetwork(a: IpNetwork): string {
  if (a.family === 4) return `${formatAddress(4, Math.floor((a.start as number) / 256) * 256)}/24`;
  return `${formatAddress(6, (a.start as bigint) & ~V6_HOST_64)}/64`;
}

/** A list of addresses and CIDR networks, each entry checked (errors point at the entry). */
function readNetworks(r: Reader, field: string, fallback: readonly string[]): readonly string[] | undefined {
  const v = r.strings(field, fallback);
  if (v === undefined || v === fallback) return v;
  let ok = true;
  v.forEach((text, i) => {
    if (parseNetworkPadded(text) === null) {
      ok = false;
      r.errors.push(invalidAddressError(field, text, `${r.at}/${field}/${i}`, "network"));
    }
  });
  return ok ? v : undefined;
}

function readIdle(r: Reader): IdleTimes | undefined {
  const v = r.obj.idle;
  if (v === undefined) return undefined;
  if (!isJsonObject(v))
    return r.fail("idle", 'invalid field idle: expected an object keyed by "1", "2", "4", "8"');
  const out: Record<string, number> = {};
  for (const [k, s] of Object.entries(v)) {
    if (!IDLE_BITS.has(k))
      return r.fail(`idle/${k}`, `invalid field idle: unknown criterion bit ${k} (expected 1, 2, 4 or 8)`);
    if (typeof s !== "number" || !Number.isFinite(s) || s < 0)
      return r.fail(`idle/${k}`, `invalid field idle.${k}: expected seconds at least 0`);
    out[k] = s;
  }
  return out;
}

function readUsers(r: Reader): Record<string, string> | undefined {
  const v = r.obj.users;
  if (v === undefined) return undefined;
  if (!isJsonObject(v) || !Object.values(v).every((s) => typeof s === "string")) {
    return r.fail("users", "invalid field users: expected an object mapping user names to shells");
  }
  return v as Record<string, string>;
}

function readClients(r: Reader, fallback: HostDefaults["clients"]): HostDefaults["clients"] | undefined {
  const v = r.obj.clients;
  if (v === undefined) return fallback;
  if (v === "ALL") return "ALL";
  if (Array.isArray(v) && v.every((s) => typeof s === "string")) return v as string[];
  return r.fail("clients", 'invalid field clients: expected "ALL" or a list of host names');
}
