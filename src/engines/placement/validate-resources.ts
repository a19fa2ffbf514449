/**
 * The parts of YuniKorn's configuration validator (configvalidator.go) that
 * placement does not use but that decide whether YuniKorn accepts a
 * configuration: queue resources, user and group limits, maximum
 * applications, the node sort policy. Each check gives YuniKorn's text; like
 * YuniKorn's, each stops at its first problem (the caller runs them in
 * YuniKorn's order). Limits are looked up through a chain of scopes, one per
 * queue level, so that no queue copies its parent's limits.
 */
import { policyError, type PolicyError } from "../common/result.js";
import { FILTER_GROUP_RE, FILTER_USER_RE } from "./names.js";
import {
  addTo,
  componentWiseMin,
  fitsMaxUndef,
  isZero,
  resourceFromConf,
  showResource,
  strictlyAboveZero,
  type Resource,
} from "./quantity.js";
import type { RawLimit, RawQueue } from "./types.js";

type Problem = PolicyError | null;

function problem(code: string, message: string, at: string): PolicyError {
  return policyError(code, message, at);
}

/** A configuration resource map parsed, or the quantity's problem at its key. */
function parsed(conf: ReadonlyMap<string, string> | null, at: string): Resource | PolicyError {
  const r = resourceFromConf(conf);
  return r.ok ? r.value : problem("placement_invalid_quantity", r.error, `${at}/${r.key}`);
}

function isProblem(v: unknown): v is PolicyError {
  return typeof v === "object" && v !== null && !(v instanceof Map) && "code" in v;
}

/** Go's `%v` of a string list. */
function showList(xs: readonly string[]): string {
  return `[${xs.join(" ")}]`;
}

/** Go's `%v` of a `map[string]string`: `map[k:v …]`, keys sorted. */
function showTextMap(m: ReadonlyMap<string, string> | null): string {
  const keys = [...(m?.keys() ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${keys.map((k) => `${k}:${m?.get(k)}`).join(" ")}]`;
}

/** Go's `%v` of a Limit struct, as the empty-lists message prints it. */
function showLimit(l: RawLimit): string {
  return `{${l.limit} ${showList(l.users)} ${showList(l.groups)} ${showTextMap(l.maxresources)} ${l.maxapplications}}`;
}

/** The limits of one queue (`checkLimits`): names, duplicates, wildcards, resources and counts against the queue's own. */
export function checkQueueLimits(q: RawQueue): Problem {
  if (q.limits.length === 0) return null;
  const users = new Set<string>();
  const groups = new Set<string>();
  for (const l of q.limits) {
    const p = checkLimit(l, users, groups, q);
    if (p !== null) return p;
  }
  return null;
}

function checkLimit(l: RawLimit, users: Set<string>, groups: Set<string>, q: RawQueue): Problem {
  const at = l.at;
  const bad = (message: string) => problem("placement_invalid_limit", message, at);
  if (l.users.length === 0 && l.groups.length === 0)
    return bad(`empty user and group lists defined in limit '${showLimit(l)}'`);
  for (const name of l.users) {
    if (name !== "*" && !FILTER_USER_RE.test(name))
      return bad(`invalid limit user name '${name}' in limit definition`);
    if (users.has(name)) return bad(`duplicated user name '${name}', already exists`);
    users.add(name);
    if (users.has("*") && name !== "*")
      return bad(`should not set no wildcard user ${name} after wildcard user limit`);
  }
  for (const name of l.groups) {
    if (name !== "*" && !FILTER_GROUP_RE.test(name))
      return bad(`invalid limit group name '${name}' in limit definition`);
    if (groups.has(name)) return bad(`duplicated group name '${name}'`);
    groups.add(name);
    if (groups.has("*") && name !== "*")
      return bad(`should not set no wildcard group ${name} after wildcard group limit`);
  }
  if (groups.has("*") && groups.size === 1) {
    return bad(
      "should not specify only one group limit that is using the wildcard. There must be at least one limit with a group name defined ",
    );
  }
  let limitResource: Resource = new Map();
  if (l.maxresources !== null && l.maxresources.size > 0) {
    const r = parsed(l.maxresources, `${at}/maxresources`);
    if (isProblem(r)) return r;
    limitResource = r;
    if (!strictlyAboveZero(limitResource))
      return bad(`MaxResources should be greater than zero in '${l.limit}' limit`);
  }
  if (l.maxapplications === 0n && (l.maxresources === null || l.maxresources.size === 0)) {
    return bad(`invalid resource combination for limit ${l.limit} all resource limits are null`);
  }
  if (q.maxapplications !== 0n && q.maxapplications < l.maxapplications) {
    return bad(
      `invalid MaxApplications settings for limit ${l.limit} exceed current the queue MaxApplications`,
    );
  }
  if (q.name !== "root") {
    const max = resourceFromConf(q.resources.max);
    if (!max.ok) return bad(`parse queue ${q.name} max resource failed: ${max.error}`);
    if (!fitsMaxUndef(max.value, limitResource))
      return bad(`invalid MaxResources settings for limit ${l.limit} exeecd current the queue MaxResources`);
  }
  return null;
}

/** `checkQueueResource`: guaranteed within max, max within the parent's, the children's guaranteed sum within both. */
export function checkQueueResources(root: RawQueue): Problem {
  const out = queueResource(root, null);
  return isProblem(out) ? out : null;
}

function queueResource(q: RawQueue, parentMax: Resource | null): Resource | PolicyError {
  const g = parsed(q.resources.guaranteed, `${q.at}/resources/guaranteed`);
  if (isProblem(g)) return g;
  const m = parsed(q.resources.max, `${q.at}/resources/max`);
  if (isProblem(m)) return m;
  const at = `${q.at}/resources`;
  if (!fitsMaxUndef(m, g)) {
    return problem(
      "placement_resources",
      `guaranteed resource ${showResource(g)} is larger than maximum resource ${showResource(m)} for queue ${q.name}`,
      at,
    );
  }
  if (!fitsMaxUndef(parentMax, m)) {
    return problem(
      "placement_resources",
      `max resource of parent ${showResource(parentMax)} is smaller than maximum resource ${showResource(m)} for queue ${q.name}`,
      at,
    );
  }
  const max = componentWiseMin(m, parentMax);
  const sum: Resource = new Map();
  for (const child of q.queues ?? []) {
    const c = queueResource(child, max);
    if (isProblem(c)) return c;
    addTo(sum, c);
  }
  if (!fitsMaxUndef(g, sum)) {
    return problem(
      "placement_resources",
      `guaranteed resource of parent ${showResource(g)} is smaller than sum of guaranteed resources ${showResource(sum)} of the children for queue ${q.name}`,
      at,
    );
  }
  if (!fitsMaxUndef(max, sum)) {
    return problem(
      "placement_resources",
      `max resource ${showResource(max)} is smaller than sum of guaranteed resources ${showResource(sum)} of the children for queue ${q.name}`,
      at,
    );
  }
  return isZero(g) ? sum : g;
}

/** `checkQueueMaxApplications`: a parent's maximum, when set, bounds each child's, which must then be set too. */
export function checkMaxApplications(q: RawQueue): Problem {
  for (const child of q.queues ?? []) {
    const at = `${child.at}/maxapplications`;
    if (q.maxapplications !== 0n && q.maxapplications < child.maxapplications) {
      return problem(
        "placement_max_applications",
        "parent maxApplications must be larger than child maxApplications",
        at,
      );
    }
    if (q.maxapplications !== 0n && child.maxapplications === 0n) {
      return problem(
        "placement_max_applications",
        "maxApplications is either undefined or zero, which is not allowed when parent queue's maxApplications is defined",
        at,
      );
    }
    const p = checkMaxApplications(child);
    if (p !== null) return p;
  }
  return null;
}

/** One queue level's limits by user or group name, over its ancestors' (a lookup walks up at most the tree's depth). */
class Scope<T> {
  private readonly own = new Map<string, T>();
  constructor(private readonly parent: Scope<T> | null) {}

  get(name: string): T | undefined {
    const v = this.own.get(name);
    return v !== undefined ? v : this.parent?.get(name);
  }

  set(name: string, value: T): void {
    this.own.set(name, value);
  }
}

/** How one kind of limit compares with its parent's: the value to keep, or YuniKorn's text. */
interface LimitKind<T> {
  read(l: RawLimit): T | PolicyError;
  /** The problem when `value` exceeds the inherited `parent` (`wildcard`: the parent's is the `*` entry), or null, and what the child keeps. */
  compare(
    who: string,
    name: string,
    value: T,
    parent: T,
    wildcard: boolean,
    queue: string,
  ): { error: string | null; keep: T };
}

function checkLimitKind<T>(q: RawQueue, users: Scope<T>, groups: Scope<T>, kind: LimitKind<T>): Problem {
  const myUsers = new Scope<T>(users);
  const myGroups = new Scope<T>(groups);
  for (const l of q.limits) {
    const value = kind.read(l);
    if (isProblem(value)) return value;
    for (const [who, names, parent, mine] of [
      ["user", l.users, users, myUsers],
      ["group", l.groups, groups, myGroups],
    ] as const) {
      for (const name of names) {
        const exact = parent.get(name);
        const wild = exact === undefined && name !== "*" ? parent.get("*") : undefined;
        const inherited = exact ?? wild;
        if (inherited === undefined) {
          mine.set(name, value);
          continue;
        }
        const c = kind.compare(who, name, value, inherited, exact === undefined, q.name);
        if (c.error !== null) return problem("placement_invalid_limit", c.error, l.at);
        mine.set(name, c.keep);
      }
    }
  }
  for (const child of q.queues ?? []) {
    const p = checkLimitKind(child, myUsers, myGroups, kind);
    if (p !== null) return p;
  }
  return null;
}

const RESOURCE_LIMITS: LimitKind<Resource> = {
  read: (l) => parsed(l.maxresources, `${l.at}/maxresources`),
  compare(who, name, value, parent, wildcard, queue) {
    if (fitsMaxUndef(parent, value))
      return { error: null, keep: wildcard ? value : (componentWiseMin(value, parent) ?? value) };
    const tail = wildcard
      ? `is greater than wildcard maximum resource ${showResource(parent)} of immediate or ancestor parent queue`
      : `is greater than immediate or ancestor parent maximum resource ${showResource(parent)}`;
    return {
      error: `${who} ${name} max resource ${showResource(value)} of queue ${queue} ${tail}`,
      keep: value,
    };
  },
};

const APPLICATION_LIMITS: LimitKind<bigint> = {
  read: (l) => l.maxapplications,
  compare(who, name, value, parent, wildcard, queue) {
    if (!(parent !== 0n && (parent < value || value === 0n))) return { error: null, keep: value };
    const tail = wildcard
      ? `is greater than wildcard max applications ${parent} of immediate or ancestor parent queue`
      : `is greater than immediate or ancestor parent max applications ${parent}`;
    return { error: `${who} ${name} max applications ${value} of queue ${queue} ${tail}`, keep: value };
  },
};

/** `checkLimitResource`: each user's and group's maximum resources within what the queues above allow them. */
export function checkLimitResources(root: RawQueue): Problem {
  return checkLimitKind(root, new Scope<Resource>(null), new Scope<Resource>(null), RESOURCE_LIMITS);
}

/** `checkLimitMaxApplications`: each user's and group's maximum applications within what the queues above allow them. */
export function checkLimitApplications(root: RawQueue): Problem {
  return checkLimitKind(root, new Scope<bigint>(null), new Scope<bigint>(null), APPLICATION_LIMITS);
}

/** `checkNodeSortingPolicy`: a known policy name and no negative weight. */
export function checkNodeSort(
  nodesort: { type: string; weights: ReadonlyMap<string, number> },
  at: string,
): Problem {
  if (nodesort.type !== "" && nodesort.type !== "fair" && nodesort.type !== "binpacking") {
    return problem("placement_node_sort_policy", `undefined policy: ${nodesort.type}`, `${at}/type`);
  }
  for (const [k, v] of nodesort.weights) {
    if (v < 0)
      return problem(
        "placement_node_sort_policy",
        `negative resource weight for ${k} is not allowed`,
        `${at}/resourceweights/${k}`,
      );
  }
  return null;
}
