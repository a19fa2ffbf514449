/**
 * Host access lists: IPv4 and IPv6 addresses and CIDR networks, parsed once by
 * the shared CIDR code into integer ranges (numbers for IPv4, BigInt for IPv6)
 * so that checking a client address is a few comparisons.
 */
import { parseNetworkPadded, type IpNetwork } from "../common/cidr.js";

/** The effective list of a host: the entries left after the deny operations. */
export interface AccessList {
  /** IPv4 ranges as flat [lo, hi, lo, hi, …] pairs. */
  readonly v4: readonly number[];
  /** IPv6 ranges as flat [lo, hi, …] pairs. */
  readonly v6: readonly bigint[];
  /** The surviving entries as written, for the `acl(host)` view. */
  readonly entries: readonly string[];
}

/**
 * Parses a client's `fromAddress` in the access-list syntax (zero-padded IPv4 octets
 * allowed, as in entries) but refusing a prefix; null when invalid.
 */
export function parseAclAddress(text: string): IpNetwork | null {
  return text.includes("/") ? null : parseNetworkPadded(text);
}

/**
 * Builds the effective list the customs way: every `allow` entry is appended
 * unless the list already holds the same network (the list is a set: a host's own
 * network allowed again is one entry, as written first), then each `deny` entry
 * removes every entry it overlaps (so denying one address removes a network that
 * contains it). Returns the bad entries' indexes on error.
 */
export function buildAccessList(
  allow: readonly string[],
  deny: readonly string[],
): { ok: true; list: AccessList } | { ok: false; field: "allow" | "deny"; index: number; text: string } {
  // Entries are networks with host bits masked (a bare address is a /32 or /128).
  let kept: { net: IpNetwork; text: string }[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < allow.length; i++) {
    const net = parseNetworkPadded(allow[i]);
    if (net === null) return { ok: false, field: "allow", index: i, text: allow[i] };
    const key = `${net.family}:${net.start}/${net.prefix}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push({ net, text: allow[i] });
  }
  for (let i = 0; i < deny.length; i++) {
    const d = parseNetworkPadded(deny[i]);
    if (d === null) return { ok: false, field: "deny", index: i, text: deny[i] };
    kept = kept.filter(({ net }) => net.family !== d.family || net.start > d.end || d.start > net.end);
  }
  const v4: number[] = [];
  const v6: bigint[] = [];
  for (const { net } of kept) {
    if (typeof net.start === "bigint") v6.push(net.start, BigInt(net.end));
    else v4.push(net.start, Number(net.end));
  }
  return { ok: true, list: { v4, v6, entries: kept.map((e) => e.text) } };
}

/** Whether the list permits a peer address: some remaining entry of its family contains it. */
export function permits(list: AccessList, addr: IpNetwork): boolean {
  const n = addr.start;
  if (typeof n === "bigint") {
    const r = list.v6;
    for (let i = 0; i < r.length; i += 2) if (n >= r[i] && n <= r[i + 1]) return true;
    return false;
  }
  const r = list.v4;
  for (let i = 0; i < r.length; i += 2) if (n >= r[i] && n <= r[i + 1]) return true;
  return false;
}
