/**
 * Ganeti's ad-hoc rate limiting: a reason `rate-limit:<n>:<label>` puts the
 * job in a bucket that at most n jobs occupy at once. The number is read as
 * Haskell's `reads :: Int` reads it, with nothing left over.
 */

/** A bucket a job belongs to: its key (label and limit together) and its limit. */
export interface Bucket {
  readonly key: string;
  readonly limit: number;
}

const MAX_INT = (1n << 63n) - 1n;
const NO_BUCKETS: readonly Bucket[] = [];

// Haskell's isSpace: ASCII whitespace, NBSP and the Unicode space separators.
const SPACE = /[\t\n\v\f\r \u00a0\p{Zs}]/u;

function skipSpaces(s: string, i: number): number {
  while (i < s.length && SPACE.test(s[i])) i++;
  return i;
}

/** Reads an unsigned Haskell integer literal (decimal, 0x/0X hex, 0o/0O octal) at i; returns its end or -1. */
function readNatural(s: string, i: number): { value: bigint; end: number } | null {
  const c1 = s[i + 1];
  if (s[i] === "0" && (c1 === "x" || c1 === "X" || c1 === "o" || c1 === "O")) {
    const hex = c1 === "x" || c1 === "X";
    const digit = hex ? /[0-9a-fA-F]/ : /[0-7]/;
    let j = i + 2;
    while (j < s.length && digit.test(s[j])) j++;
    if (j > i + 2) return { value: BigInt((hex ? "0x" : "0o") + s.slice(i + 2, j)), end: j };
    // `0x` with no digits lexes as the number 0 followed by `x...`.
  }
  let j = i;
  while (j < s.length && s[j] >= "0" && s[j] <= "9") j++;
  if (j === i) return null;
  // A fraction or an exponent makes a number that is not an Int.
  if (
    (s[j] === "." && /[0-9]/.test(s[j + 1] ?? "")) ||
    ((s[j] === "e" || s[j] === "E") && /^[+-]?[0-9]/.test(s.slice(j + 1)))
  ) {
    return null;
  }
  return { value: BigInt(s.slice(i, j)), end: j };
}

/** Parses `[space] ( '(' expr ')' | ['-'] [space] number )` as Haskell's Int reader does; null when it does not. */
function readInt(s: string, i: number, depth: number): { value: bigint; end: number } | null {
  i = skipSpaces(s, i);
  if (s[i] === "(" && depth < 64) {
    const inner = readInt(s, i + 1, depth + 1);
    if (!inner) return null;
    const j = skipSpaces(s, inner.end);
    return s[j] === ")" ? { value: inner.value, end: j + 1 } : null;
  }
  let negative = false;
  if (s[i] === "-") {
    negative = true;
    i = skipSpaces(s, i + 1);
  }
  const n = readNatural(s, i);
  if (!n) return null;
  return { value: negative ? -n.value : n.value, end: n.end };
}

function readLimit(nStr: string): bigint | null {
  const r = readInt(nStr, 0, 0);
  if (!r || r.end !== nStr.length) return null;
  if (r.value <= 0n || r.value > MAX_INT) return null;
  return r.value;
}

/** The limit a `rate-limit` count string denotes, or null when it is not a positive Int read with nothing left. */
export function parseLimit(nStr: string): number | null {
  const n = readLimit(nStr);
  return n === null ? null : Number(n);
}

/** The bucket a reason string defines, or null for an ordinary reason (never an error); the key keeps n exact. */
export function parseBucket(reason: string): Bucket | null {
  if (!reason.startsWith("rate-limit:")) return null;
  const rest = reason.slice("rate-limit:".length);
  const colon = rest.indexOf(":");
  const nStr = colon < 0 ? rest : rest.slice(0, colon);
  const limit = readLimit(nStr);
  if (limit === null) return null;
  return { key: `${rest}:${limit.toString()}`, limit: Number(limit) };
}

/** The distinct buckets a job's reason entries name, each once. */
export function bucketsOf(
  reasons: readonly (readonly [string, string, number | bigint])[],
): readonly Bucket[] {
  let out: Bucket[] | null = null;
  for (const e of reasons) {
    const b = parseBucket(e[1]);
    if (!b) continue;
    out ??= [];
    if (!out.some((x) => x.key === b.key)) out.push(b);
  }
  return out ?? NO_BUCKETS;
}
