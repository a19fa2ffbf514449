import { finish, Pace, type Steps } from "../common/slices.js";
import { compileGoRegex } from "./filter.js";
import { storeGates, type StoredGates, type StoredIndex } from "./gate-store.js";
import type {
  AclData,
  FilterData,
  PartitionData,
  PlacementData,
  QueueData,
  RegexData,
  RuleData,
  RuleKind,
} from "./types.js";

/**
 * The form the bundle stores a placement policy in (issue 24 item 9): each
 * partition's queues and rules as columns of strings and numbers, with equal
 * ACLs, filters, expressions and rules stored once. JSON.parse reads such
 * columns about twenty times faster than one object per rule, filter and
 * expression, so the first decision after a publish of thousands of rules
 * pays a few milliseconds for the parse instead of tens.
 */
export interface StoredPlacement {
  /** Tells this form from the plain {@link PlacementData} of older bundles. */
  form: typeof STORED_FORM;
  partitions: StoredPartition[];
}

/** The value of {@link StoredPlacement.form}. */
export const STORED_FORM = "placement-columns-1";

/** One partition's stored columns. */
export interface StoredPartition {
  name: string;
  defaultQueue: string | null;
  /** Per queue: its lower-cased full path, a parent's before its children's. */
  path: string[];
  /** Per queue, one character: "1" for a leaf, "0" otherwise. */
  leaf: string;
  /** Per queue, the index of its submit and admin ACL in `acls`. */
  submit: number[];
  admin: number[];
  acls: StoredNames;
  /** The chain of rules: per rule, the index of its node in `nodes`. */
  chain: number[];
  nodes: StoredNodes;
  filters: StoredFilters;
  exps: StoredExps;
  /** The chain's filter gates, worked out at publish. */
  gates: StoredGates;
}

/**
 * Entries that each hold a flag and two lists of names (an ACL's `all`, a
 * filter's `allow` and `empty` as one character per entry), the lists as a
 * count per entry and the names one after another.
 */
export interface StoredNames {
  flags: string;
  userCount: number[];
  users: string[];
  groupCount: number[];
  groups: string[];
}

/** The distinct rules (a chain's rules and their parents), one column per field of {@link RuleData}. */
export interface StoredNodes {
  /** One letter per rule: the first of its kind (p, u, f, t). */
  kind: string;
  /** One character per rule each: "1" or "0". */
  create: string;
  qualified: string;
  value: string[];
  /** The index of the parent rule's node, or -1. */
  parent: number[];
  /** The index of the rule's filter in `filters`. */
  filter: number[];
}

/** The distinct filters: flags and names as {@link StoredNames}, plus the index of each side's expression in `exps` or -1. */
export interface StoredFilters extends StoredNames {
  userExp: number[];
  groupExp: number[];
}

/** The distinct filter expressions, one column per field of {@link RegexData}. */
export interface StoredExps {
  source: string[];
  prefix: string[];
  required: string[];
  /**
   * Per expression, where its whole texts (RegexData.exact) start in `exact`,
   * or -1 when it has none; with how many there are. Absent in bundles made
   * before they were stored (their expressions then compile when tested).
   */
  exactAt?: number[];
  exactCount?: number[];
  /** The expressions' whole texts, one after another. */
  exact?: string[];
}

/** Expression `i`'s whole texts (RegexData.exact), or null when it has none or the bundle predates them. */
export function storedExact(e: StoredExps, i: number): string[] | null {
  const at = e.exactAt?.[i];
  if (at === undefined || at < 0 || e.exact === undefined || e.exactCount === undefined) return null;
  return e.exact.slice(at, at + e.exactCount[i]);
}

/**
 * A name index's column (the filters' `users` or `groups`) followed by the
 * expressions' whole texts, which the index also refers to (gate-store.ts):
 * a text at `exactAt[e] + k` is at `names.length + exactAt[e] + k` here.
 */
export function namesWithExact(names: string[], e: StoredExps): string[] {
  return e.exact === undefined || e.exact.length === 0 ? names : names.concat(e.exact);
}

/** Whether compiled placement data is the stored form (a bundle made before it holds {@link PlacementData}). */
export function isStoredPlacement(data: unknown): data is StoredPlacement {
  return (data as { form?: unknown }).form === STORED_FORM;
}

/** Gives each distinct key (a string) one index, in the order first seen. */
class Interner {
  private readonly seen = new Map<string, number>();

  /** The index of `key`, and whether it is new (the caller then appends the entry). */
  index(key: string): { i: number; fresh: boolean } {
    const known = this.seen.get(key);
    if (known !== undefined) return { i: known, fresh: false };
    const i = this.seen.size;
    this.seen.set(key, i);
    return { i, fresh: true };
  }
}

function noIndex(): StoredIndex {
  return { at: [], count: [], rules: [] };
}

function emptyNames(): StoredNames {
  return { flags: "", userCount: [], users: [], groupCount: [], groups: [] };
}

function pushNames(
  to: StoredNames,
  flags: string,
  users: readonly string[],
  groups: readonly string[],
): void {
  to.flags += flags;
  to.userCount.push(users.length);
  for (const u of users) to.users.push(u);
  to.groupCount.push(groups.length);
  for (const g of groups) to.groups.push(g);
}

/**
 * An expression as the stored form keeps it: with the literals every match
 * needs. Bundles made before the linear-time layer stored a JavaScript
 * translation (`(?i)` moved into `flags: "iu"`), which is put back; bundles
 * made before the literals were stored have them read off the compiled
 * expression, and one that does not compile (only possible in such an old
 * bundle) becomes an expression that never matches, as such filters did then.
 */
function currentExp(exp: RegexData & { flags?: string }): RegexData & { prefix: string; required: string } {
  const source = exp.flags?.includes("i") === true ? `(?i)${exp.source}` : exp.source;
  if (exp.prefix !== undefined && exp.required !== undefined)
    return exp.exact === undefined
      ? { source, prefix: exp.prefix, required: exp.required }
      : { source, prefix: exp.prefix, required: exp.required, exact: exp.exact };
  const r = compileGoRegex(source);
  return r.ok
    ? { source, prefix: r.value.prefix ?? "", required: r.value.required ?? "" }
    : { source: "(?!)", prefix: "", required: "" };
}

/** Builds one partition's columns, storing each distinct ACL, expression, filter and rule once. */
class PartitionWriter {
  readonly out: StoredPartition;
  private readonly aclIndex = new Interner();
  private readonly expIndex = new Interner();
  private readonly filterIndex = new Interner();
  private readonly nodeIndex = new Interner();

  constructor(p: PartitionData) {
    this.out = {
      name: p.name,
      defaultQueue: p.defaultQueue,
      path: [],
      leaf: "",
      submit: [],
      admin: [],
      acls: emptyNames(),
      chain: [],
      nodes: { kind: "", create: "", qualified: "", value: [], parent: [], filter: [] },
      filters: { ...emptyNames(), userExp: [], groupExp: [] },
      exps: { source: [], prefix: [], required: [], exactAt: [], exactCount: [], exact: [] },
      gates: { gated: "", userSide: "", groupSide: "", users: noIndex(), groups: noIndex() },
    };
  }

  queue(q: QueueData): void {
    const o = this.out;
    o.path.push(q.path);
    o.leaf += q.leaf ? "1" : "0";
    o.submit.push(this.acl(q.submit));
    o.admin.push(this.acl(q.admin));
  }

  private acl(a: AclData): number {
    const { i, fresh } = this.aclIndex.index(JSON.stringify([a.all, a.users, a.groups]));
    if (fresh) pushNames(this.out.acls, a.all ? "1" : "0", a.users, a.groups);
    return i;
  }

  private exp(e: RegexData | null): number {
    if (e === null) return -1;
    const x = currentExp(e);
    const { i, fresh } = this.expIndex.index(
      JSON.stringify([x.source, x.prefix, x.required, x.exact ?? null]),
    );
    if (fresh) {
      const e = this.out.exps as Required<StoredExps>;
      e.source.push(x.source);
      e.prefix.push(x.prefix);
      e.required.push(x.required);
      e.exactAt.push(x.exact === undefined ? -1 : e.exact.length);
      e.exactCount.push(x.exact === undefined ? 0 : x.exact.length);
      if (x.exact !== undefined) for (const t of x.exact) e.exact.push(t);
    }
    return i;
  }

  private filter(f: FilterData): number {
    const userExp = this.exp(f.userExp);
    const groupExp = this.exp(f.groupExp);
    const flags = String((f.allow ? 1 : 0) + (f.empty ? 2 : 0));
    const key = JSON.stringify([flags, f.users, f.groups, userExp, groupExp]);
    const { i, fresh } = this.filterIndex.index(key);
    if (fresh) {
      const fs = this.out.filters;
      pushNames(fs, flags, f.users, f.groups);
      fs.userExp.push(userExp);
      fs.groupExp.push(groupExp);
    }
    return i;
  }

  /** The index of a rule's node (its parents stored first). */
  node(r: RuleData): number {
    const parent = r.parent === null ? -1 : this.node(r.parent);
    const filter = this.filter(r.filter);
    const key = JSON.stringify([r.kind, r.create, r.qualified, r.value, parent, filter]);
    const { i, fresh } = this.nodeIndex.index(key);
    if (fresh) {
      const n = this.out.nodes;
      n.kind += r.kind[0];
      n.create += r.create ? "1" : "0";
      n.qualified += r.qualified ? "1" : "0";
      n.value.push(r.value);
      n.parent.push(parent);
      n.filter.push(filter);
    }
    return i;
  }
}

/** Turns compiled placement data into the form the bundle stores (linear in the data). */
export function storePlacement(data: PlacementData): StoredPlacement {
  return finish(storePlacementSteps(data));
}

/** What storing one queue or rule counts toward a slice (common/slices.ts): about the characters of source it stands for. */
const STORE_UNITS = 64;

/** {@link storePlacement} as resumable work (common/slices.ts), yielding between queues and rules. */
export function* storePlacementSteps(data: PlacementData): Steps<StoredPlacement> {
  const pace = new Pace();
  const partitions: StoredPartition[] = [];
  for (const p of data.partitions) {
    const w = new PartitionWriter(p);
    for (const q of p.queues) {
      w.queue(q);
      if (pace.spend(STORE_UNITS)) yield;
    }
    for (const r of p.rules) {
      w.out.chain.push(w.node(r));
      if (pace.spend(STORE_UNITS)) yield;
    }
    yield;
    w.out.gates = storeGates(w.out, p.rules);
    partitions.push(w.out);
  }
  return { form: STORED_FORM, partitions };
}

/** The rule kinds by the letter the stored form keeps. */
export const KIND_OF_LETTER: Readonly<Record<string, RuleKind>> = {
  p: "provided",
  u: "user",
  f: "fixed",
  t: "tag",
};

/**
 * Walks stored name lists in order: `next(counts, names)` gives entry i's
 * names (entries are read 0, 1, 2, …, each list by its own cursor).
 */
export class NamesReader {
  private userAt = 0;
  private groupAt = 0;

  constructor(private readonly names: StoredNames) {}

  /** The next entry's users and groups (fresh arrays). */
  next(i: number): { users: string[]; groups: string[] } {
    const n = this.names;
    const users = n.users.slice(this.userAt, (this.userAt += n.userCount[i]));
    const groups = n.groups.slice(this.groupAt, (this.groupAt += n.groupCount[i]));
    return { users, groups };
  }
}

function unstoreExp(e: StoredExps, i: number): RegexData | null {
  if (i < 0) return null;
  const out: RegexData = { source: e.source[i], prefix: e.prefix[i], required: e.required[i] };
  const exact = storedExact(e, i);
  if (exact !== null) out.exact = exact;
  return out;
}

function unstorePartition(p: StoredPartition): PartitionData {
  const acls: AclData[] = [];
  const aclNames = new NamesReader(p.acls);
  for (let i = 0; i < p.acls.flags.length; i++)
    acls.push({ all: p.acls.flags[i] === "1", ...aclNames.next(i) });
  const queues: QueueData[] = p.path.map((path, i) => ({
    path,
    leaf: p.leaf[i] === "1",
    submit: structuredClone(acls[p.submit[i]]),
    admin: structuredClone(acls[p.admin[i]]),
  }));
  const fs = p.filters;
  const filterNames = new NamesReader(fs);
  const filters: FilterData[] = [];
  for (let i = 0; i < fs.flags.length; i++) {
    const bits = Number(fs.flags[i]);
    const { users, groups } = filterNames.next(i);
    filters.push({
      allow: (bits & 1) !== 0,
      empty: (bits & 2) !== 0,
      users,
      groups,
      userExp: unstoreExp(p.exps, fs.userExp[i]),
      groupExp: unstoreExp(p.exps, fs.groupExp[i]),
    });
  }
  const n = p.nodes;
  const nodes: RuleData[] = [];
  for (let i = 0; i < n.kind.length; i++) {
    const parent = n.parent[i];
    nodes.push({
      kind: KIND_OF_LETTER[n.kind[i]],
      create: n.create[i] === "1",
      filter: structuredClone(filters[n.filter[i]]),
      parent: parent < 0 ? null : structuredClone(nodes[parent]),
      value: n.value[i],
      qualified: n.qualified[i] === "1",
    });
  }
  return {
    name: p.name,
    queues,
    rules: p.chain.map((i) => structuredClone(nodes[i])),
    defaultQueue: p.defaultQueue,
  };
}

/**
 * The plain {@link PlacementData} of a bundle's placement entry, whichever
 * form it was stored in, for the readers that walk the data itself (the queue
 * tree of `GET /v1/placement/queues`); every object is its own copy.
 */
export function placementData(stored: StoredPlacement | PlacementData): PlacementData {
  if (!isStoredPlacement(stored)) return stored;
  return { partitions: stored.partitions.map(unstorePartition) };
}
