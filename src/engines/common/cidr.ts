/**
 * IP addresses and networks as integers: IPv4 as 32-bit numbers, IPv6 as
 * 128-bit bigints. Families never mix. Sets are prepared once (sorted merged
 * ranges for membership, a per-prefix-length index for longest-prefix lookup).
 */
import { RangeSetBuilder, type RangeSet } from "./cidr-ranges.js";

/** A parsed network: family, first address and prefix length (an address is a /32 or /128). */
export interface IpNetwork {
  readonly family: 4 | 6;
  /** First address: a number for IPv4, a bigint for IPv6. */
  readonly start: number | bigint;
  /** Last address of the network. */
  readonly end: number | bigint;
  readonly prefix: number;
  /** True when the text had bits set below the prefix (e.g. `192.0.2.1/24`). */
  readonly hostBits: boolean;
}

/**
 * Parses dotted-quad IPv4 text into a 32-bit unsigned number, or null: four
 * parts of one to three decimal digits, none above 255, no leading zero (`0`
 * alone is one). One scan, no strings made.
 */
export function parseIpv4(text: string): number | null {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return null;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      continue;
    }
    if (c < 48 || c > 57) return null;
    // a digit after a leading 0 (`01`, `00`)
    if (digits > 0 && part === 0) return null;
    part = part * 10 + (c - 48);
    if (++digits > 3 || part > 255) return null;
  }
  if (dots !== 3 || digits === 0) return null;
  return value * 256 + part;
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Parses IPv6 text (with `::` and an optional trailing dotted quad) into a bigint, or null. */
export function parseIpv6(text: string): bigint | null {
  if (text.length < 2 || text.includes("%")) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  // A dotted quad may only be the last 32 bits: never before a `::`.
  const toGroups = (part: string, quadAllowed: boolean): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const items = part.split(":");
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (quadAllowed && i === items.length - 1 && item.includes(".")) {
        const v4 = parseIpv4(item);
        if (v4 === null) return null;
        out.push(Math.floor(v4 / 65536), v4 % 65536);
      } else if (HEX_GROUP.test(item)) {
        out.push(parseInt(item, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = toGroups(halves[0], halves.length === 1);
  if (head === null) return null;
  let groups: number[];
  if (halves.length === 2) {
    const tail = toGroups(halves[1], true);
    if (tail === null || head.length + tail.length > 7) return null;
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    if (head.length !== 8) return null;
    groups = head;
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

const V6_ALL = (1n << 128n) - 1n;

/** Parses an address or `address/prefix`; host bits are reported, not rejected (callers decide). */
export function parseNetwork(text: string): IpNetwork | null {
  const slash = text.indexOf("/");
  const addrText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? null : text.slice(slash + 1);
  if (prefixText !== null && !/^\d{1,3}$/.test(prefixText)) return null;
  const v4 = parseIpv4(addrText);
  if (v4 !== null) {
    const prefix = prefixText === null ? 32 : Number(prefixText);
    if (prefix > 32) return null;
    const size = 2 ** (32 - prefix);
    const start = Math.floor(v4 / size) * size;
    return { family: 4, start, end: start + size - 1, prefix, hostBits: start !== v4 };
  }
  const v6 = parseIpv6(addrText);
  if (v6 !== null) {
    const prefix = prefixText === null ? 128 : Number(prefixText);
    if (prefix > 128) return null;
    const hostMask = V6_ALL >> BigInt(prefix);
    const start = v6 & ~hostMask & V6_ALL;
    return { family: 6, start, end: start | hostMask, prefix, hostBits: start !== v6 };
  }
  return null;
}

/** Parses a single address (no prefix), for requesters that must be hosts. */
export function parseAddress(text: string): IpNetwork | null {
  return text.includes("/") ? null : parseNetwork(text);
}

const PADDED_OCTET = /^\d{1,3}$/;

/**
 * Parses like parseNetwork, for specs whose tools read zero-padded octets as decimal
 * (`010.0.0.1/8` is 10.0.0.0/8).
 */
export function parseNetworkPadded(text: string): IpNetwork | null {
  const slash = text.indexOf("/");
  const addr = slash < 0 ? text : text.slice(0, slash);
  const dot = addr.indexOf(".");
  if (dot < 0) return parseNetwork(text);
  const colon = addr.lastIndexOf(":");
  const octets = addr.slice(colon + 1).split(".");
  if (octets.length !== 4 || !octets.every((o) => PADDED_OCTET.test(o))) return null;
  // without a zero-padded octet the text already is what parseNetwork reads
  if (octets.every((o) => o.length === 1 || o.charCodeAt(0) !== 48)) return parseNetwork(text);
  const quad = octets.map(Number).join(".");
  return parseNetwork(addr.slice(0, colon + 1) + quad + (slash < 0 ? "" : text.slice(slash)));
}

/** Formats a network back to canonical text (`192.0.2.0/24`, `2001:db8::/32`). */
export function formatNetwork(net: IpNetwork): string {
  return `${formatAddress(net.family, net.start)}/${net.prefix}`;
}

/** Formats one address canonically (RFC 5952 for IPv6). */
export function formatAddress(family: 4 | 6, value: number | bigint): string {
  if (family === 4) {
    const n = Number(value);
    return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");
  }
  const v = BigInt(value);
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((v >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen && j - i > 1) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** A prepared set of networks: membership, overlap and longest-prefix lookup in O(log n). */
export interface CidrSet {
  /** Number of (normalized, deduplicated) entries. */
  readonly size: number;
  /** True when some entry contains every address of `net`. */
  contains(net: IpNetwork): boolean;
  /** True when some entry shares at least one address with `net`. */
  overlaps(net: IpNetwork): boolean;
  /** The most specific entry containing `net`, as canonical text, or null. */
  longestMatch(net: IpNetwork): string | null;
}

const WORD = 0xffffffffn;

/** Splits a 128-bit address into four 32-bit words, most significant first. */
export function v6Words(v: bigint, out: Uint32Array = new Uint32Array(4)): Uint32Array {
  out[0] = Number((v >> 96n) & WORD);
  out[1] = Number((v >> 64n) & WORD);
  out[2] = Number((v >> 32n) & WORD);
  out[3] = Number(v & WORD);
  return out;
}

const qStart = new Uint32Array(4);
const qEnd = new Uint32Array(4);

/** Overlap of a parsed network with a range set (IPv6 networks converted to words on the way). */
export function rangeOverlaps(set: RangeSet, net: IpNetwork): boolean {
  if (net.family === 4) return set.overlaps4(net.start as number, net.end as number);
  return set.overlaps6(v6Words(net.start as bigint, qStart), v6Words(net.end as bigint, qEnd));
}

/** Containment of a parsed network in a range set. */
export function rangeContains(set: RangeSet, net: IpNetwork): boolean {
  if (net.family === 4) return set.contains4(net.start as number, net.end as number);
  return set.contains6(v6Words(net.start as bigint, qStart), v6Words(net.end as bigint, qEnd));
}

/** A first address as a map key: the number itself for IPv4, hex text for IPv6 (bigint keys hash poorly). */
function startKey(v: number | bigint): number | string {
  return typeof v === "bigint" ? v.toString(16) : v;
}

function maskStart(net: IpNetwork, prefix: number): number | bigint {
  if (net.family === 4) {
    const size = 2 ** (32 - prefix);
    return Math.floor(Number(net.start) / size) * size;
  }
  return BigInt(net.start) & ~(V6_ALL >> BigInt(prefix)) & V6_ALL;
}

type PrefixIndex = { prefix: number; entries: Map<number | string, string> }[];

/** The per-prefix-length maps of one family, longest prefix first. */
function prefixIndex(nets: readonly IpNetwork[]): PrefixIndex {
  const prefixes = new Map<number, Map<number | string, string>>();
  for (const n of nets) {
    let m = prefixes.get(n.prefix);
    if (!m) prefixes.set(n.prefix, (m = new Map()));
    m.set(startKey(n.start), formatNetwork(n));
  }
  return [...prefixes.entries()]
    .sort((a, b) => b[0] - a[0])
    .map(([prefix, entries]) => ({ prefix, entries }));
}

/** Builds the prepared set from networks (host bits must already be masked off). */
export function cidrSetOf(nets: readonly IpNetwork[]): CidrSet {
  const builder = new RangeSetBuilder();
  const words = new Uint32Array(4);
  for (const n of nets) {
    if (n.family === 4) builder.add4(n.start as number, n.prefix);
    else builder.add6(v6Words(n.start as bigint, words), n.prefix);
  }
  const ranges = builder.build();
  // longest-prefix lookups are rare: their maps are built on first use
  let byFamily: { 4: PrefixIndex; 6: PrefixIndex } | null = null;
  return {
    size: ranges.size,
    contains: (net) => rangeContains(ranges, net),
    overlaps: (net) => rangeOverlaps(ranges, net),
    longestMatch: (net) => {
      byFamily ??= {
        4: prefixIndex(nets.filter((n) => n.family === 4)),
        6: prefixIndex(nets.filter((n) => n.family === 6)),
      };
      for (const { prefix, entries } of byFamily[net.family]) {
        if (prefix > net.prefix) continue;
        const hit = entries.get(startKey(maskStart(net, prefix)));
        if (hit !== undefined) return hit;
      }
      return null;
    },
  };
}

/**
 * Builds a CidrSet from address/CIDR texts, masking host bits; invalid entries are
 * ignored, because lists arrive already cleaned by parseCidrListText.
 */
export function buildCidrSet(entries: readonly string[]): CidrSet {
  const nets: IpNetwork[] = [];
  for (const e of entries) {
    const n = parseNetwork(e.trim());
    if (n) nets.push(n);
  }
  return cidrSetOf(nets);
}

/**
 * Reads a downloaded CIDR list the way pScheduler does: `#` starts a comment,
 * lines are trimmed, blank and invalid lines are skipped, host bits are masked;
 * returns canonical, de-duplicated entries in first-seen order.
 */
export function parseCidrListText(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const raw of text.split(/\r?\n|\r/)) {
    const hash = raw.indexOf("#");
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    if (line === "") continue;
    const net = parseNetwork(line);
    if (!net) continue;
    const canon = formatNetwork(net);
    if (!seen.has(canon)) {
      seen.add(canon);
      out.push(canon);
    }
  }
  return out;
}
