/**
 * Host access lists: IPv4 and IPv6 addresses and CIDR networks, parsed once by
 * the shared CIDR code into integer ranges (numbers for IPv4, BigInt for IPv6)
 * so that checking a client address is a few comparisons.
 */
import { parseNetworkPadded, type IpNetwork } from "../common/cidr.js";
import { policyError, type PolicyError } from "../common/result.js";

/** The effective list of a host: the entries left after the deny operations. */
export interface AccessList {
  /** IPv4 ranges as flat [lo, hi, lo, hi, …] pairs. */
  readonly v4: readonly number[];
  /** IPv6 ranges as flat [lo, hi, …] pairs. */
  readonly v6: readonly bigint[];
  /** The surviving entries as written, for the `acl(host)` view. */
  readonly entries: readonly string[];
  /** A list shared with other hosts (the policy's), also permitting: a host's own networks come before it. */
  readonly rest?: AccessList;
}

/**
 * Parses a client's `fromAddress` in the access-list syntax (zero-padded IPv4 octets
 * allowed, as in entries) but refusing a prefix; null when invalid.
 */
export function parseAclAddress(text: string): IpNetwork | null {
  return text.includes("/") ? null : parseNetworkPadded(text);
}

/**
 * The error for text that does not read as an address (`what` "address") or as
 * an access-list entry, an address or a network (`what` "network"): one code
 * and one wording wherever hosts, requests and policies give them.
 */
export function invalidAddressError(
  field: string,
  text: string,
  at: string,
  what: "address" | "network",
): PolicyError {
  const expected = what === "address" ? "an IPv4 or IPv6 address" : "an IPv4 or IPv6 address or network";
  return policyError("customs_invalid_address", `invalid field ${field}: \`${text}\` is not ${expected}`, at);
}

/** A bad entry of an access list: which list, its index there and its text. */
export interface AclEntryError {
  readonly ok: false;
  readonly field: "allow" | "deny";
  readonly index: number;
  readonly text: string;
}

/** An access list that was built, or the first entry that could not be read. */
export type AclResult = { ok: true; list: AccessList } | AclEntryError;

/**
 * Work the access lists did, for tests: entries read from text, and deny
 * lookups (each a binary search over the deny list, not a scan of it).
 */
export const ACL_WORK = { parsed: 0, lookups: 0 };

/** One allowed entry kept, with the key that tells equal networks apart. */
interface Kept {
  readonly net: IpNetwork;
  readonly text: string;
  readonly key: string;
}

/**
 * A few results kept by the identity of the array they were worked out from:
 * hosts that take the policy's defaults pass the same arrays one after
 * another, so those are read and built once; a host's own arrays pass through
 * without filling a WeakMap per host per decision (its upkeep in the garbage
 * collector cost more than the reading saved).
 */
class IdentityMemo<K extends object, V> {
  private readonly keys: (K | undefined)[];
  private readonly values: (V | undefined)[];
  private next = 0;

  constructor(size: number) {
    this.keys = new Array<K | undefined>(size).fill(undefined);
    this.values = new Array<V | undefined>(size).fill(undefined);
  }

  get(key: K): V | undefined {
    for (let i = 0; i < this.keys.length; i++) if (this.keys[i] === key) return this.values[i];
    return undefined;
  }

  set(key: K, value: V): void {
    this.keys[this.next] = key;
    this.values[this.next] = value;
    this.next = (this.next + 1) % this.keys.length;
  }
}

/** A list's entries read (an error for the first bad one), kept per array: policy defaults are read once, not per host. */
const READ = new IdentityMemo<readonly string[], { nets: IpNetwork[] } | { index: number }>(4);

function readEntries(texts: readonly string[]): { nets: IpNetwork[] } | { index: number } {
  const known = READ.get(texts);
  if (known !== undefined) return known;
  const out = readEach(texts);
  READ.set(texts, out);
  return out;
}

/** Reads every entry of a list (no memo: a host's own networks are its alone). */
function readEach(texts: readonly string[]): { nets: IpNetwork[] } | { index: number } {
  const nets: IpNetwork[] = [];
  let out: { nets: IpNetwork[] } | { index: number } = { nets };
  for (let i = 0; i < texts.length; i++) {
    ACL_WORK.parsed++;
    const net = parseNetworkPadded(texts[i]);
    if (net === null) {
      out = { index: i };
      break;
    }
    nets.push(net);
  }
  return out;
}

/**
 * The deny entries of one family sorted by first address, with the running
 * maximum of their last addresses, so whether any overlaps a range is one
 * binary search: the entries starting at or before the range's end, and the
 * furthest any of them reaches.
 */
interface DenyIndex {
  readonly starts: readonly (number | bigint)[];
  readonly reach: readonly (number | bigint)[];
}

/** The index of a family without deny entries (the usual), shared: nothing to sort or hold per list. */
const NO_DENIES: DenyIndex = { starts: [], reach: [] };

function denyIndex(nets: readonly IpNetwork[], family: 4 | 6): DenyIndex {
  if (!nets.some((n) => n.family === family)) return NO_DENIES;
  const own = nets
    .filter((n) => n.family === family)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const starts = own.map((n) => n.start);
  const reach: (number | bigint)[] = [];
  for (const n of own)
    reach.push(reach.length === 0 || n.end > reach[reach.length - 1] ? n.end : reach[reach.length - 1]);
  return { starts, reach };
}

/** Whether some deny entry shares an address with the network. */
function denied(index: DenyIndex, net: IpNetwork): boolean {
  ACL_WORK.lookups++;
  let lo = 0;
  let hi = index.starts.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (index.starts[mid] <= net.end) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found >= 0 && index.reach[found] >= net.start;
}

/** A deny list's indexes by family. */
interface Denies {
  readonly v4: DenyIndex;
  readonly v6: DenyIndex;
}

function denies(nets: readonly IpNetwork[]): Denies {
  return { v4: denyIndex(nets, 4), v6: denyIndex(nets, 6) };
}

/** What tells equal networks apart: family, first address (in hex, a BigInt's cheapest text) and prefix. */
function keyOf(net: IpNetwork): string {
  return `${net.family}:${net.start.toString(16)}/${net.prefix}`;
}

/** The allowed entries, first of each network kept, that no deny entry overlaps. */
function keptEntries(
  texts: readonly string[],
  nets: readonly IpNetwork[],
  deny: Denies,
  seen: Set<string>,
): Kept[] {
  const kept: Kept[] = [];
  for (let i = 0; i < nets.length; i++) {
    const net = nets[i];
    const key = keyOf(net);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!denied(net.family === 4 ? deny.v4 : deny.v6, net)) kept.push({ net, text: texts[i], key });
  }
  return kept;
}

function rangesOf(nets: readonly { readonly net: IpNetwork }[]): { v4: number[]; v6: bigint[] } {
  const v4: number[] = [];
  const v6: bigint[] = [];
  for (const { net } of nets) {
    if (typeof net.start === "bigint") v6.push(net.start, BigInt(net.end));
    else v4.push(net.start, Number(net.end));
  }
  return { v4, v6 };
}

function listOf(kept: readonly Kept[]): AccessList {
  const { v4, v6 } = rangesOf(kept);
  return new Acl(v4, v6, undefined, kept, null);
}

/** A host's own network that no deny entry overlaps, as written. */
interface Own {
  readonly net: IpNetwork;
  readonly text: string;
}

/**
 * Every access list has this one shape, plain or sharing the policy's list
 * (`rest`), so the check of a host's list in a selection over thousands of
 * hosts stays monomorphic. Its entries for the view are made when first asked,
 * from what the list already holds (no closure per list): the kept entries of
 * a plain list, or a host's own networks followed by the shared list's entries
 * that are not among them.
 */
class Acl implements AccessList {
  private view: readonly string[] | null = null;

  constructor(
    readonly v4: readonly number[],
    readonly v6: readonly bigint[],
    readonly rest: AccessList | undefined,
    private readonly own: readonly Own[],
    private readonly shared: readonly Kept[] | null,
  ) {}

  get entries(): readonly string[] {
    if (this.view === null) {
      const own = this.own.map((e) => e.text);
      if (this.shared === null) this.view = own;
      else {
        const keys = new Set(this.own.map((e) => keyOf(e.net)));
        this.view = [...own, ...this.shared.filter((k) => !keys.has(k.key)).map((k) => k.text)];
      }
    }
    return this.view;
  }
}

/** Bounds of a shared list short enough to copy into each host's list (a scan of one array is the select's hot path). */
const SHORT_SHARED = 32;

/** A built list with the keys of its kept entries and the deny index it was checked against (null on error). */
interface Built {
  readonly result: AclResult;
  readonly kept: Kept[];
  readonly deny: Denies | null;
}

/** Built lists kept per (allow, deny) pair of arrays. */
const BUILT = new IdentityMemo<readonly string[], { deny: readonly string[]; out: Built }>(2);

/**
 * Built lists kept by the text of their (allow, deny) pair: hosts reported with
 * lists of their own (equal from one host to the next, but each its own array)
 * share one built list, across decisions, instead of reading and building it per
 * host per decision. Bounded: only pairs of at most {@link BY_TEXT_ENTRIES}
 * entries are kept, and the whole memo is dropped when it holds
 * {@link BY_TEXT_PAIRS} pairs. A hit is checked entry by entry against the
 * arrays it was built from, so the key's separator need not be unambiguous;
 * those arrays are kept as they are, not copied: as for the memos by identity,
 * a list's arrays are never changed once given (a host's are its own).
 */
const BY_TEXT = new Map<string, { allow: readonly string[]; deny: readonly string[]; out: Built }>();
const BY_TEXT_ENTRIES = 64;
const BY_TEXT_PAIRS = 256;

function sameTexts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function built(allow: readonly string[], deny: readonly string[]): Built {
  const known = BUILT.get(allow);
  if (known !== undefined && known.deny === deny) return known.out;
  const small = allow.length + deny.length <= BY_TEXT_ENTRIES;
  const key = small ? `${allow.join("\n")}\n\n${deny.join("\n")}` : "";
  const same = small ? BY_TEXT.get(key) : undefined;
  if (same !== undefined && sameTexts(same.allow, allow) && sameTexts(same.deny, deny)) return same.out;
  const out = buildFresh(allow, deny);
  BUILT.set(allow, { deny, out });
  if (small) {
    if (BY_TEXT.size >= BY_TEXT_PAIRS) BY_TEXT.clear();
    BY_TEXT.set(key, { allow, deny, out });
  }
  return out;
}

function buildFresh(allow: readonly string[], deny: readonly string[]): Built {
  const a = readEntries(allow);
  const d = readEntries(deny);
  if ("index" in a)
    return {
      result: { ok: false, field: "allow", index: a.index, text: allow[a.index] },
      kept: [],
      deny: null,
    };
  if ("index" in d)
    return {
      result: { ok: false, field: "deny", index: d.index, text: deny[d.index] },
      kept: [],
      deny: null,
    };
  const index = denies(d.nets);
  const kept = keptEntries(allow, a.nets, index, new Set());
  return { result: { ok: true, list: listOf(kept) }, kept, deny: index };
}

/**
 * Builds the effective list the customs way: every `allow` entry is appended
 * unless the list already holds the same network (the list is a set: a host's own
 * network allowed again is one entry, as written first), then each `deny` entry
 * removes every entry it overlaps (so denying one address removes a network that
 * contains it). Returns the bad entry's index on error. The same arrays (a
 * policy's defaults, which every host without lists of its own shares), or
 * arrays of the same entries, are read and built once.
 */
export function buildAccessList(allow: readonly string[], deny: readonly string[]): AclResult {
  return built(allow, deny).result;
}

/** A host's own networks that no deny entry overlaps, the first of equal networks kept. */
function ownEntries(texts: readonly string[], nets: readonly IpNetwork[], deny: Denies): Own[] {
  const own: Own[] = [];
  // one network (the usual: the host's /24 or /64) needs no set to tell equal ones apart
  const seen = nets.length > 1 ? new Set<string>() : null;
  for (let i = 0; i < nets.length; i++) {
    const net = nets[i];
    if (seen !== null) {
      const key = keyOf(net);
      if (seen.has(key)) continue;
      seen.add(key);
    }
    if (!denied(net.family === 4 ? deny.v4 : deny.v6, net)) own.push({ net, text: texts[i] });
  }
  return own;
}

/**
 * A host's list: its own networks first, then the `allow` entries, less what
 * `deny` overlaps, as {@link buildAccessList} of the networks and the allow
 * entries joined; only the networks are read per host (the allow and deny
 * lists, the policy's or equal to ones seen before, are built once). A bad
 * network is an `allow` error at its index, a bad allow entry one at its index
 * after the networks.
 */
export function hostAccessList(
  networks: readonly string[],
  allow: readonly string[],
  deny: readonly string[],
): AclResult {
  if (networks.length === 0) return buildAccessList(allow, deny);
  const read = readEach(networks);
  if ("index" in read) return { ok: false, field: "allow", index: read.index, text: networks[read.index] };
  const base = built(allow, deny);
  if (!base.result.ok)
    return base.result.field === "allow"
      ? { ...base.result, index: base.result.index + networks.length }
      : base.result;
  const own = ownEntries(networks, read.nets, base.deny as Denies);
  const first = rangesOf(own);
  const shared = base.result.list;
  // a long shared list is not copied: it permits what it permits (an entry equal to
  // one of the networks permits nothing more); only the view leaves such duplicates out.
  // A short one is joined to the networks, so checking the list is one scan, as before
  // sharing (a family the host has no network of takes the shared ranges as they are)
  if (shared.v4.length + shared.v6.length <= SHORT_SHARED) {
    const v4 = first.v4.length === 0 ? shared.v4 : [...first.v4, ...shared.v4];
    const v6 = first.v6.length === 0 ? shared.v6 : [...first.v6, ...shared.v6];
    return { ok: true, list: new Acl(v4, v6, undefined, own, base.kept) };
  }
  return { ok: true, list: new Acl(first.v4, first.v6, shared, own, base.kept) };
}

/** Whether the list permits a peer address: some remaining entry of its family contains it. */
export function permits(list: AccessList, addr: IpNetwork): boolean {
  const n = addr.start;
  const rest = list.rest;
  if (typeof n === "bigint") return inRanges6(list.v6, n) || (rest !== undefined && inRanges6(rest.v6, n));
  return inRanges4(list.v4, n) || (rest !== undefined && inRanges4(rest.v4, n));
}

function inRanges4(r: readonly number[], n: number): boolean {
  for (let i = 0; i < r.length; i += 2) if (n >= r[i] && n <= r[i + 1]) return true;
  return false;
}

function inRanges6(r: readonly bigint[], n: bigint): boolean {
  for (let i = 0; i < r.length; i += 2) if (n >= r[i] && n <= r[i + 1]) return true;
  return false;
}
