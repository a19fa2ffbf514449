/**
 * Host access lists: IPv4 and IPv6 addresses and CIDR networks, parsed once
 * into integer ranges (numbers for IPv4, BigInt for IPv6) so that checking a
 * client address is a few comparisons.
 */

/** A parsed address: IPv4 as an unsigned 32-bit number, IPv6 as a 128-bit BigInt. */
export type ParsedAddress = { readonly v6: false; readonly n: number } | { readonly v6: true; readonly n: bigint };

/** An inclusive address range of one family, with the text it came from. */
export type AddressRange =
  | { readonly v6: false; readonly lo: number; readonly hi: number; readonly text: string }
  | { readonly v6: true; readonly lo: bigint; readonly hi: bigint; readonly text: string };

/** The effective list of a host: the entries left after the deny operations. */
export interface AccessList {
  /** IPv4 ranges as flat [lo, hi, lo, hi, …] pairs. */
  readonly v4: readonly number[];
  /** IPv6 ranges as flat [lo, hi, …] pairs. */
  readonly v6: readonly bigint[];
  /** The surviving entries as written, for the `acl(host)` view. */
  readonly entries: readonly string[];
}

function parseV4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const b = Number(p);
    if (b > 255) return null;
    n = n * 256 + b;
  }
  return n;
}

function parseV6(text: string): bigint | null {
  let s = text;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    s = s.slice(0, lastColon);
    if (s.endsWith(":")) s += ":";
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const group = (h: string): number[] | null => {
    if (h === "") return [];
    const out: number[] = [];
    for (const g of h.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = group(halves[0]);
  const rest = halves.length === 2 ? group(halves[1]) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  let groups: number[];
  if (halves.length === 2) {
    if (given > 7) return null;
    groups = [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
  } else {
    if (given !== 8) return null;
    groups = [...head, ...tail];
  }
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(g);
  return n;
}

/** Parses one IPv4 or IPv6 address; null when it is neither. */
export function parseAddress(text: string): ParsedAddress | null {
  if (text.includes(":")) {
    const n = parseV6(text);
    return n === null ? null : { v6: true, n };
  }
  const n = parseV4(text);
  return n === null ? null : { v6: false, n };
}

/** Parses an address or CIDR network (a bare address is a /32 or /128); null when invalid. */
export function parseRange(text: string): AddressRange | null {
  const slash = text.indexOf("/");
  const addr = parseAddress(slash < 0 ? text : text.slice(0, slash));
  if (addr === null) return null;
  const bits = addr.v6 ? 128 : 32;
  let prefix = bits;
  if (slash >= 0) {
    const p = text.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p) || Number(p) > bits) return null;
    prefix = Number(p);
  }
  if (addr.v6) {
    const span = (1n << BigInt(128 - prefix)) - 1n;
    const lo = addr.n & ~span & ((1n << 128n) - 1n);
    return { v6: true, lo, hi: lo | span, text };
  }
  const size = 2 ** (32 - prefix);
  const lo = addr.n - (addr.n % size);
  return { v6: false, lo, hi: lo + size - 1, text };
}

function overlaps(a: AddressRange, b: AddressRange): boolean {
  if (a.v6 !== b.v6) return false;
  return a.lo <= b.hi && b.lo <= a.hi;
}

/**
 * Builds the effective list the customs way: every `allow` entry is appended,
 * then each `deny` entry removes every entry it overlaps (so denying one address
 * removes a network that contains it). Returns the bad entries' indexes on error.
 */
export function buildAccessList(
  allow: readonly string[],
  deny: readonly string[],
): { ok: true; list: AccessList } | { ok: false; field: "allow" | "deny"; index: number; text: string } {
  const allowed: AddressRange[] = [];
  for (let i = 0; i < allow.length; i++) {
    const r = parseRange(allow[i]);
    if (r === null) return { ok: false, field: "allow", index: i, text: allow[i] };
    allowed.push(r);
  }
  let kept = allowed;
  for (let i = 0; i < deny.length; i++) {
    const d = parseRange(deny[i]);
    if (d === null) return { ok: false, field: "deny", index: i, text: deny[i] };
    kept = kept.filter((r) => !overlaps(r, d));
  }
  const v4: number[] = [];
  const v6: bigint[] = [];
  for (const r of kept) {
    if (r.v6) v6.push(r.lo, r.hi);
    else v4.push(r.lo, r.hi);
  }
  return { ok: true, list: { v4, v6, entries: kept.map((r) => r.text) } };
}

/** Whether the list permits a peer address: some remaining entry of its family contains it. */
export function permits(list: AccessList, addr: ParsedAddress): boolean {
  if (addr.v6) {
    const r = list.v6;
    for (let i = 0; i < r.length; i += 2) if (addr.n >= r[i] && addr.n <= r[i + 1]) return true;
    return false;
  }
  const r = list.v4;
  for (let i = 0; i < r.length; i += 2) if (addr.n >= r[i] && addr.n <= r[i + 1]) return true;
  return false;
}
