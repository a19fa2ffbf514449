/**
 * The customs engine's diff requests. A customs policy only gives the settings
 * of hosts that report none of their own (pool-wide, or per network), so each
 * request is a pool of a requester and one candidate host that take every
 * setting from the policy, on one network (each network either policy names,
 * plus one it does not). The candidate's report reaches each criterion's edge
 * under either policy (load at maxLoad and one 1/256 step either side, free
 * swap, idle seconds and each idlecrit source, imported jobs and free process
 * slots at their thresholds ± 1, a report just inside and just past the down
 * limit); the request reaches each access edge (each `clients` name and a
 * stranger, the first, last and outside addresses of each allow and deny entry
 * and of the host's own network, a known and an unknown user, `uselocal`).
 */
import { formatAddress, parseNetworkPadded } from "../common/cidr.js";
import { countBoundary, MAX_DIFF_REQUESTS, type DiffRequests } from "../common/diff-requests.js";
import { finish, Pace, type Steps } from "../common/slices.js";
import type { CustomsDecision } from "./decide.js";
import { decideCustoms } from "./decide.js";
import type { CustomsPolicy, CustomsPolicyData } from "./policy.js";
import type { HostDefaults, SettingName } from "./settings.js";

/** A pure customs decision input, as `arbiter eval customs` reads it. */
export interface CustomsDiffRequest {
  hosts: Record<string, unknown>[];
  request: Record<string, unknown>;
  now: number;
}

const FRESH = "zz-fresh-9";
const NOW = Date.UTC(2026, 0, 1);
const USER = "alice";
const SHELL = "/bin/sh";
const HOST_ADDRESS = "10.0.0.1";
const REQUESTER_ADDRESS = "10.0.0.10";
/** Settings the selection never reads: they change evictions and the limits handed to hosts. */
const NOT_SELECTION: readonly SettingName[] = ["evictSeconds", "cpuSeconds", "memoryKb", "nice", "npri"];

/** List entries (client names, allow and deny entries) all decisions of one diff may copy in total. */
const MAX_LIST_WORK = 4_000_000;

/**
 * The diff's work units one rebuilt list entry costs: copying a kept entry or
 * a client name into the host's prepared lists. The entries themselves are
 * read once per policy, not per decision (acl.ts); when each decision parsed
 * them (about 4 µs an entry, and every allow entry checked against every deny
 * entry) this was 16 and a 100 KB diff spent its whole work bound on them.
 */
const LIST_ENTRY_UNITS = 1;

function listSize(d: HostDefaults): number {
  return (d.clients === "ALL" ? 0 : d.clients.length) + d.allow.length + d.deny.length;
}

/** One customs decision for the diff; an input the engine refuses throws (the diff shows it as `invalid_request`). */
export function decideCustomsForDiff(policy: CustomsPolicy, input: unknown): CustomsDecision {
  const d = decideCustoms(policy, input);
  if (!d.ok) throw new Error(d.error[0]?.message ?? "invalid request");
  return d.value;
}

/**
 * The compared fields of a customs decision: the chosen host, then each host's
 * state (`rated`, `unavailable:AVAIL_LOAD`, `excluded:acl`), then each rating,
 * then how many refusals an access level 3 host logs.
 */
export function customsDiffView(d: CustomsDecision): Record<string, unknown> {
  const view: Record<string, unknown> = { host: d.host };
  const entries = Object.entries(d.ratings);
  for (const [name, r] of entries) view[`state ${name}`] = typeof r === "number" ? "rated" : r;
  for (const [name, r] of entries) if (typeof r === "number") view[`rating ${name}`] = r;
  view.access_denied = d.accessDenied?.length ?? 0;
  return view;
}

/** The first and last address of a network and the addresses just outside it. */
function edges(text: string): string[] {
  const net = parseNetworkPadded(text);
  if (net === null) return [];
  const max = net.family === 4 ? 2 ** 32 - 1 : 2n ** 128n - 1n;
  const out = [net.start, net.end];
  if (net.family === 4) {
    if (Number(net.start) > 0) out.push(Number(net.start) - 1);
    if (Number(net.end) < Number(max)) out.push(Number(net.end) + 1);
  } else {
    if (BigInt(net.start) > 0n) out.push(BigInt(net.start) - 1n);
    if (BigInt(net.end) < BigInt(max)) out.push(BigInt(net.end) + 1n);
  }
  return out.map((v) => formatAddress(net.family, v));
}

type Status = Record<string, unknown>;

/** Candidate reports at each criterion's edge under either side's defaults. */
function statusVariants(
  sides: readonly HostDefaults[],
  downFactors: readonly number[],
  boundaries: Record<string, number>,
): Status[] {
  const out: Status[] = [{}];
  const s = (k: SettingName) => [...new Set(sides.map((d) => d.settings[k]))];
  for (const m of s("maxLoad").filter((m) => m > 0)) {
    countBoundary(boundaries, "load threshold");
    for (const l of [m - 1 / 256, m, m + 1 / 256]) if (l >= 0) out.push({ load: l });
  }
  out.push({ load: 1000 });
  for (const p of s("minSwapPct").filter((p) => p > 0)) {
    countBoundary(boundaries, "swap threshold");
    for (const v of [p - 1, p, p + 1]) out.push({ swapFreePct: v });
  }
  out.push({ swapFreePct: 0 });
  for (const i of s("minIdleSeconds").filter((i) => i > 0)) {
    countBoundary(boundaries, "idle threshold");
    for (const v of [i - 1, i, i + 1]) out.push({ idleSeconds: v });
    // each idlecrit source alone below and above the threshold: which sources count is each policy's idleCrit
    for (const bit of ["1", "2", "4", "8"]) for (const v of [i - 1, i + 1]) out.push({ idle: { [bit]: v } });
    countBoundary(boundaries, "idle source", 4);
  }
  for (const j of s("maxJobs").filter((j) => j > 0)) {
    countBoundary(boundaries, "jobs threshold");
    for (const v of [j - 1, j]) out.push({ jobs: v });
  }
  for (const p of s("minFreeProcs").filter((p) => p > 0)) {
    countBoundary(boundaries, "procs threshold");
    for (const v of [p - 1, p]) out.push({ freeProcs: v });
  }
  for (const c of s("checkSeconds")) {
    for (const f of downFactors) {
      countBoundary(boundaries, "down limit");
      const limit = f * c * 1000;
      out.push({ reportedAt: NOW - limit }, { reportedAt: NOW - limit - 1 });
    }
  }
  const seen = new Set<string>();
  return out.filter((v) => {
    const k = JSON.stringify(v);
    return !seen.has(k) && (seen.add(k), true);
  });
}

/** What one network's requests vary on the request side. */
interface RequestSide {
  clients: string[];
  from: string[];
  users: string[];
  access: Status[];
  uselocal: boolean[];
}

function requestSide(sides: readonly HostDefaults[], boundaries: Record<string, number>): RequestSide {
  const clients = new Set<string>();
  const from = new Set<string>([REQUESTER_ADDRESS, ...edges(`${HOST_ADDRESS}/24`)]);
  for (const d of sides) {
    if (d.clients !== "ALL") for (const c of d.clients) clients.add(c);
    for (const e of [...d.allow, ...d.deny]) {
      countBoundary(boundaries, "acl entry");
      for (const a of edges(e)) from.add(a);
    }
  }
  countBoundary(boundaries, "clients name", clients.size);
  const access = sides.some((d) => d.settings.access > 0);
  const uselocal = sides.some((d) => d.settings.localJobs > 0);
  return {
    clients: [...clients, FRESH],
    from: [...from],
    users: access ? [USER, FRESH] : [USER],
    access: access ? [{ users: { [USER]: SHELL }, shells: [SHELL] }, { users: { [USER]: SHELL } }, {}] : [{}],
    uselocal: uselocal ? [false, true] : [false],
  };
}

/** The requester's name when the clients lists need none in particular: one both sides admit, or a stranger. */
function baseClient(sides: readonly HostDefaults[], names: readonly string[]): string {
  return names.find((c) => sides.every((d) => d.clients === "ALL" || d.clients.includes(c))) ?? FRESH;
}

/** The network numbers whose defaults either policy sets, and one (taking the pool-wide defaults) that neither names. */
function networks(a: CustomsPolicyData, b: CustomsPolicyData): number[] {
  const named = new Set([...Object.keys(a.networks), ...Object.keys(b.networks)].map(Number));
  let fresh = 0;
  while (named.has(fresh)) fresh++;
  return [...named, fresh].sort((x, y) => x - y);
}

/** The customs requests that reach every criterion and access edge of either policy. */
export function customsDiffRequests(
  a: CustomsPolicyData,
  b: CustomsPolicyData,
): DiffRequests<CustomsDiffRequest> {
  return finish(customsDiffRequestsSteps(a, b));
}

/**
 * {@link customsDiffRequests} as resumable work (common/slices.ts): one
 * network's requests at a time, each network counting its list entries (the
 * edges of each are computed) and the requests it made.
 */
export function* customsDiffRequestsSteps(
  a: CustomsPolicyData,
  b: CustomsPolicyData,
): Steps<DiffRequests<CustomsDiffRequest>> {
  const pace = new Pace();
  const boundaries: Record<string, number> = {};
  const requests: CustomsDiffRequest[] = [];
  const nets = networks(a, b);
  countBoundary(boundaries, "network", nets.length);
  // every decision copies both hosts' clients and access lists from the defaults: bound the total
  const entries = Math.max(
    ...[a, b].flatMap((p) => [p.defaults, ...Object.values(p.networks)]).map(listSize),
  );
  const limit = Math.min(MAX_DIFF_REQUESTS, Math.max(1, Math.floor(MAX_LIST_WORK / (4 * (entries + 8)))));
  const perNet = Math.max(1, Math.floor(limit / nets.length));
  let cut = false;
  const ignored = new Set<string>();
  for (const net of nets) {
    if (requests.length >= limit) {
      cut = true;
      break;
    }
    const sides = [a, b].map((p) => p.networks[String(net)] ?? p.defaults);
    for (const k of NOT_SELECTION) if (sides[0].settings[k] !== sides[1].settings[k]) ignored.add(k);
    if (sides[0].sigxcpu !== sides[1].sigxcpu) ignored.add("sigxcpu");
    const statuses = statusVariants(sides, [...new Set([a.downFactor, b.downFactor])], boundaries);
    const side = requestSide(sides, boundaries);
    const names = side.clients;
    const client = baseClient(sides, names);
    let candidate = "h1";
    for (let i = 2; names.includes(candidate); i++) candidate = `h${i}`;
    const host = (name: string, address: string, extra: Status): Record<string, unknown> => ({
      name,
      address,
      net,
      load: 0,
      swapFreePct: 100,
      jobs: 0,
      ...extra,
    });
    const make = (
      c: string,
      status: Status,
      access: Status,
      req: Status,
      onRequester = false,
    ): CustomsDiffRequest => ({
      hosts: [
        host(c, REQUESTER_ADDRESS, onRequester ? status : {}),
        host(candidate, HOST_ADDRESS, { ...access, ...(onRequester ? {} : status) }),
      ],
      request: { client: c, net, fromAddress: REQUESTER_ADDRESS, user: USER, ...req },
      now: NOW,
    });
    const rows: CustomsDiffRequest[] = [];
    const full = side.access[0];
    // each criterion's edge on the candidate, then on the requester when it may take the job itself
    for (const st of statuses) rows.push(make(client, st, full, {}));
    if (side.uselocal.includes(true))
      for (const st of statuses) rows.push(make(client, st, full, { uselocal: true }, true));
    // each access edge with a candidate every criterion admits
    outer: for (const c of names)
      for (const from of side.from)
        for (const user of side.users)
          for (const access of side.access)
            for (const uselocal of side.uselocal) {
              if (rows.length >= perNet) break outer;
              rows.push(make(c, {}, access, { fromAddress: from, user, ...(uselocal ? { uselocal } : {}) }));
            }
    if (rows.length >= perNet) cut = true;
    requests.push(...rows.slice(0, perNet));
    if (pace.spend(64 + 16 * sides.reduce((n, d) => n + listSize(d), 0) + 16 * rows.length)) yield;
  }
  const why = [
    "customs criteria are searched at their edges, not proven: one candidate host taking every setting from the policy, its report at each threshold of either side ± one step, each access edge with every criterion met",
    "hosts that report their own settings are not generated (their settings override the policy); arch and attrs are matched between the request and the host's own report, never the policy, so they are not varied",
  ];
  if (ignored.size > 0)
    why.push(
      `the policies differ in settings no selection reads (${[...ignored].join(", ")}): evictions and the limits handed to hosts are not compared`,
    );
  if (a.killDelaySeconds !== b.killDelaySeconds || a.permitSeconds !== b.permitSeconds)
    why.push("the policies differ in killDelaySeconds or permitSeconds, which no selection reads");
  if (cut)
    why.push(
      `the combinations exceed ${limit} requests (${perNet} a network${limit < MAX_DIFF_REQUESTS ? `; fewer than ${MAX_DIFF_REQUESTS} because each decision copies ${entries} clients and access list entries into its hosts` : ""}): the rest are not tried`,
    );
  // what the decisions copy is charged to the diff's work bound too (DIFF_WORK)
  return { requests, boundaries, exhaustive: false, why, unchargedUnits: LIST_ENTRY_UNITS * 4 * entries };
}
